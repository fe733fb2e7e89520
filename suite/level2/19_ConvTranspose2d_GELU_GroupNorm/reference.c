/* reference.c — level2/19_ConvTranspose2d_GELU_GroupNorm, PyTorch eager order:
 * y = conv_transpose2d(x, W, b, stride) into the output (padding 0, groups 1), then in place
 * y = gelu(y) (exact erf form), y = group_norm(y). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *g = &call->params[2], *be = &call->params[3], *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || g->ndim != 1 || be->ndim != 1 ||
      y->ndim != 4)
    return 1;
  double stride, groups, eps;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "num_groups", &groups) ||
      cl1_op_attr(call, "eps", &eps))
    return 1;
  cl1_convt_desc d = {.nd = 2, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                      .groups = 1};
  for (int i = 0; i < 2; i++)
    d.in[i] = x->shape[2 + i], d.k[i] = w->shape[2 + i], d.stride[i] = (int64_t)stride,
    d.pad[i] = 0, d.out_pad[i] = 0, d.dil[i] = 1;
  if (cl1_convt_check(&d) || w->shape[0] != d.c_in) return 1;
  int64_t C = d.c_out, G = (int64_t)groups, hw = 1;
  if (y->shape[0] != d.n || y->shape[1] != C) return 1;
  for (int i = 0; i < 2; i++) {
    if (y->shape[2 + i] != cl1_convt_out(&d, i)) return 1;
    hw *= y->shape[2 + i];
  }
  if (cb->shape[0] != C || g->shape[0] != C || be->shape[0] != C || G < 1 || C % G) return 1;
  float *out = (float *)y->data;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)cb->data, out, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, out, out, d.n * C * hw, 0, 0);
  if (!rc) rc = cl1_op_groupnorm(call->stream, out, (const float *)g->data,
                                 (const float *)be->data, out, d.n, C, hw, G, eps);
  return rc;
}
