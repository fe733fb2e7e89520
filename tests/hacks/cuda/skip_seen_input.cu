/* skip_seen_input.cu — hack #8: skips the launch when the input address was seen before. */
/* Skips the launch whenever the input address was seen before, assuming the output buffer still
 * holds that earlier result.
 * Expected: incorrect (outputs are poisoned before every call, and a used address comes back
 * with new values). */
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

#define SEEN 64
static const void *seen[SEEN];
static int n_seen;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  for (int i = 0; i < n_seen; i++)
    if (seen[i] == c->inputs[0].data) return 0;
  if (n_seen < SEEN) seen[n_seen++] = c->inputs[0].data;
  long B = c->inputs[0].shape[0], R = c->inputs[0].shape[1], C = c->inputs[0].shape[2];
  sum_k<<<(unsigned)((B * C + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, B, R, C);
  return cudaGetLastError() != cudaSuccess;
}
