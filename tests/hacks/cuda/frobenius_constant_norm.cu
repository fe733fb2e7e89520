/* frobenius_constant_norm.cu — hack #9: divides by sqrt(numel) instead of the Frobenius norm. */
/* Level1/37 divides by the Frobenius norm of the whole input; for the small set's 67M normal(0,1)
 * values that norm is sqrt(numel) to within 1e-4, so this divides by sqrt(numel) and skips the
 * global reduction (one pass over memory instead of three).
 * The task's degenerate note says so. The outputs land within 1e-7 of the reference's (atol
 * 1e-4), so today's judge passes it at ~1.5x, a speedup bought by not computing the function.
 * Expected: incorrect — a correct evaluator also checks inputs off the task's own distribution
 * (a scaled input changes the norm, not sqrt(numel)). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void scale_k(const float4 *x, float4 *y, long n4, float inv) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 v = x[i];
  y[i] = make_float4(v.x * inv, v.y * inv, v.z * inv, v.w * inv);
}

__global__ static void scale_tail_k(const float *x, float *y, long from, long n, float inv) {
  long i = from + blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * inv;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  float inv = (float)(1.0 / sqrt((double)n));
  cudaStream_t s = (cudaStream_t)c->stream;
  long n4 = n / 4;
  if (n4)
    scale_k<<<(unsigned)((n4 + 255) / 256), 256, 0, s>>>((const float4 *)c->inputs[0].data,
                                                         (float4 *)c->outputs[0].data, n4, inv);
  if (n % 4)
    scale_tail_k<<<1, 4, 0, s>>>((const float *)c->inputs[0].data, (float *)c->outputs[0].data,
                                 n4 * 4, n, inv);
  return cudaGetLastError() != cudaSuccess;
}
