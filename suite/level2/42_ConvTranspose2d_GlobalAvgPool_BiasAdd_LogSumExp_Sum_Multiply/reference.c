/* reference.c — level2/42_ConvTranspose2d_GlobalAvgPool_BiasAdd_LogSumExp_Sum_Multiply, PyTorch
 * eager order: t = conv_transpose2d(x, W, b) into scratch, m = mean(t, (2, 3)) into scratch,
 * m = m + bias in place, l = logsumexp(m, 1) into scratch, y = sum(l, (2, 3)) (size-1 dims),
 * y = y * 10 in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;  // (N, C_out, H', W')
  float *m;  // (N, C_out)
  float *l;  // (N)
} state42;

static int describe(const cl1_call *call, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *bias = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || b->ndim != 1 || bias->ndim != 3 || y->ndim != 2) return 1;
  *d = (cl1_convt_desc){.nd = 2, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  for (int i = 0; i < 2; i++)
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i], d->stride[i] = 1, d->pad[i] = 0,
    d->out_pad[i] = 0, d->dil[i] = 1;
  if (w->shape[0] != d->c_in || cl1_convt_check(d) || b->shape[0] != d->c_out) return 1;
  if (bias->shape[0] != d->c_out || bias->shape[1] != 1 || bias->shape[2] != 1) return 1;
  if (y->shape[0] != d->n || y->shape[1] != 1) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  if (describe(call, &d)) return 1;
  int64_t nc = d.n * d.c_out;
  state42 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(nc * cl1_convt_out(&d, 0) * cl1_convt_out(&d, 1)) * sizeof(float));
  s->m = cl1_op_alloc((size_t)nc * sizeof(float));
  s->l = cl1_op_alloc((size_t)d.n * sizeof(float));
  if (!s->t || !s->m || !s->l) {
    cl1_op_free(s->t), cl1_op_free(s->m), cl1_op_free(s->l), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state42 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->m);
  cl1_op_free(s->l);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  const state42 *s = call->state;
  double mult;
  if (!s || describe(call, &d) || cl1_op_attr(call, "multiplier", &mult)) return 1;
  int64_t nc = d.n * d.c_out, plane = cl1_convt_out(&d, 0) * cl1_convt_out(&d, 1);
  float *y = (float *)call->outputs[0].data;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, s->t, &d);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, s->t, s->m, nc, plane, 1);
  if (!rc)
    rc = cl1_op_bias_add(call->stream, s->m, (const float *)call->params[2].data, s->m, d.n,
                         d.c_out, 1);
  if (!rc) rc = cl1_op_logsumexp(call->stream, s->m, s->l, d.n, d.c_out, 1);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_SUM, s->l, y, d.n, 1, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, y, y, d.n, mult, 0);
  return rc;
}
