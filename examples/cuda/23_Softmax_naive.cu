/* 23_Softmax_naive.cu — example first-round candidate for level1/23: one thread per row, three
 * passes over the row (correct; a whole row on one thread leaves the GPU mostly idle). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void softmax_rows(const float *x, float *y, long rows, long cols) {
  long r = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float *xr = x + r * cols;
  float *yr = y + r * cols;
  float m = xr[0];
  for (long j = 1; j < cols; j++) m = fmaxf(m, xr[j]);
  float s = 0.f;
  for (long j = 0; j < cols; j++) s += (yr[j] = __expf(xr[j] - m));
  float inv = 1.f / s;
  for (long j = 0; j < cols; j++) yr[j] *= inv;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long rows = c->inputs[0].shape[0], cols = c->inputs[0].shape[1];
  softmax_rows<<<(unsigned)((rows + 127) / 128), 128, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, rows, cols);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
