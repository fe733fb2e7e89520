/* linear.c — host reference for cl1_op_linear: y = x @ W^T + bias over rows of x that are ldx
 * apart (a contiguous x or a row-strided view), dot products in double. */
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_linear(void *stream, const float *x, int64_t ldx, const float *W, const float *bias,
                  float *y, int64_t M, int64_t N, int64_t K) {
  (void)stream;
  if (ldx == 0) ldx = K;
  if (cl1_ops_bad_sizes(M, N, K) || ldx < K) return 1;
  if (M * N == 0) return 0;
  if (!y || (K > 0 && (!x || !W))) return 1;
  for (int64_t i = 0; i < M; i++) {
    const float *xi = x + i * ldx;  // (K)
    for (int64_t j = 0; j < N; j++) {
      const float *wj = W + j * K;  // (K)
      double s = bias ? (double)bias[j] : 0.0;
      for (int64_t k = 0; k < K; k++) s += (double)xi[k] * wj[k];
      y[i * N + j] = (float)s;
    }
  }
  return 0;
}
