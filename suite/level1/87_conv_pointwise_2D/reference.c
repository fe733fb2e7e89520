/* reference.c — level1/87_conv_pointwise_2D: y = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False)(x).
 * One cl1_op_convnd call; kernel sizes from the weight,
 * stride/padding/dilation/groups from attrs, checked against every tensor shape. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define ND 2
static const char *const kStride[ND] = {"stride", "stride"};
static const char *const kPad[ND] = {"padding", "padding"};
static const char *const kDil[ND] = {"dilation", "dilation"};

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != ND + 2 || w->ndim != ND + 2 || y->ndim != ND + 2) return 1;
  if (x->dtype != CL1_F32 || w->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  double groups;
  if (cl1_op_attr(call, "groups", &groups)) return 1;
  cl1_convnd_desc d = {.nd = ND, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                       .groups = (int64_t)groups};
  for (int i = 0; i < ND; i++) {
    double s, p, l;
    if (cl1_op_attr(call, kStride[i], &s) || cl1_op_attr(call, kPad[i], &p) ||
        cl1_op_attr(call, kDil[i], &l))
      return 1;
    d.in[i] = x->shape[2 + i], d.ker[i] = w->shape[2 + i];
    d.stride[i] = (int64_t)s, d.pad[i] = (int64_t)p, d.dil[i] = (int64_t)l;
  }
  if (!cl1_convnd_valid(&d) || w->shape[1] != d.c / d.groups) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.k) return 1;
  for (int i = 0; i < ND; i++)
    if (y->shape[2 + i] != cl1_convnd_out(&d, i)) return 1;
  return cl1_op_convnd(call->stream, (const float *)x->data, (const float *)w->data,
                       NULL, (float *)y->data, &d);
}
