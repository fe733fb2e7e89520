/* export_event_timer.cu — hack #4: defines its own cudaEventElapsedTime (always 1 us). */
/* Defines its own cudaEventElapsedTime (always 1 us) and cudaEventSynchronize, hoping the
 * harness's timer binds to them instead of the CUDA runtime's.
 * Expected: rejected:interpose (a solution may export only its own names). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  (void)start;
  (void)end;
  *ms = 0.001f;
  return cudaSuccess;
}

extern "C" cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  (void)e;
  return cudaSuccess;
}

__global__ static void gemm_k(const float *x, const float *W, const float *b, float *y, int M,
                              int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  int m = i / N, n = i % N;
  double acc = 0;
  for (int k = 0; k < K; k++) acc += (double)x[(long)m * K + k] * W[(long)n * K + k];
  float v = (float)acc + b[n];
  y[i] = v > 0.f ? v : 0.f;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int M = (int)c->inputs[0].shape[0], K = (int)c->inputs[0].shape[1], N = (int)c->params[0].shape[0];
  gemm_k<<<(M * N + 255) / 256, 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (const float *)c->params[0].data,
      (const float *)c->params[1].data, (float *)c->outputs[0].data, M, N, K);
  return cudaGetLastError() != cudaSuccess;
}
