/* gelu_tanh.cu — CUDA cl1_op_gelu_tanh: grid-stride kernel rounding each eager step to float. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

__global__ static void gelu_tanh_k(const float *x, float *y, int64_t n) {
  const float c = 0.7978845608028654f;  // sqrt(2/pi) as the Python float, rounded once
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    float v = x[i];
    float t = __fmul_rn(__fmul_rn(v, v), v);  // torch.pow(x, 3.0)
    t = __fadd_rn(v, __fmul_rn(0.044715f, t));
    t = tanhf(__fmul_rn(c, t));
    y[i] = __fmul_rn(__fmul_rn(0.5f, v), __fadd_rn(1.0f, t));
  }
}

extern "C" int cl1_op_gelu_tanh(void *stream, const float *x, float *y, int64_t n) {
  if (n < 0) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  gelu_tanh_k<<<cl1_ops_grid(n, 256), 256, 0, (cudaStream_t)stream>>>(x, y, n);
  CL1_LAUNCH_CHECK();
  return 0;
}
