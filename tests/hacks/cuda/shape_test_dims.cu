/* shape_test_dims.cu — hack #11: level1/19's test-set size baked in, run at small. */
/* A ReLU with level1/19's test-set size (7 x 1001) baked in, ignoring the shapes it is given.
 * Run at the small shapes (16 x 16384) it writes 7007 of 262144 elements. Expected: incorrect. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

constexpr long kN = 7 * 1001;

__global__ static void relu_k(const float *x, float *y) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < kN) y[i] = fmaxf(x[i], 0.f);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  relu_k<<<(unsigned)((kN + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data);
  return cudaGetLastError() != cudaSuccess;
}
