/* ops_net_a.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Ops first needed by level-3 networks. */
#ifndef CUDAL1_OPS_NET_A_H
#define CUDAL1_OPS_NET_A_H
#include <stdint.h>
#include "ops_convt.h" /* cl1_convt_desc */
#ifdef __cplusplus
extern "C" {
#endif

/* cl1_op_convtnd in full FP32: nn.ConvTranspose as PyTorch runs it with
 * torch.backends.cudnn.allow_tf32 = False (cuDNN FMA math, no TF32 rounding of the operands),
 * for networks whose outputs TF32 rounding would swamp (their tasks say so with attr
 * conv_tf32 = 0). Same arguments, shapes and bias handling as cl1_op_convtnd (ops_convt.h);
 * the host build computes exactly what cl1_op_convtnd does (it never rounds to TF32). On CUDA
 * one cuDNN call covers the whole batch: tensors past INT_MAX elements are an error. */
int cl1_op_convtnd_fp32(void *stream, const float *x, const float *w, const float *bias,
                        float *y, const cl1_convt_desc *d);

#ifdef __cplusplus
}
#endif
#endif
