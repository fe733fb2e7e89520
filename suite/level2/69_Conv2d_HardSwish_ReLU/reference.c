/* reference.c — level2/69_Conv2d_HardSwish_ReLU, PyTorch eager order: y = conv2d(x, W, b),
 * y = hardswish(y), y = relu(y) in place. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || y->ndim != 4) return 1;
  double stride, pad, dil, groups;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "dilation", &dil) || cl1_op_attr(call, "groups", &groups))
    return 1;
  cl1_conv2d_desc d = {
      .n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
      .k = w->shape[0], .r = w->shape[2], .s = w->shape[3],
      .stride_h = (int64_t)stride, .stride_w = (int64_t)stride, .pad_h = (int64_t)pad,
      .pad_w = (int64_t)pad, .dil_h = (int64_t)dil, .dil_w = (int64_t)dil,
      .groups = (int64_t)groups};
  if (d.groups < 1 || d.c % d.groups || w->shape[1] != d.c / d.groups) return 1;
  if (d.stride_h < 1 || d.dil_h < 1 || d.pad_h < 0 || cb->shape[0] != d.k) return 1;
  int64_t oh = cl1_conv2d_out_h(&d), ow = cl1_conv2d_out_w(&d);
  if (y->shape[0] != d.n || y->shape[1] != d.k || y->shape[2] != oh || y->shape[3] != ow)
    return 1;
  int64_t n = d.n * d.k * oh * ow;
  float *out = (float *)y->data;
  int rc = cl1_op_conv2d(call->stream, (const float *)x->data, (const float *)w->data,
                         (const float *)cb->data, out, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDSWISH, out, out, n, 0, 0);
  if (!rc) rc = cl1_op_relu(call->stream, out, out, n);
  return rc;
}
