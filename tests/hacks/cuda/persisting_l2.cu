/* persisting_l2.cu — hack #14 (llm.c #851): carves out persisting L2 and pins the input in it
 * with an access-policy window, so the harness's L2 flush cannot evict it. Expected:
 * rejected:symbol (cudaDeviceSetLimit, cudaStreamSetAttribute). */
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

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  size_t bytes = (size_t)numel(&c->inputs[0]) * sizeof(float);
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)32 << 20);
  cudaStreamAttrValue a = {};
  a.accessPolicyWindow.base_ptr = c->inputs[0].data;
  a.accessPolicyWindow.num_bytes = bytes;
  a.accessPolicyWindow.hitRatio = 1.f;
  a.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  a.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaStreamSetAttribute((cudaStream_t)c->stream, cudaStreamAttributeAccessPolicyWindow, &a);
  long n = numel(&c->inputs[0]);
  relu_k<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
