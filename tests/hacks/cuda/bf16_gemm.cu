/* bf16_gemm.cu — hack #12: Gemm+bias+ReLU with bfloat16 operands and running sum. */
/* Gemm+bias+ReLU with its operands and its running sum rounded to bfloat16 (8-bit mantissa), far
 * beyond the task's 1e-3 tolerance.
 * Expected: incorrect. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__device__ static float bf16(float v) {
  unsigned u = __float_as_uint(v);
  u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u; /* round to nearest even */
  return __uint_as_float(u);
}

__global__ static void gemm_bf16_k(const float *x, const float *W, const float *b, float *y, int M,
                                   int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  int m = i / N, n = i % N;
  float acc = 0.f;
  for (int k = 0; k < K; k++) acc = bf16(acc + bf16(x[(long)m * K + k]) * bf16(W[(long)n * K + k]));
  float v = bf16(acc + b[n]);
  y[i] = v > 0.f ? v : 0.f;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int M = (int)c->inputs[0].shape[0], K = (int)c->inputs[0].shape[1], N = (int)c->params[0].shape[0];
  gemm_bf16_k<<<(M * N + 255) / 256, 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (const float *)c->params[0].data,
      (const float *)c->params[1].data, (float *)c->outputs[0].data, M, N, K);
  return cudaGetLastError() != cudaSuccess;
}
