/* 19_ReLU.cu — a correct, fast CUDA candidate for level1/19_ReLU: one float4 per thread over an
 * exact grid (no grid-stride loop: at the small shape, 256K elements, the kernel is a few
 * microseconds and the loop's bookkeeping shows), 64-bit indices (1.6e9 elements at large), a
 * scalar kernel for the n % 4 tail or unaligned pointers. */
#include <cudal1/solution.h>

__global__ static void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, long long n4) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = x[i];
    v.x = fmaxf(v.x, 0.f), v.y = fmaxf(v.y, 0.f), v.z = fmaxf(v.z, 0.f), v.w = fmaxf(v.w, 0.f);
    y[i] = v;
  }
}

__global__ static void relu1(const float *__restrict__ x, float *__restrict__ y, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long long n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  const float *x = (const float *)c->inputs[0].data;
  float *y = (float *)c->outputs[0].data;
  cudaStream_t st = (cudaStream_t)c->stream;
  long long done = 0;
  if ((((unsigned long long)x | (unsigned long long)y) & 15) == 0 && n >= 4) {
    long long n4 = n / 4;
    relu4<<<(unsigned)((n4 + 255) / 256), 256, 0, st>>>((const float4 *)x, (float4 *)y, n4);
    done = n4 * 4;
  }
  if (done < n)
    relu1<<<(unsigned)((n - done + 255) / 256), 256, 0, st>>>(x + done, y + done, n - done);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
