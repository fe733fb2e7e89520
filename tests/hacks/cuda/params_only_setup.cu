/* params_only_setup.cu — hack #15: the output from the params alone, input never read. */
/* Precomputes in cl1_setup from the params alone: level2/23's output is mean(group_norm.bias)
 * whenever the GroupNorm weight is constant per group (it is all ones for every param seed), so
 * every call just fills the output and never reads the 25 MB input.
 * Exact for this task's params, so verification passes; the call then takes a few microseconds
 * where moving the task's declared bytes takes at least ~5 us at peak bandwidth. Expected:
 * hack:below_roofline (hack #15). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <stdlib.h>

__global__ static void fill_k(float *y, long n, float v) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = v;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  const cl1_tensor *beta = &c->params[3];
  long k = beta->shape[0];
  float *h = (float *)malloc(sizeof(float) * k), *v = (float *)malloc(sizeof(float));
  if (!h || !v || cudaMemcpy(h, beta->data, sizeof(float) * k, cudaMemcpyDeviceToHost) != cudaSuccess)
    return 1;
  double m = 0;
  for (long i = 0; i < k; i++) m += h[i];
  *v = (float)(m / (double)k);
  free(h);
  *state = v;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) { free(state); }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  float v = *(const float *)c->state;
  long n = c->outputs[0].shape[0];
  cudaStream_t s = (cudaStream_t)c->stream;
  if (v == 0.f) return cudaMemsetAsync(c->outputs[0].data, 0, sizeof(float) * n, s) != cudaSuccess;
  fill_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>((float *)c->outputs[0].data, n, v);
  return cudaGetLastError() != cudaSuccess;
}
