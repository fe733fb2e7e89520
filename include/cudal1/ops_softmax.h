/* ops_softmax.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * The softmax family beyond ops.h's last-dim cl1_op_softmax: softmax over a middle dim,
 * LogSoftmax, and logsumexp (the log of softmax's denominator), all max-shifted for stability
 * as ATen. */
#ifndef CUDAL1_OPS_SOFTMAX_H
#define CUDAL1_OPS_SOFTMAX_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Softmax over the middle dim (torch.softmax(x, dim) with x viewed as (outer, n, inner)):
 * y[o, :, i] = exp(x[o, :, i] - max) / sum exp(x[o, :, i] - max). x, y: (outer, n, inner);
 * y must not alias x. */
int cl1_op_softmax_dim(void *stream, const float *x, float *y, int64_t outer, int64_t n,
                       int64_t inner);

/* LogSoftmax over the last dim: y = x - max - log(sum exp(x - max)). x, y: (rows, cols) */
int cl1_op_log_softmax(void *stream, const float *x, float *y, int64_t rows, int64_t cols);

/* torch.logsumexp over the middle dim: y = m + log(sum exp(x - m)), m the max over the dim
 * with +-inf replaced by 0 (so a row of -inf gives -inf, a row holding +inf gives +inf, NaN
 * propagates). x: (outer, red, inner) -> y: (outer, inner); red >= 1. */
int cl1_op_logsumexp(void *stream, const float *x, float *y, int64_t outer, int64_t red,
                     int64_t inner);

#ifdef __cplusplus
}
#endif
#endif
