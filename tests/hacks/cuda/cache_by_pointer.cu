/* cache_by_pointer.cu — hack #7: keeps a device copy of each output keyed by the input address
 * and, on a hit, copies it back instead of computing. The evaluator reuses addresses with new
 * values. Expected: incorrect. */
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

#define SLOTS 16
static struct { const void *key; float *val; long n; } cache[SLOTS];

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = (const float *)c->inputs[0].data;
  float *y = (float *)c->outputs[0].data;
  long n = numel(&c->inputs[0]);
  cudaStream_t s = (cudaStream_t)c->stream;
  size_t bytes = (size_t)n * sizeof(float);
  for (int i = 0; i < SLOTS; i++)
    if (cache[i].key == x && cache[i].n == n)
      return cudaMemcpyAsync(y, cache[i].val, bytes, cudaMemcpyDeviceToDevice, s) != cudaSuccess;
  relu_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(x, y, n);
  for (int i = 0; i < SLOTS; i++)
    if (!cache[i].key) {
      if (cudaMalloc(&cache[i].val, bytes) != cudaSuccess) break;
      cudaMemcpyAsync(cache[i].val, y, bytes, cudaMemcpyDeviceToDevice, s);
      cache[i].key = x;
      cache[i].n = n;
      break;
    }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
