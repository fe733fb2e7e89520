/* ops_norm.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Normalisations and reductions: reductions over a middle dim, BatchNorm (training mode),
 * GroupNorm/InstanceNorm and "divide by a norm" (L1, mean |x|, L2/Frobenius, RMS). */
#ifndef CUDAL1_OPS_NORM_H
#define CUDAL1_OPS_NORM_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CL1_REDUCE_SUM = 0,
  CL1_REDUCE_MEAN = 1,
  CL1_REDUCE_MAX = 2,
  CL1_REDUCE_MIN = 3,
  CL1_REDUCE_ARGMAX = 4,
  CL1_REDUCE_ARGMIN = 5,
  CL1_REDUCE_N = 6
} cl1_reduce_kind;

/* Reduction over the middle dim. x: (outer, red, inner) -> y: (outer, inner).
 * y is float for SUM/MEAN/MAX/MIN and int64_t for ARGMAX/ARGMIN. As PyTorch: NaN propagates
 * through max/min and counts as the extreme for argmax/argmin; ties give the first (lowest)
 * index. red == 0: SUM gives 0, MEAN NaN, the others are an error (PyTorch raises). */
int cl1_op_reduce(void *stream, int kind, const float *x, void *y, int64_t outer, int64_t red,
                  int64_t inner);

/* BatchNorm in training mode: per channel c, the batch mean and biased variance over the
 * n * hw elements x[:, c, :]; y = (x - mean_c) / sqrt(var_c + eps) * w[c] + b[c] (w, b may be
 * NULL). Running statistics are not touched (they never affect the output).
 * x, y: (n, c, hw); w, b: (c) */
int cl1_op_batchnorm_train(void *stream, const float *x, const float *w, const float *b,
                           float *y, int64_t n, int64_t c, int64_t hw, double eps);

/* GroupNorm: channels split into `groups` contiguous groups (groups divides c); per (sample,
 * group) mean and biased variance over its c/groups * hw elements; per-channel affine w, b
 * (may be NULL). InstanceNorm without affine is groups == c, w = b = NULL.
 * x, y: (n, c, hw); w, b: (c) */
int cl1_op_groupnorm(void *stream, const float *x, const float *w, const float *b, float *y,
                     int64_t n, int64_t c, int64_t hw, int64_t groups, double eps);

typedef enum {
  CL1_NORM_L1 = 0,       /* d = sum |x| + eps          (x / x.abs().sum(dim))  */
  CL1_NORM_MEAN_ABS = 1, /* d = mean |x| + eps         (x / x.abs().mean(dim)) */
  CL1_NORM_L2 = 2,       /* d = sqrt(sum x^2 + eps)    (x / x.norm(dim); Frobenius: whole tensor) */
  CL1_NORM_RMS = 3,      /* d = sqrt(mean x^2 + eps)   (x / rms) */
  CL1_NORM_N = 4
} cl1_norm_kind;

/* y = x / d, d reduced over the middle dim and broadcast back (keepdim). Pass eps = 0 for the
 * plain norms. A norm over the whole tensor is outer = inner = 1, red = numel.
 * x, y: (outer, red, inner) */
int cl1_op_normalize(void *stream, int kind, const float *x, float *y, int64_t outer,
                     int64_t red, int64_t inner, double eps);

#ifdef __cplusplus
}
#endif
#endif
