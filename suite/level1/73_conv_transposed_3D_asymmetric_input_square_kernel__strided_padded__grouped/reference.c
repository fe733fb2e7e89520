/* reference.c — level1/73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped: y = conv_transpose3d(x, W), no bias; stride, padding,
 * output_padding, dilation and groups from attrs (a per-axis attr such as stride_h wins over the
 * scalar one), channels and kernel sizes from the tensors. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_op_convtnd_task(call, 3); }
