/* attention.cu — CUDA cl1_op_sdpa as PyTorch's math path: scores = scale * Q K^T and out = P V
 * as cuBLAS strided-batched SGEMMs in full FP32 (the shared handle has no TF32), the row softmax
 * by cl1_op_softmax in place. The scores buffer (batch * L * S floats) is this file's own, grown
 * on demand (growth synchronises the device before freeing the old one). */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

static float *g_scores;
static size_t g_cap;

extern "C" int cl1_op_sdpa(void *stream, const float *Q, const float *K, const float *V,
                           float *out, int64_t batch, int64_t L, int64_t S, int64_t E, int64_t Ev,
                           double scale) {
  if (batch < 0 || L < 0 || S < 1 || E < 1 || Ev < 0) return 1;
  if (batch * L * Ev == 0) return 0;
  if (!Q || !K || !V || !out) return 1;
  const int64_t lim = 2147483647;
  if (L > lim || S > lim || E > lim || Ev > lim || batch > lim) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  size_t need = sizeof(float) * (size_t)(batch * L * S);
  if (need > g_cap) {
    if (g_scores) {
      CL1_CUDA_TRY(cudaDeviceSynchronize());
      CL1_CUDA_TRY(cudaFree(g_scores));
      g_scores = NULL, g_cap = 0;
    }
    CL1_CUDA_TRY(cudaMalloc((void **)&g_scores, need));
    g_cap = need;
  }
  cublasHandle_t h;
  if (cl1_ops_cublas(st, &h)) return 1;
  const float alpha = (float)scale, one = 1.f, zero = 0.f;
  // Row-major C = A B is column-major C^T = B^T A^T. scores^T (S x L) = K (S x E, col-major
  // view of row-major K is E x S -> op T) times Q^T (E x L).
  CL1_CUBLAS_TRY(cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)S, (int)L, (int)E,
                                           &alpha, K, (int)E, S * E, Q, (int)E, L * E, &zero,
                                           g_scores, (int)S, L * S, (int)batch));
  if (cl1_op_softmax(stream, g_scores, g_scores, batch * L, S)) return 1;
  // out^T (Ev x L) = V^T (Ev x S) times P^T (S x L).
  CL1_CUBLAS_TRY(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)Ev, (int)L, (int)S,
                                           &one, V, (int)Ev, S * Ev, g_scores, (int)S, L * S,
                                           &zero, out, (int)Ev, L * Ev, (int)batch));
  return 0;
}
