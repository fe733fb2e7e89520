/* cuda_common.cuh — what the CUDA ops share: error checks, the process-global cuBLAS/cuDNN
 * handles (created lazily, kept for the life of the process, as PyTorch keeps its own), and cached
 * scratch buffers that only grow. Every op returns non-zero on any CUDA/cuBLAS/cuDNN error. */
#ifndef CL1_OPS_CUDA_COMMON_CUH
#define CL1_OPS_CUDA_COMMON_CUH
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cudnn.h>

/* Prints once per failure site to stderr (the reference worker's log) and returns 1. */
#define CL1_CUDA_TRY(expr)                                                                  \
  do {                                                                                      \
    cudaError_t e_ = (expr);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      fprintf(stderr, "cl1 ops: %s:%d: %s: %s\n", __FILE__, __LINE__, #expr,                \
              cudaGetErrorString(e_));                                                      \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)
#define CL1_CUBLAS_TRY(expr)                                                                \
  do {                                                                                      \
    cublasStatus_t s_ = (expr);                                                             \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                      \
      fprintf(stderr, "cl1 ops: %s:%d: %s: cublas status %d\n", __FILE__, __LINE__, #expr,  \
              (int)s_);                                                                     \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)
#define CL1_CUDNN_TRY(expr)                                                                 \
  do {                                                                                      \
    cudnnStatus_t s_ = (expr);                                                              \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                                       \
      fprintf(stderr, "cl1 ops: %s:%d: %s: %s\n", __FILE__, __LINE__, #expr,                \
              cudnnGetErrorString(s_));                                                     \
      return 1;                                                                             \
    }                                                                                       \
  } while (0)
/* A kernel launch: the launch error, not a sync (ops stay asynchronous on the stream). */
#define CL1_LAUNCH_CHECK() CL1_CUDA_TRY(cudaGetLastError())

/* The shared cuBLAS handle bound to `stream`, math mode CUBLAS_DEFAULT_MATH (full FP32, no
 * TF32). Returns 0 and sets *h, or 1. */
#define CL1_OPS_INTERNAL __attribute__((visibility("hidden")))
CL1_OPS_INTERNAL int cl1_ops_cublas(cudaStream_t stream, cublasHandle_t *h);
/* The shared cuDNN handle bound to `stream`. */
CL1_OPS_INTERNAL int cl1_ops_cudnn(cudaStream_t stream, cudnnHandle_t *h);

/* Scratch slots: each op family has its own so that one op's growth never frees memory
 * another op's queued kernels still read. */
enum { CL1_SCRATCH_CUDNN = 0, CL1_SCRATCH_N = 1 };
/* A device buffer of at least `bytes` for `slot`, kept across calls and grown on demand
 * (growth synchronises the device before freeing the old buffer). bytes == 0 gives NULL. */
CL1_OPS_INTERNAL int cl1_ops_scratch(int slot, size_t bytes, void **out);

/* The byte alignment (16, 8 or 4) all three pointers share: cuDNN and cuBLASLt specialise plans
 * on it, so plan caches key on it. */
static inline int64_t cl1_ops_align(const void *a, const void *b, const void *c) {
  uintptr_t u = (uintptr_t)a | (uintptr_t)b | (uintptr_t)c;
  int64_t al = 16;
  while (al > 4 && (u & (uintptr_t)(al - 1))) al >>= 1;
  return al;
}

/* Grid size for a grid-stride loop over n items with `block` threads, capped so that the
 * launch stays valid and every SM gets several blocks. */
static inline unsigned cl1_ops_grid(int64_t n, int block) {
  int64_t g = (n + block - 1) / block;
  if (g > 65535LL * 32) g = 65535LL * 32;
  return (unsigned)(g < 1 ? 1 : g);
}
#endif
