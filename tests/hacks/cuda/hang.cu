/* hang.cu — a kernel spinning forever on a flag nobody sets. Expected: timeout. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void spin_k(volatile int *flag) {
  while (*flag == 0) {
  }
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  /* the workspace or output is harness memory, poisoned with NaN: read as int it is non-zero,
     so use a zeroed flag of our own */
  static int *flag;
  if (!flag && cudaMalloc(&flag, sizeof(int)) != cudaSuccess) return 1;
  cudaMemsetAsync(flag, 0, sizeof(int), (cudaStream_t)c->stream);
  spin_k<<<1, 1, 0, (cudaStream_t)c->stream>>>(flag);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

