/* 20_LeakyReLU_naive.cu — example first-round candidate for level1/20: one thread per element,
 * scalar loads, the slope from the task's attribute (correct; no vector loads, and a grid as
 * large as the tensor rather than a few waves of a grid-stride loop). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <string.h>

__global__ static void leaky_relu(const float *x, float *y, long n, float slope) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : x[i] * slope;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  if (n == 0) return 0;
  float slope = 0.01f;  // the task's default, when it names none
  for (int i = 0; i < c->n_attrs; i++)
    if (!strcmp(c->attrs[i].name, "negative_slope")) slope = (float)c->attrs[i].value;
  leaky_relu<<<(unsigned)((n + 127) / 128), 128, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n, slope);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
