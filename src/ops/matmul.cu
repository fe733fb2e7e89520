/* matmul.cu — CUDA cl1_op_matmul through cuBLAS SGEMM in full FP32 (CUBLAS_DEFAULT_MATH: no
 * TF32, PyTorch's default for matmul). Row-major C = A @ B is column-major C^T = B^T A^T. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

extern "C" int cl1_op_matmul(void *stream, const float *A, const float *B, float *C, int64_t M,
                             int64_t N, int64_t K) {
  if (M < 0 || N < 0 || K < 0) return 1;
  if (M * N == 0) return 0;
  if (!C) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  if (K == 0) {  // an empty sum: cuBLAS would be asked for lda = 0
    CL1_CUDA_TRY(cudaMemsetAsync(C, 0, sizeof(float) * (size_t)(M * N), st));
    return 0;
  }
  if (!A || !B) return 1;
  cublasHandle_t h;
  if (cl1_ops_cublas(st, &h)) return 1;
  const float one = 1.f, zero = 0.f;
  CL1_CUBLAS_TRY(cublasSgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero,
                                C, N));
  return 0;
}
