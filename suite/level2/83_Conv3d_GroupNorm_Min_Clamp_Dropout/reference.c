/* reference.c — level2/83_Conv3d_GroupNorm_Min_Clamp_Dropout, PyTorch eager order: y =
 * conv3d(x, W, b), then in place y = group_norm(y), y = min(y, min_value), y = clamp(y,
 * min_value, max_value); dropout in eval mode is the identity (no call). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || y->ndim != 5) return 1;
  double groups, eps, lo, hi;
  if (cl1_op_attr(call, "groups", &groups) || cl1_op_attr(call, "eps", &eps) ||
      cl1_op_attr(call, "min_value", &lo) || cl1_op_attr(call, "max_value", &hi))
    return 1;
  cl1_convnd_desc d = {.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                       .groups = 1};
  for (int i = 0; i < 3; i++)
    d.in[i] = x->shape[2 + i], d.ker[i] = w->shape[2 + i], d.stride[i] = 1, d.pad[i] = 0,
    d.dil[i] = 1;
  if (!cl1_convnd_valid(&d) || w->shape[1] != d.c) return 1;
  for (int i = 1; i < 4; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != d.k) return 1;
  int64_t g = (int64_t)groups, sp = 1;
  if (g < 1 || d.k % g || y->shape[0] != d.n || y->shape[1] != d.k) return 1;
  for (int i = 0; i < 3; i++) {
    if (y->shape[2 + i] != cl1_convnd_out(&d, i)) return 1;
    sp *= y->shape[2 + i];
  }
  int64_t n = d.n * d.k * sp;
  const cl1_tensor *p = call->params;
  float *out = (float *)y->data;
  int rc = cl1_op_convnd(call->stream, (const float *)x->data, (const float *)p[0].data,
                         (const float *)p[1].data, out, &d);
  if (!rc)
    rc = cl1_op_groupnorm(call->stream, out, (const float *)p[2].data, (const float *)p[3].data,
                          out, d.n, d.k, sp, g, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MIN_SCALAR, out, out, n, lo, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, n, lo, hi);
  return rc;
}
