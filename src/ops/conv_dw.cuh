/* conv_dw.cuh — the direct depthwise convolution that cl1_op_convnd takes for groups == C
 * (see conv_dw.cu). */
#ifndef CL1_OPS_CONV_DW_CUH
#define CL1_OPS_CONV_DW_CUH
#include "cudal1/ops.h"
#include "cuda_common.cuh"

/* 1 when PyTorch would run d through its own depthwise kernel rather than cuDNN (FP32,
 * contiguous): 1-d or 2-d, groups == in channels > 1, out channels a multiple of them. */
static inline bool cl1_conv_dw_applies(const cl1_convnd_desc *d) {
  return (d->nd == 1 || d->nd == 2) && d->groups == d->c && d->groups > 1 && d->k % d->c == 0;
}

/* y = depthwise conv(x, w) + bias (bias may be NULL); d valid and cl1_conv_dw_applies(d). */
CL1_OPS_INTERNAL int cl1_conv_dw(cudaStream_t st, const float *x, const float *w,
                                 const float *bias, float *y, const cl1_convnd_desc *d);
#endif
