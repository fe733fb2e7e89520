/* net_e_exp.cu — CUDA cl1_op_exp and cl1_op_fill: grid-stride elementwise kernels with float4
 * accesses when the pointers are 16-byte aligned (as ATen's vectorised elementwise path). */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

__global__ static void exp_v4(const float4 *x, float4 *y, int64_t n4) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4;
       i += (int64_t)gridDim.x * blockDim.x) {
    float4 v = x[i];
    y[i] = make_float4(expf(v.x), expf(v.y), expf(v.z), expf(v.w));
  }
}
__global__ static void exp_k(const float *x, float *y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = expf(x[i]);
}

extern "C" int cl1_op_exp(void *stream, const float *x, float *y, int64_t n) {
  if (n < 0) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  const int block = 256;
  int64_t done = 0;
  if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0 && n >= 4) {
    const int64_t n4 = n / 4;
    exp_v4<<<cl1_ops_grid(n4, block), block, 0, st>>>((const float4 *)x, (float4 *)y, n4);
    CL1_LAUNCH_CHECK();
    done = n4 * 4;
  }
  if (done < n) {
    exp_k<<<cl1_ops_grid(n - done, block), block, 0, st>>>(x + done, y + done, n - done);
    CL1_LAUNCH_CHECK();
  }
  return 0;
}

__global__ static void fill_k(float *y, int64_t n, float v) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = v;
}

extern "C" int cl1_op_fill(void *stream, float *y, int64_t n, float value) {
  if (n < 0) return 1;
  if (n == 0) return 0;
  if (!y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  if (value == 0.f && !signbit(value)) {  // +0.0 is all-zero bytes
    CL1_CUDA_TRY(cudaMemsetAsync(y, 0, (size_t)n * sizeof(float), st));
    return 0;
  }
  const int block = 256;
  fill_k<<<cl1_ops_grid(n, block), block, 0, st>>>(y, n, value);
  CL1_LAUNCH_CHECK();
  return 0;
}
