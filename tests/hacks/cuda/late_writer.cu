/* late_writer.cu — hack #1: a kernel still running after return idles ~1 ms, then writes. */
/* Returns at once while a kernel on its own stream first idles ~1 ms on the SM clock and only then
 * writes the Gemm+bias+ReLU outputs.
 * Outputs are read after a device-wide synchronisation and each trial lasts until all device work
 * is done, so the values pass but the time includes the wait: expected pass-slow (the judge also
 * flags timing_mismatch: the harness stream's events see almost nothing). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void late_gemm_k(const float *x, const float *W, const float *b, float *y, int M,
                                   int N, int K, long long idle_cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < idle_cycles) {
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  int m = i / N, n = i % N;
  double acc = 0;
  for (int k = 0; k < K; k++) acc += (double)x[(long)m * K + k] * W[(long)n * K + k];
  float v = (float)acc + b[n];
  y[i] = v > 0.f ? v : 0.f;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  (void)c;
  cudaStream_t s;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) { cudaStreamDestroy((cudaStream_t)state); }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int M = (int)c->inputs[0].shape[0], K = (int)c->inputs[0].shape[1], N = (int)c->params[0].shape[0];
  /* 2M cycles: ~1 ms at the H200's ~2 GHz, ~100x the reference's GEMM at the small shapes */
  late_gemm_k<<<(M * N + 255) / 256, 256, 0, (cudaStream_t)c->state>>>(
      (const float *)c->inputs[0].data, (const float *)c->params[0].data,
      (const float *)c->params[1].data, (float *)c->outputs[0].data, M, N, K, 2000000LL);
  return cudaGetLastError() != cudaSuccess;
}
