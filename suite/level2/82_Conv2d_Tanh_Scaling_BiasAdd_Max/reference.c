/* reference.c — level2/82_Conv2d_Tanh_Scaling_BiasAdd_Max, PyTorch eager order: c = conv2d(x, W,
 * conv.bias) into an intermediate, c = tanh(c), c = c * scaling_factor, c = c + bias (per
 * channel) in place, y = max_pool2d(c, p) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *conv; /* (N, K, OH, OW) */
} ref_state;

static int ref_shapes(const cl1_call *call, cl1_conv2d_desc *d, cl1_pool_desc *p,
                      double *scale) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *b = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || b->ndim != 3 || y->ndim != 4) return 1;
  double pk;
  if (cl1_op_attr(call, "scaling_factor", scale) || cl1_op_attr(call, "pool_kernel_size", &pk))
    return 1;
  *d = (cl1_conv2d_desc){.n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                         .k = w->shape[0], .r = w->shape[2], .s = w->shape[3], .stride_h = 1,
                         .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
  if (w->shape[1] != d->c || d->r > d->h || d->s > d->w) return 1;
  if (cb->shape[0] != d->k || b->shape[0] != d->k || b->shape[1] != 1 || b->shape[2] != 1)
    return 1;
  int64_t oh = cl1_conv2d_out_h(d), ow = cl1_conv2d_out_w(d), k = (int64_t)pk;
  *p = (cl1_pool_desc){.nsp = 2, .planes = d->n * d->k, .in = {oh, ow}, .k = {k, k},
                       .stride = {k, k}, .dil = {1, 1}};
  p->out[0] = cl1_pool_out_len(oh, k, k, 0, 1, 0);
  p->out[1] = cl1_pool_out_len(ow, k, k, 0, 1, 0);
  if (cl1_pool_desc_check(CL1_POOL_MAX, p)) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->k || y->shape[2] != p->out[0] ||
      y->shape[3] != p->out[1])
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc d;
  cl1_pool_desc p;
  double scale;
  if (ref_shapes(call, &d, &p, &scale)) return 1;
  ref_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->conv = cl1_op_alloc((size_t)(p.planes * p.in[0] * p.in[1]) * sizeof(float) + 4);
  if (!s->conv) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *s = state;
  if (!s) return;
  cl1_op_free(s->conv);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_conv2d_desc d;
  cl1_pool_desc p;
  double scale;
  const ref_state *s = call->state;
  if (!s || ref_shapes(call, &d, &p, &scale)) return 1;
  void *st = call->stream;
  int64_t hw = p.in[0] * p.in[1], n = p.planes * hw;
  int rc = cl1_op_conv2d(st, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->conv, &d);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_TANH, s->conv, s->conv, n, 0, 0);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_MUL_SCALAR, s->conv, s->conv, n, scale, 0);
  if (!rc) rc = cl1_op_bias_add(st, s->conv, (const float *)call->params[2].data, s->conv, d.n,
                                d.k, hw);
  if (!rc) rc = cl1_op_pool(st, CL1_POOL_MAX, s->conv, (float *)call->outputs[0].data, &p);
  return rc;
}
