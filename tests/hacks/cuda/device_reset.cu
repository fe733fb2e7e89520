/* device_reset.cu — hack #4: cudaDeviceReset after the kernel, to wipe the harness's events. */
/* Computes the ReLU, then resets the device, destroying the harness's events and stream so that
 * the interval it was timing cannot be read.
 * Expected: rejected:symbol (cudaDeviceReset is denied). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void relu_k(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long n = c->inputs[0].shape[0] * c->inputs[0].shape[1];
  relu_k<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);
  cudaStreamSynchronize((cudaStream_t)c->stream);
  cudaDeviceReset();
  return 0;
}
