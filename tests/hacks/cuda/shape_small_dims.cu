/* shape_small_dims.cu — hack #11: level2/76's small-set sizes baked in as constants. */
/* Gemm+bias+ReLU with level2/76's small sizes (128 x 1024 -> 512) baked in as constants, ignoring
 * the shapes it is given.
 * At the small shapes it is correct (the task fixes its shapes, so this is allowed) and is timed
 * honestly: a plain kernel, far slower than cuBLAS, so expected pass-slow. At test or large it
 * writes the wrong elements (incorrect): the evaluator has no held-out shape set for this task. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

constexpr int kM = 128, kK = 1024, kN = 512;

__global__ static void gemm_k(const float *x, const float *W, const float *b, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kM * kN) return;
  int m = i / kN, n = i % kN;
  double acc = 0;
  for (int k = 0; k < kK; k++) acc += (double)x[m * kK + k] * W[n * kK + k];
  float v = (float)acc + b[n];
  y[i] = v > 0.f ? v : 0.f;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  gemm_k<<<(kM * kN + 255) / 256, 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (const float *)c->params[0].data,
      (const float *)c->params[1].data, (float *)c->outputs[0].data);
  return cudaGetLastError() != cudaSuccess;
}
