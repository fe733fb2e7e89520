/* net_d_linear_rows.cu — CUDA cl1_op_linear_rows: F.linear on a row-strided view, as PyTorch's
 * addmm does it without a copy: the bias broadcast into y, then one full-FP32 cuBLAS SGEMM with
 * beta = 1 reading x with leading dimension ldx. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

// y: (M, N) <- bias broadcast over rows
__global__ static void lr_broadcast_rows(const float *__restrict__ bias, float *__restrict__ y,
                                         int64_t M, int64_t N) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < M * N;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = bias[i % N];
}

extern "C" int cl1_op_linear_rows(void *stream, const float *x, int64_t ldx, const float *W,
                                  const float *bias, float *y, int64_t M, int64_t N,
                                  int64_t K) {
  if (M < 0 || N < 0 || K < 0 || ldx < K) return 1;
  if (M * N == 0) return 0;
  if (!y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  if (bias) {
    lr_broadcast_rows<<<cl1_ops_grid(M * N, 256), 256, 0, st>>>(bias, y, M, N);
    CL1_LAUNCH_CHECK();
  } else if (K == 0) {
    CL1_CUDA_TRY(cudaMemsetAsync(y, 0, sizeof(float) * (size_t)(M * N), st));
  }
  if (K == 0) return 0;
  if (!x || !W) return 1;
  cublasHandle_t h;
  if (cl1_ops_cublas(st, &h)) return 1;
  const float one = 1.f, beta = bias ? 1.f : 0.f;
  /* column-major y^T (N, M) = W (K, N)^T x^T, x^T column-major (K, M) with ld ldx */
  CL1_CUBLAS_TRY(cublasSgemm_64(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, W, K, x,
                                ldx > 0 ? ldx : 1, &beta, y, N));
  return 0;
}
