/* cuda_common.cu — the process-global handles and scratch cache (see cuda_common.cuh). */
#include <mutex>
#include "cuda_common.cuh"
#include "cudal1/ops.h"

static std::mutex g_mu;
static cublasHandle_t g_cublas;
static cudnnHandle_t g_cudnn;
static void *g_scratch[CL1_SCRATCH_N];
static size_t g_scratch_bytes[CL1_SCRATCH_N];

int cl1_ops_cublas(cudaStream_t stream, cublasHandle_t *h) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_cublas) {
    cublasHandle_t nh;
    CL1_CUBLAS_TRY(cublasCreate(&nh));
    cublasStatus_t s = cublasSetMathMode(nh, CUBLAS_DEFAULT_MATH);
    if (s != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(nh);
      fprintf(stderr, "cl1 ops: cublasSetMathMode: status %d\n", (int)s);
      return 1;
    }
    g_cublas = nh;
  }
  CL1_CUBLAS_TRY(cublasSetStream(g_cublas, stream));
  *h = g_cublas;
  return 0;
}

int cl1_ops_cudnn(cudaStream_t stream, cudnnHandle_t *h) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_cudnn) {
    cudnnHandle_t nh;
    CL1_CUDNN_TRY(cudnnCreate(&nh));
    g_cudnn = nh;
  }
  CL1_CUDNN_TRY(cudnnSetStream(g_cudnn, stream));
  *h = g_cudnn;
  return 0;
}

extern "C" int cl1_ops_preload(void) {
  cublasHandle_t b;
  cudnnHandle_t d;
  return cl1_ops_cublas(0, &b) || cl1_ops_cudnn(0, &d);
}

int cl1_ops_scratch(int slot, size_t bytes, void **out) {
  if (slot < 0 || slot >= CL1_SCRATCH_N) return 1;
  if (bytes == 0) {
    *out = nullptr;
    return 0;
  }
  std::lock_guard<std::mutex> lk(g_mu);
  if (bytes > g_scratch_bytes[slot]) {
    if (g_scratch[slot]) {
      /* kernels queued on any stream may still use the old buffer */
      CL1_CUDA_TRY(cudaDeviceSynchronize());
      CL1_CUDA_TRY(cudaFree(g_scratch[slot]));
      g_scratch[slot] = nullptr;
      g_scratch_bytes[slot] = 0;
    }
    size_t want = bytes + bytes / 4;  // headroom so that slowly growing requests do not thrash
    void *p = nullptr;
    CL1_CUDA_TRY(cudaMalloc(&p, want));
    g_scratch[slot] = p;
    g_scratch_bytes[slot] = want;
  }
  *out = g_scratch[slot];
  return 0;
}
