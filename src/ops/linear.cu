/* linear.cu — CUDA cl1_op_linear: y = x @ W^T + bias in full FP32, as PyTorch's addmm: for a
 * contiguous x a 1-D bias goes into cuBLASLt's epilogue (gemm_tuned.cu); for a one-row or
 * one-column weight, or a row-strided x (ldx > K, which addmm reads without a copy), the bias is
 * broadcast into y and cublasSgemm accumulates with beta = 1; no bias is a plain cublasSgemm.
 * Row-major y (M, N) is column-major y^T = W x^T with W (N, K) read transposed and x^T
 * column-major (K, M) with leading dimension ldx. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"
#include "gemm_tuned.cuh"

// y: (M, N) <- bias broadcast over rows
__global__ static void broadcast_rows(const float *__restrict__ bias, float *__restrict__ y,
                                      int64_t M, int64_t N) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < M * N;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = bias[i % N];
}

extern "C" int cl1_op_linear(void *stream, const float *x, int64_t ldx, const float *W,
                             const float *bias, float *y, int64_t M, int64_t N, int64_t K) {
  if (ldx == 0) ldx = K;
  if (M < 0 || N < 0 || K < 0 || ldx < K) return 1;
  if (M * N == 0) return 0;
  if (!y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  /* PyTorch's addmm takes cuBLASLt with the bias in the epilogue when the bias is 1-D and the
     weight has more than one row and column (and every size is below 65535 * 32): seen on the
     H200 for a batch of one too (level3/3: a gemv kernel, no bias copy); otherwise the bias is
     copied in and the GEMM adds to it (beta = 1) */
  const int64_t lt_max = 65535LL * 32;
  if (bias && x && W && ldx == K && N > 1 && K > 1 && M < lt_max && N < lt_max && K < lt_max)
    return cl1_gemm_nt_bias(st, x, W, bias, y, M, N, K);
  if (bias) {
    broadcast_rows<<<cl1_ops_grid(M * N, 256), 256, 0, st>>>(bias, y, M, N);
    CL1_LAUNCH_CHECK();
  } else if (K == 0) {
    CL1_CUDA_TRY(cudaMemsetAsync(y, 0, sizeof(float) * (size_t)(M * N), st));
  }
  if (K == 0) return 0;
  if (!x || !W) return 1;
  cublasHandle_t h;
  if (cl1_ops_cublas(st, &h)) return 1;
  const float one = 1.f, beta = bias ? 1.f : 0.f;
  CL1_CUBLAS_TRY(cublasSgemm_64(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, W, K, x, ldx, &beta,
                                y, N));
  return 0;
}
