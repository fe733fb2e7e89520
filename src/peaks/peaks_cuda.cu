// peaks_cuda.cu — libcl1peaks.so, loaded by `cudal1 gpu peaks` alone (src/eval/peaks.c): cuBLASLt
// is a few hundred MB of address space that the evaluator's rlimited workers must not carry. It
// uses nothing of the cudal1 binary (errors are written into err->msg directly).
// Measures the ceilings of peaks.h on device 0: a 1 GiB device-to-device copy
// and square cuBLASLt matmuls in FP32, TF32 and BF16 (FP32 accumulate), the best of several
// timed repetitions each (a floor built from them must sit below anything honest).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
extern "C" {
#include "peaks.h"
}

#define PK_CUDA(x)                                                                      \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      snprintf(err->msg, sizeof err->msg, "gpu peaks: %s: %s", #x, cudaGetErrorString(e_));                \
      goto out;                                                                         \
    }                                                                                   \
  } while (0)
#define PK_LT(x)                                                                        \
  do {                                                                                  \
    cublasStatus_t s_ = (x);                                                            \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
      snprintf(err->msg, sizeof err->msg, "gpu peaks: %s: cuBLASLt status %d", #x, (int)s_);               \
      goto out;                                                                         \
    }                                                                                   \
  } while (0)

// Values in [-1, 1) from a hash of the index: zeros would run faster than real data.
__global__ void pk_fill_f32(float *p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u;
    h ^= h >> 15;
    p[i] = (float)(h & 0xffff) / 32768.f - 1.f;
  }
}
__global__ void pk_fill_bf16(__nv_bfloat16 *p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u;
    h ^= h >> 15;
    p[i] = __float2bfloat16((float)(h & 0xffff) / 32768.f - 1.f);
  }
}

// Best FLOP/s of `reps` timed calls of one n x n x n matmul in the given types.
static int gemm_rate(cublasLtHandle_t lt, int n, cudaDataType_t ab, cudaDataType_t cd,
                     cublasComputeType_t ct, void *A, void *B, void *C, void *ws, size_t ws_bytes,
                     cudaStream_t st, double *flops, cl1_err *err) {
  int rc = -1;
  cublasLtMatmulDesc_t op = NULL;
  cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t heur;
  cudaEvent_t e0 = NULL, e1 = NULL;
  int found = 0;
  const float one = 1.f, zero = 0.f;
  double best = 0;
  PK_LT(cublasLtMatmulDescCreate(&op, ct, CUDA_R_32F));
  PK_LT(cublasLtMatrixLayoutCreate(&la, ab, n, n, n));
  PK_LT(cublasLtMatrixLayoutCreate(&lb, ab, n, n, n));
  PK_LT(cublasLtMatrixLayoutCreate(&lc, cd, n, n, n));
  PK_LT(cublasLtMatmulPreferenceCreate(&pref));
  PK_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &ws_bytes, sizeof ws_bytes));
  PK_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur, &found));
  if (!found) {
    snprintf(err->msg, sizeof err->msg, "gpu peaks: cuBLASLt has no algorithm for a %d^3 matmul", n);
    goto out;
  }
  PK_CUDA(cudaEventCreate(&e0));
  PK_CUDA(cudaEventCreate(&e1));
  for (int r = 0; r < 8; r++) {  // the first two warm up clocks and caches
    PK_CUDA(cudaEventRecord(e0, st));
    PK_LT(cublasLtMatmul(lt, op, &one, A, la, B, lb, &zero, C, lc, C, lc, &heur.algo, ws, ws_bytes,
                         st));
    PK_CUDA(cudaEventRecord(e1, st));
    PK_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    PK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    double f = 2.0 * n * (double)n * n / (ms * 1e-3);
    if (r >= 2 && f > best) best = f;
  }
  *flops = best;
  rc = 0;
out:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  if (la) cublasLtMatrixLayoutDestroy(la);
  if (lb) cublasLtMatrixLayoutDestroy(lb);
  if (lc) cublasLtMatrixLayoutDestroy(lc);
  if (op) cublasLtMatmulDescDestroy(op);
  return rc;
}

extern "C" int cl1_peaksk_device_name(char *out, size_t n, cl1_err *err) {
  int count = 0;
  struct cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count < 1)
    return snprintf(err->msg, sizeof err->msg, "no CUDA GPU is available (%s): `cudal1 gpu peaks` measures a GPU",
                       e != cudaSuccess ? cudaGetErrorString(e) : "0 devices"), -1;
  e = cudaGetDeviceProperties(&prop, 0);
  if (e != cudaSuccess) return snprintf(err->msg, sizeof err->msg, "gpu peaks: %s", cudaGetErrorString(e)), -1;
  snprintf(out, n, "%s", prop.name);
  return 0;
}

extern "C" int cl1_peaksk_measure(cl1_peaks *p, cl1_err *err) {
  const int n = 8192;
  const size_t copy_bytes = (size_t)1 << 30, ws_bytes = (size_t)64 << 20;
  const size_t elems = (size_t)n * n;
  int rc = -1, count = 0;
  void *A = NULL, *B = NULL, *C = NULL, *ws = NULL, *src = NULL, *dst = NULL;
  cudaStream_t st = NULL;
  cublasLtHandle_t lt = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  struct cudaDeviceProp prop;
  int drv = 0;
  memset(p, 0, sizeof *p);
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    snprintf(err->msg, sizeof err->msg, "no CUDA GPU is available: `cudal1 gpu peaks` measures a GPU");
    return -1;
  }
  PK_CUDA(cudaGetDeviceProperties(&prop, 0));
  snprintf(p->device, sizeof p->device, "%.127s", prop.name);
  PK_CUDA(cudaDriverGetVersion(&drv));
  snprintf(p->driver, sizeof p->driver, "cuda %d.%d", drv / 1000, (drv % 1000) / 10);
  {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(p->date, sizeof p->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  }
  PK_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  PK_CUDA(cudaEventCreate(&e0));
  PK_CUDA(cudaEventCreate(&e1));
  // copy bandwidth
  PK_CUDA(cudaMalloc(&src, copy_bytes));
  PK_CUDA(cudaMalloc(&dst, copy_bytes));
  pk_fill_f32<<<1024, 256, 0, st>>>((float *)src, copy_bytes / 4);
  PK_CUDA(cudaGetLastError());
  for (int r = 0; r < 10; r++) {
    PK_CUDA(cudaEventRecord(e0, st));
    PK_CUDA(cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice, st));
    PK_CUDA(cudaEventRecord(e1, st));
    PK_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    PK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    double bps = 2.0 * (double)copy_bytes / (ms * 1e-3);
    if (r >= 2 && bps > p->copy_bps) p->copy_bps = bps;
  }
  cudaFree(src), cudaFree(dst);
  src = dst = NULL;
  // matmul rates
  PK_CUDA(cudaMalloc(&A, elems * 4));
  PK_CUDA(cudaMalloc(&B, elems * 4));
  PK_CUDA(cudaMalloc(&C, elems * 4));
  PK_CUDA(cudaMalloc(&ws, ws_bytes));
  PK_LT(cublasLtCreate(&lt));
  pk_fill_f32<<<1024, 256, 0, st>>>((float *)A, elems);
  pk_fill_f32<<<1024, 256, 0, st>>>((float *)B, elems);
  PK_CUDA(cudaGetLastError());
  if (gemm_rate(lt, n, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, A, B, C, ws, ws_bytes, st,
                &p->fp32_flops, err) ||
      gemm_rate(lt, n, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, A, B, C, ws, ws_bytes,
                st, &p->tf32_flops, err))
    goto out;
  pk_fill_bf16<<<1024, 256, 0, st>>>((__nv_bfloat16 *)A, elems);
  pk_fill_bf16<<<1024, 256, 0, st>>>((__nv_bfloat16 *)B, elems);
  PK_CUDA(cudaGetLastError());
  if (gemm_rate(lt, n, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, A, B, C, ws, ws_bytes, st,
                &p->bf16_flops, err))
    goto out;
  p->gemm_n = n;
  rc = 0;
out:
  if (lt) cublasLtDestroy(lt);
  cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(ws), cudaFree(src), cudaFree(dst);
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (st) cudaStreamDestroy(st);
  return rc;
}
