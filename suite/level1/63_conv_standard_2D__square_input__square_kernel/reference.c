/* reference.c — level1/63_conv_standard_2D__square_input__square_kernel: y = conv2d(x, W), no
 * bias; stride/padding/dilation/groups from attrs, sizes from the tensors. */
#include <string.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || y->ndim != 4) return 1;
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
  if (d.stride_h < 1 || d.dil_h < 1 || d.pad_h < 0) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.k || y->shape[2] != cl1_conv2d_out_h(&d) ||
      y->shape[3] != cl1_conv2d_out_w(&d))
    return 1;
  return cl1_op_conv2d(call->stream, (const float *)x->data, (const float *)w->data, NULL,
                       (float *)y->data, &d);
}
