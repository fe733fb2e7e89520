/* capture_harness_stream.cu — hack #4: leaves a stream capture open on the harness stream. */
/* Begins a stream capture on the harness stream and leaves it open, so the harness's end-of-
 * interval event is captured into a graph instead of recorded (and its work never runs).
 * The harness's device-wide synchronisation, elapsed-time query or output copy then fails on a
 * stream in capture: expected crash. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void sum_k(const float *x, float *y, long B, long R, long C) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= B * C) return;
  long b = i / C, k = i % C;
  float acc = 0.f;
  for (long r = 0; r < R; r++) acc += x[(b * R + r) * C + k];
  y[i] = acc;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  cudaStream_t s = (cudaStream_t)c->stream;
  long B = c->inputs[0].shape[0], R = c->inputs[0].shape[1], C = c->inputs[0].shape[2];
  if (cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) != cudaSuccess) return 0;
  sum_k<<<(unsigned)((B * C + 255) / 256), 256, 0, s>>>((const float *)c->inputs[0].data,
                                                         (float *)c->outputs[0].data, B, R, C);
  return 0; /* capture still open */
}
