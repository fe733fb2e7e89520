/* reference.c — level1/80_conv_standard_2D_square_input_asymmetric_kernel___dilated____padded__: y = nn.Conv2d(in_channels, out_channels, kernel_size=(kh, kw), stride=1, padding=(ph, pw), dilation=(dh, dw), bias=False)(x).
 * One cl1_op_convnd call; kernel sizes from the weight,
 * stride/padding/dilation/groups from attrs, checked against every tensor shape. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define ND 2
static const char *const kStride[ND] = {"stride", "stride"};
static const char *const kPad[ND] = {"padding_h", "padding_w"};
static const char *const kDil[ND] = {"dilation_h", "dilation_w"};

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  return cl1_op_convnd_task(call, ND, kStride, kPad, kDil);
}
