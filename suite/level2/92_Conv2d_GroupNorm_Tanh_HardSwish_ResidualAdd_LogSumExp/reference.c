/* reference.c — level2/92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp, PyTorch eager
 * order: c = conv2d(x, W, b) into scratch, h = group_norm(c) into scratch, h = tanh(h),
 * h = hardswish(h), h = c + h in place, y = logsumexp(h, dim=1). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *c, *h; } state92; /* (N, K, OH, OW) each */

static int describe(const cl1_call *call, cl1_conv2d_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || y->ndim != 4) return 1;
  *d = (cl1_conv2d_desc){.n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                         .k = w->shape[0], .r = w->shape[2], .s = w->shape[3], .stride_h = 1,
                         .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
  if (w->shape[1] != d->c || d->r > d->h || d->s > d->w) return 1;
  for (int i = 1; i < 4; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != d->k) return 1;
  if (y->shape[0] != d->n || y->shape[1] != 1 || y->shape[2] != cl1_conv2d_out_h(d) ||
      y->shape[3] != cl1_conv2d_out_w(d))
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc d;
  if (describe(call, &d)) return 1;
  size_t n = (size_t)(d.n * d.k * cl1_conv2d_out_h(&d) * cl1_conv2d_out_w(&d));
  state92 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->c = cl1_op_alloc(n * sizeof(float));
  s->h = cl1_op_alloc(n * sizeof(float));
  if (!s->c || !s->h) {
    cl1_op_free(s->c), cl1_op_free(s->h), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state92 *s = state;
  if (!s) return;
  cl1_op_free(s->c);
  cl1_op_free(s->h);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_conv2d_desc d;
  const state92 *s = call->state;
  double groups, eps;
  if (!s || describe(call, &d) || cl1_op_attr(call, "groups", &groups) ||
      cl1_op_attr(call, "eps", &eps))
    return 1;
  int64_t g = (int64_t)groups, hw = cl1_conv2d_out_h(&d) * cl1_conv2d_out_w(&d);
  int64_t n = d.n * d.k * hw;
  if (g < 1 || d.k % g) return 1;
  const cl1_tensor *p = call->params;
  int rc = cl1_op_conv2d(call->stream, (const float *)call->inputs[0].data,
                         (const float *)p[0].data, (const float *)p[1].data, s->c, &d);
  if (!rc)
    rc = cl1_op_groupnorm(call->stream, s->c, (const float *)p[2].data, (const float *)p[3].data,
                          s->h, d.n, d.k, hw, g, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, s->h, s->h, n, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDSWISH, s->h, s->h, n, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_ADD, s->c, s->h, s->h, n);
  if (!rc) rc = cl1_op_logsumexp(call->stream, s->h, (float *)call->outputs[0].data, d.n, d.k, hw);
  return rc;
}
