/* reference.c — level2/17_Conv2d_InstanceNorm_Divide, PyTorch eager order: y = conv2d(x, W, b)
 * into the output, then in place y = instance_norm(y) (groupnorm with one channel per group, no
 * affine) and y = y / divide_by. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || y->ndim != 4) return 1;
  double stride, pad, dil, groups, eps, div;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "dilation", &dil) || cl1_op_attr(call, "groups", &groups) ||
      cl1_op_attr(call, "eps", &eps) || cl1_op_attr(call, "divide_by", &div))
    return 1;
  if (div == 0) return 1;
  cl1_conv2d_desc d = {
      .n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
      .k = w->shape[0], .r = w->shape[2], .s = w->shape[3],
      .stride_h = (int64_t)stride, .stride_w = (int64_t)stride, .pad_h = (int64_t)pad,
      .pad_w = (int64_t)pad, .dil_h = (int64_t)dil, .dil_w = (int64_t)dil,
      .groups = (int64_t)groups};
  if (d.groups < 1 || d.c % d.groups || w->shape[1] != d.c / d.groups) return 1;
  if (d.stride_h < 1 || d.dil_h < 1 || d.pad_h < 0) return 1;
  int64_t oh = cl1_conv2d_out_h(&d), ow = cl1_conv2d_out_w(&d);
  if (y->shape[0] != d.n || y->shape[1] != d.k || y->shape[2] != oh || y->shape[3] != ow) return 1;
  if (cb->shape[0] != d.k) return 1;
  float *out = (float *)y->data;
  int64_t hw = oh * ow;
  int rc = cl1_op_conv2d(call->stream, (const float *)x->data, (const float *)w->data,
                         (const float *)cb->data, out, &d);
  if (!rc) rc = cl1_op_groupnorm(call->stream, out, NULL, NULL, out, d.n, d.k, hw, d.k, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, d.n * d.k * hw,
                             1.0 / div, 0);
  return rc;
}
