/* gemm_ex.c — host reference for cl1_op_gemm_ex: batched C[b] = op(A[b]) @ op(B[b]) with
 * transpose flags, a double row accumulator per row of C (i-k-j order: for the untransposed B
 * the reads stay sequential; the transposed cases only matter at test sizes on the host). */
#include <stdlib.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_gemm_ex(void *stream, int trans_a, int trans_b, const float *A, const float *B,
                   float *C, int64_t M, int64_t N, int64_t K, int64_t batch, int64_t stride_a,
                   int64_t stride_b, int64_t stride_c) {
  (void)stream;
  if (cl1_ops_bad_sizes(M, N, K) || batch < 0 || stride_a < 0 || stride_b < 0 || stride_c < 0)
    return 1;
  if (batch > 1 && stride_c < M * N) return 1;  // outputs of two batches would overlap
  if (M * N == 0 || batch == 0) return 0;
  if (!C || (K > 0 && (!A || !B))) return 1;
  double *acc = malloc(sizeof(double) * (size_t)N);  // (N)
  if (!acc) return 1;
  for (int64_t b = 0; b < batch; b++) {
    const float *a = A ? A + b * stride_a : NULL, *bm = B ? B + b * stride_b : NULL;
    float *c = C + b * stride_c;
    for (int64_t i = 0; i < M; i++) {
      for (int64_t j = 0; j < N; j++) acc[j] = 0.0;
      for (int64_t k = 0; k < K; k++) {
        double aik = trans_a ? a[k * M + i] : a[i * K + k];  // op(A)[i, k]
        if (trans_b)
          for (int64_t j = 0; j < N; j++) acc[j] += aik * bm[j * K + k];
        else
          for (int64_t j = 0; j < N; j++) acc[j] += aik * bm[k * N + j];
      }
      for (int64_t j = 0; j < N; j++) c[i * N + j] = (float)acc[j];
    }
  }
  free(acc);
  return 0;
}
