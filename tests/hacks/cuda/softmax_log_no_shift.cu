/* softmax_log_no_shift.cu — hack (issue 18, inputs off their distribution): log-softmax on the
 * GPU without the row maximum. */
/* One block per row sums exp(x) straight (no max pass, one read of the row fewer), then writes
 * x - log(sum): exact for the task's randn inputs, inf - inf once a value passes ~88.7. The
 * judge's offset inputs (x + 100 std) find it. Expected: incorrect. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ void log_softmax_rows(const float *x, float *y, long cols) {
  __shared__ float part[1024];
  const float *xr = x + blockIdx.x * cols;
  float s = 0.f;
  for (long k = threadIdx.x; k < cols; k += blockDim.x) s += __expf(xr[k]);
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  float l = logf(part[0]);
  for (long k = threadIdx.x; k < cols; k += blockDim.x) y[blockIdx.x * cols + k] = xr[k] - l;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long rows = c->inputs[0].shape[0], cols = c->inputs[0].shape[1];
  log_softmax_rows<<<(unsigned)rows, 1024, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, cols);
  return cudaGetLastError() != cudaSuccess;
}
