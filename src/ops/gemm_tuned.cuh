/* gemm_tuned.cuh — full-FP32 GEMMs through cuBLASLt with cached descriptors (see gemm_tuned.cu):
 * timed once per shape, for the RNN ops' per-step recurrent projection; and with the bias in the
 * epilogue, for cl1_op_linear as PyTorch's addmm. */
#ifndef CL1_OPS_GEMM_TUNED_CUH
#define CL1_OPS_GEMM_TUNED_CUH
#include "cuda_common.cuh"

/* Row-major C (M, N) = A (M, K; rows lda apart) @ W^T with W (N, K) row-major, FP32 compute
 * (no TF32), on stream st. Returns 0, or 1 on a CUDA/cuBLAS error. */
CL1_OPS_INTERNAL int cl1_gemm_nt_tuned(cudaStream_t st, const float *A, int64_t lda,
                                       const float *W, float *C, int64_t M, int64_t N,
                                       int64_t K);

/* Row-major C (M, N) = A (M, K) @ W^T + bias (N), bias added in the matmul's epilogue, FP32
 * compute, the heuristic's first algorithm. Returns 0, or 1 on a CUDA/cuBLAS error. */
CL1_OPS_INTERNAL int cl1_gemm_nt_bias(cudaStream_t st, const float *A, const float *W,
                                      const float *bias, float *C, int64_t M, int64_t N,
                                      int64_t K);
#endif
