/* 88_MinGPTNewGelu_naive.cu — example first-round candidate for level1/88:
 * y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), one thread per element, scalar loads.
 * Each of the reference's eager steps is rounded to float (__fmul_rn/__fadd_rn: nvcc may not
 * contract them into FMAs), so the values match the reference's; correct, and no vector loads. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void new_gelu(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i], k = 0.7978845608028654f;  // sqrt(2/pi) as the Python float, rounded once
  float t = __fmul_rn(__fmul_rn(v, v), v);
  t = tanhf(__fmul_rn(k, __fadd_rn(v, __fmul_rn(0.044715f, t))));
  y[i] = __fmul_rn(__fmul_rn(0.5f, v), __fadd_rn(1.0f, t));
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  if (n == 0) return 0;
  new_gelu<<<(unsigned)((n + 127) / 128), 128, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
