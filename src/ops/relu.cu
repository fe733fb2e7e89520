/* relu.cu — CUDA cl1_op_relu: a grid-stride elementwise kernel, float4 when both pointers are
 * 16-byte aligned (a scalar tail handles n % 4). */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

static __device__ __forceinline__ float relu1(float v) { return v > 0.f ? v : (v != v ? v : 0.f); }

__global__ static void relu_vec4(const float4 *x, float4 *y,
                                 int64_t n4) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n4;
       i += (int64_t)gridDim.x * blockDim.x) {
    float4 v = x[i];
    v.x = relu1(v.x), v.y = relu1(v.y), v.z = relu1(v.z), v.w = relu1(v.w);
    y[i] = v;
  }
}

__global__ static void relu_scalar(const float *x, float *y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = relu1(x[i]);
}

extern "C" int cl1_op_relu(void *stream, const float *x, float *y, int64_t n) {
  if (n < 0) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  const int block = 256;
  int64_t done = 0;
  if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0 && n >= 4) {
    int64_t n4 = n / 4;
    relu_vec4<<<cl1_ops_grid(n4, block), block, 0, st>>>((const float4 *)x, (float4 *)y, n4);
    CL1_LAUNCH_CHECK();
    done = n4 * 4;
  }
  if (done < n) {
    relu_scalar<<<cl1_ops_grid(n - done, block), block, 0, st>>>(x + done, y + done, n - done);
    CL1_LAUNCH_CHECK();
  }
  return 0;
}
