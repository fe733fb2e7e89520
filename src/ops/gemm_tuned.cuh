/* gemm_tuned.cuh — a full-FP32 GEMM through cuBLASLt with its algorithm timed once per shape
 * (see gemm_tuned.cu); for the RNN ops' per-step recurrent projection. */
#ifndef CL1_OPS_GEMM_TUNED_CUH
#define CL1_OPS_GEMM_TUNED_CUH
#include "cuda_common.cuh"

/* Row-major C (M, N) = A (M, K; rows lda apart) @ W^T with W (N, K) row-major, FP32 compute
 * (no TF32), on stream st. Returns 0, or 1 on a CUDA/cuBLAS error. */
CL1_OPS_INTERNAL int cl1_gemm_nt_tuned(cudaStream_t st, const float *A, int64_t lda,
                                       const float *W, float *C, int64_t M, int64_t N,
                                       int64_t K);
#endif
