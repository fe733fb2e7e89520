/* ops_pool.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Pooling: N-d (1, 2 or 3 spatial dims) max and average pooling over (planes, *spatial)
 * tensors with per-dim kernel, stride, padding and dilation, as PyTorch's MaxPool{1,2,3}d and
 * AvgPool{1,2,3}d (no indices, divisor_override None). */
#ifndef CUDAL1_OPS_POOL_H
#define CUDAL1_OPS_POOL_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CL1_POOL_MAX = 0, CL1_POOL_AVG = 1, CL1_POOL_N = 2 } cl1_pool_kind;

#define CL1_POOL_MAX_DIMS 3
typedef struct {
  int32_t nsp;                        /* spatial dims, 1..3 */
  int64_t planes;                     /* N * C: pooling never mixes planes */
  int64_t in[CL1_POOL_MAX_DIMS];      /* input spatial sizes */
  int64_t out[CL1_POOL_MAX_DIMS];     /* output spatial sizes (cl1_pool_out_len) */
  int64_t k[CL1_POOL_MAX_DIMS], stride[CL1_POOL_MAX_DIMS], pad[CL1_POOL_MAX_DIMS],
      dil[CL1_POOL_MAX_DIMS];         /* dil must be 1 for CL1_POOL_AVG */
  int32_t ceil_mode;                  /* 0: floor (PyTorch's default) */
  int32_t count_include_pad;          /* AVG only: padded positions count in the divisor */
} cl1_pool_desc;

/* PyTorch's pooling output length: floor (or ceil) of (in + 2p - d(k-1) - 1) / s, plus 1; in
 * ceil mode a last window that would start inside the right padding is dropped. Returns -1 for
 * invalid arguments (k, s, d < 1, p < 0, p > k/2 as PyTorch rejects) or an empty output. */
static inline int64_t cl1_pool_out_len(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                                       int ceil_mode) {
  if (in < 1 || k < 1 || s < 1 || d < 1 || p < 0 || p > k / 2) return -1;
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  if (num < 0) return -1;
  int64_t out = num / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p) out--;
  return out;
}

/* 0 when d is a valid pooling: kind known, 1..3 spatial dims, planes >= 0, every out[i] equal
 * to cl1_pool_out_len of its dim, dilation 1 for AVG. */
static inline int cl1_pool_desc_check(int kind, const cl1_pool_desc *d) {
  if (!d || kind < 0 || kind >= CL1_POOL_N || d->nsp < 1 || d->nsp > CL1_POOL_MAX_DIMS ||
      d->planes < 0)
    return 1;
  for (int32_t i = 0; i < d->nsp; i++) {
    if (kind == CL1_POOL_AVG && d->dil[i] != 1) return 1;
    int64_t o = cl1_pool_out_len(d->in[i], d->k[i], d->stride[i], d->pad[i], d->dil[i],
                                 d->ceil_mode);
    if (o < 1 || o != d->out[i]) return 1;
  }
  return 0;
}

/* y = pool(x). MAX: padding acts as -inf (only in-bounds positions are compared), NaN
 * propagates. AVG: sum over the window's in-bounds positions divided by the window size clipped
 * to the padded extent (count_include_pad) or by the number of in-bounds positions.
 * x: (planes, in[0..nsp)), y: (planes, out[0..nsp)); d->out must equal cl1_pool_out_len. */
int cl1_op_pool(void *stream, int kind, const float *x, float *y, const cl1_pool_desc *d);

#ifdef __cplusplus
}
#endif
#endif
