/* net_a_convtnd_fp32.c — host cl1_op_convtnd_fp32: the host transposed convolution already
 * accumulates in double and never rounds operands to TF32, so full FP32 is cl1_op_convtnd. */
#include "cudal1/ops.h"

int cl1_op_convtnd_fp32(void *stream, const float *x, const float *w, const float *bias,
                        float *y, const cl1_convt_desc *d) {
  return cl1_op_convtnd(stream, x, w, bias, y, d);
}
