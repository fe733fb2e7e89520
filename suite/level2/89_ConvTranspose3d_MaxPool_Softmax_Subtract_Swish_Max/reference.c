/* reference.c — level2/89_ConvTranspose3d_MaxPool_Softmax_Subtract_Swish_Max, PyTorch eager
 * order: t = conv_transpose3d(x, W, b) into scratch, p = max_pool3d(t) into scratch,
 * u = softmax(p, dim=1) into scratch, u = u - subtract[c] in place, g = sigmoid(u) into scratch,
 * g = g * u, y = max(g, dim=1). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;         // (N, C, D', H', W')
  float *p, *u, *g; // (N, C, D'', H'', W'')
} state89;

static int describe(const cl1_call *call, cl1_convt_desc *d, cl1_pool_desc *p) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *sub = &call->params[2], *y = &call->outputs[0];
  if (b->ndim != 1 || sub->ndim != 1 || y->ndim != 4) return 1;
  double pk, ps, pp;
  if (cl1_op_attr(call, "pool_kernel_size", &pk) || cl1_op_attr(call, "pool_stride", &ps) ||
      cl1_op_attr(call, "pool_padding", &pp))
    return 1;
  if (cl1_convt_desc_of(call, x, w, NULL, 3, d) || b->shape[0] != d->c_out ||
      sub->shape[0] != d->c_out)
    return 1;
  *p = (cl1_pool_desc){.nsp = 3, .planes = d->n * d->c_out};
  for (int i = 0; i < 3; i++) {
    p->in[i] = cl1_convt_out(d, i);
    p->k[i] = (int64_t)pk, p->stride[i] = (int64_t)ps, p->pad[i] = (int64_t)pp, p->dil[i] = 1;
    p->out[i] = cl1_pool_out_len(p->in[i], p->k[i], p->stride[i], p->pad[i], 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, p)) return 1;
  if (y->shape[0] != d->n) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[1 + i] != p->out[i]) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  cl1_pool_desc p;
  if (describe(call, &d, &p)) return 1;
  int64_t nc = d.n * d.c_out;
  size_t np = (size_t)(nc * p.out[0] * p.out[1] * p.out[2]) * sizeof(float);
  state89 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(nc * p.in[0] * p.in[1] * p.in[2]) * sizeof(float));
  s->p = cl1_op_alloc(np);
  s->u = cl1_op_alloc(np);
  s->g = cl1_op_alloc(np);
  if (!s->t || !s->p || !s->u || !s->g) {
    cl1_op_free(s->t), cl1_op_free(s->p), cl1_op_free(s->u), cl1_op_free(s->g), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state89 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->p);
  cl1_op_free(s->u);
  cl1_op_free(s->g);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  cl1_pool_desc p;
  const state89 *s = call->state;
  if (!s || describe(call, &d, &p)) return 1;
  int64_t C = d.c_out, sp = p.out[0] * p.out[1] * p.out[2], n = d.n * C * sp;
  const int64_t dims[3] = {d.n, C, sp}, cont[3] = {C * sp, sp, 1}, chan[3] = {0, 1, 0};
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, s->t, &d);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->t, s->p, &p);
  if (!rc) rc = cl1_op_softmax_dim(call->stream, s->p, s->u, d.n, C, sp);
  if (!rc)
    rc = cl1_op_binary_bcast(call->stream, CL1_BINARY_SUB, s->u, cont,
                             (const float *)call->params[2].data, chan, s->u, 3, dims);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, s->u, s->g, n, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, s->g, s->u, s->g, n);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MAX, s->g, call->outputs[0].data, d.n, C, sp);
  return rc;
}
