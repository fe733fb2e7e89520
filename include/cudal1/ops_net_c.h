/* ops_net_c.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Ops first needed by level-3 networks: strided views made contiguous (.contiguous() after a
 * transpose, channel shuffle or slice) and elementwise binaries whose operands are strided or
 * broadcast views (NetVLAD's `vlad.transpose(1, 2) - a_sum * clusters2`). */
#ifndef CUDAL1_OPS_NET_C_H
#define CUDAL1_OPS_NET_C_H
#include <stdint.h>
#include "ops_act.h"
#ifdef __cplusplus
extern "C" {
#endif

/* Most dims of a view (the ABI's CL1_MAX_DIMS). */
#define CL1_VIEW_MAX_DIMS 8

/* y = x viewed with `shape` and element strides `xstride`, written contiguously (row-major):
 * y[i_0, ..., i_{nd-1}] = x[sum_k i_k * xstride[k]]. Strides may be 0 (broadcast) and the
 * view may start anywhere (pass x + offset); y must not overlap x. 1 <= ndim <= 8, shape >= 0.
 * Channel shuffle of (N, C, H, W) into g groups is shape (N, C/g, g, H*W) with strides
 * (C*H*W, H*W, C/g*H*W, 1); the slice x[:, :k] of (rows, cols) is shape (rows, k), strides
 * (cols, 1). */
int cl1_op_view_copy(void *stream, const float *x, float *y, int32_t ndim, const int64_t *shape,
                     const int64_t *xstride);

/* y = x (op) z elementwise over `shape` with x and z read through strided views (strides 0
 * broadcast), y contiguous: y[i] = x[i . xstride] (op) z[i . zstride], op as cl1_op_binary.
 * y must not overlap x or z unless that operand's view is y's own contiguous layout. */
int cl1_op_view_binary(void *stream, cl1_binary_kind kind, const float *x, const int64_t *xstride,
                       const float *z, const int64_t *zstride, float *y, int32_t ndim,
                       const int64_t *shape);

#ifdef __cplusplus
}
#endif
#endif
