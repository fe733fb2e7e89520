/* relu.cu — CUDA cl1_op_relu: one grid-stride elementwise launch, float4 when both pointers are
 * 16-byte aligned (its first threads also take the n % 4 tail), scalar otherwise. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

static __device__ __forceinline__ float relu1(float v) { return v > 0.f ? v : (v != v ? v : 0.f); }

/* float4 over the first n / 4 quads, then the first n % 4 threads of the grid take the tail:
   one launch for any n (a separate tail kernel doubled the launches of odd-sized tensors) */
__global__ static void relu_vec4(const float *xs, float *ys, int64_t n) {
  const float4 *x = (const float4 *)xs;
  float4 *y = (float4 *)ys;
  const int64_t n4 = n / 4, g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  for (int64_t i = g; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
    float4 v = x[i];
    v.x = relu1(v.x), v.y = relu1(v.y), v.z = relu1(v.z), v.w = relu1(v.w);
    y[i] = v;
  }
  if (4 * n4 + g < n) ys[4 * n4 + g] = relu1(xs[4 * n4 + g]);
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
  if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0)
    relu_vec4<<<cl1_ops_grid(n / 4 > 0 ? n / 4 : 1, block), block, 0, st>>>(x, y, n);
  else
    relu_scalar<<<cl1_ops_grid(n, block), block, 0, st>>>(x, y, n);
  CL1_LAUNCH_CHECK();
  return 0;
}
