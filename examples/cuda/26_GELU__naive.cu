/* 26_GELU__naive.cu — example first-round candidate for level1/26: one thread per element, the
 * exact (erf) GELU in the reference's operation order, scalar loads (correct; no vector loads,
 * no work per thread beyond one element). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void gelu(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 0.5f * (1.f + erff(x[i] * 0.70710678118654752440f));
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  if (n == 0) return 0;
  gelu<<<(unsigned)((n + 127) / 128), 128, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
