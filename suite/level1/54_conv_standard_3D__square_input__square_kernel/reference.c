/* reference.c — level1/54_conv_standard_3D__square_input__square_kernel: y = nn.Conv3d(in_channels, out_channels, kernel_size=(k, k, k), bias=False)(x).
 * One cl1_op_convnd call; kernel sizes from the weight,
 * stride/padding/dilation/groups from attrs, checked against every tensor shape. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define ND 3
static const char *const kStride[ND] = {"stride", "stride", "stride"};
static const char *const kPad[ND] = {"padding", "padding", "padding"};
static const char *const kDil[ND] = {"dilation", "dilation", "dilation"};

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  return cl1_op_convnd_task(call, ND, kStride, kPad, kDil);
}
