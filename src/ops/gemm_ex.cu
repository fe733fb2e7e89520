/* gemm_ex.cu — CUDA cl1_op_gemm_ex through cuBLAS in full FP32 (the shared handle keeps
 * CUBLAS_DEFAULT_MATH: no TF32, PyTorch's default for matmul): cublasSgemm_64 for one matrix,
 * cublasSgemmStridedBatched_64 for a batch (what PyTorch's bmm calls). Row-major
 * C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, so B goes first; a row-major (r, c)
 * matrix is a column-major (c, r) one with leading dimension c. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

extern "C" int cl1_op_gemm_ex(void *stream, int trans_a, int trans_b, const float *A,
                              const float *B, float *C, int64_t M, int64_t N, int64_t K,
                              int64_t batch, int64_t stride_a, int64_t stride_b,
                              int64_t stride_c) {
  if (M < 0 || N < 0 || K < 0 || batch < 0 || stride_a < 0 || stride_b < 0 || stride_c < 0)
    return 1;
  if (batch > 1 && stride_c < M * N) return 1;  // outputs of two batches would overlap
  if (M * N == 0 || batch == 0) return 0;
  if (!C) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  if (K == 0) {  // an empty sum: cuBLAS would be asked for a zero leading dimension
    if (batch == 1 || stride_c == M * N) {
      CL1_CUDA_TRY(cudaMemsetAsync(C, 0, sizeof(float) * (size_t)(batch * M * N), st));
    } else {
      CL1_CUDA_TRY(cudaMemset2DAsync(C, sizeof(float) * (size_t)stride_c, 0,
                                     sizeof(float) * (size_t)(M * N), (size_t)batch, st));
    }
    return 0;
  }
  if (!A || !B) return 1;
  cublasHandle_t h;
  if (cl1_ops_cublas(st, &h)) return 1;
  // op(B)^T: stored (K, N) -> column-major (N, K), ld N, no transpose; stored (N, K) -> ld K, T
  const cublasOperation_t ob = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int64_t ldb = trans_b ? K : N;
  // op(A)^T: stored (M, K) -> column-major (K, M), ld K, no transpose; stored (K, M) -> ld M, T
  const cublasOperation_t oa = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int64_t lda = trans_a ? M : K;
  const float one = 1.f, zero = 0.f;
  if (batch == 1) {
    CL1_CUBLAS_TRY(cublasSgemm_64(h, ob, oa, N, M, K, &one, B, ldb, A, lda, &zero, C, N));
  } else {
    CL1_CUBLAS_TRY(cublasSgemmStridedBatched_64(h, ob, oa, N, M, K, &one, B, ldb, stride_b, A,
                                                lda, stride_a, &zero, C, N, stride_c, batch));
  }
  return 0;
}
