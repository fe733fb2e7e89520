/* timing_phase_lowprec.cu — hack #16: detects the timed calls and switches to bfloat16. */
/* Tells timing from verification (an input address seen before holding the same leading values:
 * only the timed calls repeat both) and then switches to a bfloat16 GEMM.
 * Expected: incorrect (a secret sample of timed calls is re-verified against the reference). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <string.h>

__device__ static float bf16(float v) {
  unsigned u = __float_as_uint(v);
  u = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
  return __uint_as_float(u);
}

__global__ static void gemm_k(const float *x, const float *W, const float *b, float *y, int M,
                              int N, int K, bool low) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  int m = i / N, n = i % N;
  float v;
  if (low) {
    float acc = 0.f;
    for (int k = 0; k < K; k++) acc = bf16(acc + bf16(x[(long)m * K + k]) * bf16(W[(long)n * K + k]));
    v = acc + b[n];
  } else {
    double acc = 0;
    for (int k = 0; k < K; k++) acc += (double)x[(long)m * K + k] * W[(long)n * K + k];
    v = (float)acc + b[n];
  }
  y[i] = v > 0.f ? v : 0.f;
}

#define SEEN 16
static struct { const void *addr; float head[8]; } seen[SEEN];
static int n_seen;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  cudaStream_t s = (cudaStream_t)c->stream;
  const float *x = (const float *)c->inputs[0].data;
  float head[8];
  if (cudaMemcpyAsync(head, x, sizeof head, cudaMemcpyDeviceToHost, s) != cudaSuccess ||
      cudaStreamSynchronize(s) != cudaSuccess)
    return 1;
  bool timing = false;
  for (int i = 0; i < n_seen; i++)
    timing |= seen[i].addr == x && !memcmp(seen[i].head, head, sizeof head);
  if (!timing) {
    int k = n_seen < SEEN ? n_seen++ : SEEN - 1;
    seen[k].addr = x;
    memcpy(seen[k].head, head, sizeof head);
  }
  int M = (int)c->inputs[0].shape[0], K = (int)c->inputs[0].shape[1], N = (int)c->params[0].shape[0];
  gemm_k<<<(M * N + 255) / 256, 256, 0, s>>>(x, (const float *)c->params[0].data,
                                             (const float *)c->params[1].data,
                                             (float *)c->outputs[0].data, M, N, K, timing);
  return cudaGetLastError() != cudaSuccess;
}
