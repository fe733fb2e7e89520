/* ops_scan.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Scans (cumsum/cumprod with reverse/exclusive/mask flags), the loss functions KernelBench's
 * level-1 tasks 94..100 use (each fused into one op: the reference has no workspace for
 * intermediates), the explicit tanh-GELU of minGPT, and scaled dot-product attention. */
#ifndef CUDAL1_OPS_SCAN_H
#define CUDAL1_OPS_SCAN_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CL1_SCAN_SUM = 0,  /* torch.cumsum */
  CL1_SCAN_PROD = 1, /* torch.cumprod */
  CL1_SCAN_N = 2
} cl1_scan_kind;

/* Scan over the middle dim. v[k] = x[o, k, i] * mask[o, k, i] (mask: 0/1 bytes, NULL = all 1;
 * the multiply of `x * mask` in PyTorch). Inclusive: y[o, j, i] = v[0] op ... op v[j].
 * reverse != 0 scans from the end (flip, scan, flip): y[j] = v[j] op ... op v[n-1].
 * exclusive != 0 leaves out v[j] itself (identity 0 / 1 at the first position, in scan order).
 * x, mask, y: (outer, n, inner); y must not alias x. */
int cl1_op_scan(void *stream, int kind, const float *x, const uint8_t *mask, float *y,
                int64_t outer, int64_t n, int64_t inner, int reverse, int exclusive);

/* The losses of cl1_op_loss, all reduced to one float scalar y[0]. */
typedef enum {
  CL1_LOSS_MSE = 0,     /* mean((a - b)^2)                               a, b: (rows, cols) */
  CL1_LOSS_HUBER = 1,   /* mean(|d| < p ? 0.5 d^2 / p : |d| - 0.5 p), d = a - b; p = beta
                           (F.smooth_l1_loss)                           a, b: (rows, cols) */
  CL1_LOSS_KL_DIV = 2,  /* sum(b * (log b - log a)) / rows, 0 where b == 0: F.kl_div(torch.log(a),
                           b, reduction='batchmean') with the log fused   a, b: (rows, cols) */
  CL1_LOSS_HINGE = 3,   /* mean(max(0, 1 - a[r, j] * b[j])): targets broadcast over the LAST dim
                                                                     a: (rows, cols), b: (cols) */
  CL1_LOSS_TRIPLET = 4, /* mean_r max(|a - b + eps|_2 - |a - c + eps|_2 + p, 0), eps = 1e-6,
                           p = margin (nn.TripletMarginLoss, p=2)   a, b, c: (rows, cols) */
  CL1_LOSS_N = 5
} cl1_loss_kind;
#define CL1_TRIPLET_EPS 1e-6

/* y[0] = loss_kind(a, b, c; p); c is only read by TRIPLET (may be NULL otherwise). rows and
 * cols must be >= 1. */
int cl1_op_loss(void *stream, int kind, const float *a, const float *b, const float *c,
                float *y, int64_t rows, int64_t cols, double p);

/* F.cross_entropy(x, target) with the defaults (mean over rows, no weights, no smoothing):
 * y[0] = mean_r (logsumexp(x[r, :]) - x[r, target[r]]). Non-zero when a target is outside
 * [0, cols) on the host build (the CUDA build cannot report it synchronously and gives NaN).
 * x: (rows, cols); target: (rows) int64 */
int cl1_op_cross_entropy(void *stream, const float *x, const int64_t *target, float *y,
                         int64_t rows, int64_t cols);

/* y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) evaluated step by step in float as
 * minGPT's NewGELU in eager PyTorch (each intermediate rounded). x, y: (n); y may alias x. */
int cl1_op_gelu_tanh(void *stream, const float *x, float *y, int64_t n);

/* F.scaled_dot_product_attention(Q, K, V, scale=scale) without mask or dropout, in full FP32:
 * per batch b, out[b] = softmax(Q[b] K[b]^T * scale, dim=-1) V[b].
 * Q: (batch, L, E), K: (batch, S, E), V: (batch, S, Ev), out: (batch, L, Ev) */
int cl1_op_sdpa(void *stream, const float *Q, const float *K, const float *V, float *out,
                int64_t batch, int64_t L, int64_t S, int64_t E, int64_t Ev, double scale);

#ifdef __cplusplus
}
#endif
#endif
