/* 1_Square_matrix_multiplication__naive.cu — example first-round candidate for level1/1: one
 * thread per output, the K loop straight from global memory (correct, far from cuBLAS). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void mm_naive(const float *A, const float *B, float *C, int n) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || j >= n) return;
  float s = 0.f;
  for (int k = 0; k < n; k++) s += A[(long)i * n + k] * B[(long)k * n + j];
  C[(long)i * n + j] = s;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int n = (int)c->inputs[0].shape[0];
  dim3 b(16, 16), g((n + 15) / 16, (n + 15) / 16);
  mm_naive<<<g, b, 0, (cudaStream_t)c->stream>>>((const float *)c->inputs[0].data,
      (const float *)c->inputs[1].data, (float *)c->outputs[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
