/* side_stream.cu — hack #1: does its work (20 times over, so it is slow) on its own non-blocking
 * stream made in cl1_setup and returns without joining it to the harness stream, hoping only the
 * harness stream is timed. The values are right once the device is synchronised, so the verdict
 * is pass — but the measured time must include the side stream's work: expected `pass-slow`
 * (the test checks its time is not below an honest single-pass kernel's). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

static long numel(const cl1_tensor *t) {
  long n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

__global__ static void relu_k(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
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
  long n = numel(&c->inputs[0]);
  cudaStream_t side = (cudaStream_t)c->state;
  for (int r = 0; r < 20; r++)
    relu_k<<<(unsigned)((n + 255) / 256), 256, 0, side>>>((const float *)c->inputs[0].data,
                                                          (float *)c->outputs[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;   /* no event, no join */
}
