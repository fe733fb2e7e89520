/* reference.c — level1/50_conv_standard_2D__square_input__square_kernel: y = nn.Conv2d(3, 96, kernel_size=11, stride=4, padding=2, bias=True)(x).
 * One cl1_op_convnd call (bias included); kernel sizes from the weight,
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
