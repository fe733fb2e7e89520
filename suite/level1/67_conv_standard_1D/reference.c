/* reference.c — level1/67_conv_standard_1D: y = nn.Conv1d(in_channels, out_channels, kernel_size, bias=False)(x).
 * One cl1_op_convnd call; kernel sizes from the weight,
 * stride/padding/dilation/groups from attrs, checked against every tensor shape. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define ND 1
static const char *const kStride[ND] = {"stride"};
static const char *const kPad[ND] = {"padding"};
static const char *const kDil[ND] = {"dilation"};

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  return cl1_op_convnd_task(call, ND, kStride, kPad, kDil);
}
