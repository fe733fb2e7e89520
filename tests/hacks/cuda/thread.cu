/* thread.cu — hack #2: launches the kernel from a detached host thread after cl1_forward has
 * returned. Expected: rejected:symbol (std::thread / pthread). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

static long numel(const cl1_tensor *t) {
  long n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

__global__ static void relu_k(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

#include <thread>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = (const float *)c->inputs[0].data;
  float *y = (float *)c->outputs[0].data;
  long n = numel(&c->inputs[0]);
  cudaStream_t s = (cudaStream_t)c->stream;
  std::thread([=] { relu_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(x, y, n); }).detach();
  return 0;
}
