/* matmul.c — host reference for cl1_op_matmul: C = A @ B, a double row accumulator per row of C
 * (i-k-j order keeps the B and C reads sequential). */
#include <stdlib.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_matmul(void *stream, const float *A, const float *B, float *C, int64_t M, int64_t N,
                  int64_t K) {
  (void)stream;
  if (cl1_ops_bad_sizes(M, N, K)) return 1;
  if (M * N == 0) return 0;
  if (!C || (K > 0 && (!A || !B))) return 1;
  double *acc = malloc(sizeof(double) * (size_t)N);  // (N)
  if (!acc) return 1;
  for (int64_t i = 0; i < M; i++) {
    for (int64_t j = 0; j < N; j++) acc[j] = 0.0;
    for (int64_t k = 0; k < K; k++) {
      double a = A[i * K + k];
      const float *bk = B + k * N;
      for (int64_t j = 0; j < N; j++) acc[j] += a * bk[j];
    }
    for (int64_t j = 0; j < N; j++) C[i * N + j] = (float)acc[j];
  }
  free(acc);
  return 0;
}
