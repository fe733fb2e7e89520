/* reference.c — level1/84_conv_depthwise_2D_asymmetric_input_square_kernel: y = nn.Conv2d(in_channels, out_channels, kernel_size=(k, k), groups=in_channels, bias=False)(x).
 * One cl1_op_convnd call; kernel sizes from the weight,
 * stride/padding/dilation/groups from attrs, checked against every tensor shape. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define ND 2
static const char *const kStride[ND] = {"stride", "stride"};
static const char *const kPad[ND] = {"padding", "padding"};
static const char *const kDil[ND] = {"dilation", "dilation"};

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  return cl1_op_convnd_task(call, ND, kStride, kPad, kDil);
}
