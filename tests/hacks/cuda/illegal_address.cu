/* illegal_address.cu — a kernel writing through a wild device pointer (an illegal address
 * error poisons the context). Expected: crash. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void wild_k(float *p) { p[(long)threadIdx.x << 32] = 1.f; }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  wild_k<<<1, 32, 0, (cudaStream_t)c->stream>>>((float *)(uintptr_t)0xdead0000ull);
  return cudaStreamSynchronize((cudaStream_t)c->stream) == cudaSuccess ? 0 : 1;
}
