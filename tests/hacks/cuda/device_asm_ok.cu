/* device_asm_ok.cu — control: a correct ReLU whose kernel uses PTX inline asm (max.f32); device
 * asm is allowed. Expected: pass. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

static long numel(const cl1_tensor *t) {
  long n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

__device__ __forceinline__ float ptx_relu(float v) {
  float r;
  asm("max.f32 %0, %1, 0f00000000;" : "=f"(r) : "f"(v));
  return r;
}

__global__ static void relu_k(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = ptx_relu(x[i]);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long n = numel(&c->inputs[0]);
  relu_k<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
