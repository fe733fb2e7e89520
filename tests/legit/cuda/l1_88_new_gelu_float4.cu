/* l1_88_new_gelu_float4.cu — level1/88_MinGPTNewGelu:
 * y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
 * Technique: float4 grid-stride loop (the reference's fused kernel is scalar: one 4-byte access
 * per thread and iteration) with a grid capped at a few waves so each thread streams several
 * float4. Each eager step is rounded to float as the reference does (__fmul_rn/__fadd_rn keep
 * nvcc from contracting them into FMAs), tanhf in full precision: the same values to the ulp.
 * The first n % 4 threads take the scalar tail in the same launch (the test set's 7007). */
#include <cudal1/solution.h>

#define THREADS 256

static __device__ __forceinline__ float new_gelu(float v) {
  const float k = 0.7978845608028654f;  // sqrt(2/pi) as the Python float, rounded once
  float t = __fmul_rn(__fmul_rn(v, v), v);
  t = __fadd_rn(v, __fmul_rn(0.044715f, t));
  t = tanhf(__fmul_rn(k, t));
  return __fmul_rn(__fmul_rn(0.5f, v), __fadd_rn(1.0f, t));
}

__global__ static void __launch_bounds__(THREADS)
new_gelu4(const float *__restrict__ xs, float *__restrict__ ys, long long n) {
  const float4 *x = (const float4 *)xs;
  float4 *y = (float4 *)ys;
  const long long n4 = n / 4, g = blockIdx.x * (long long)THREADS + threadIdx.x;
  for (long long i = g; i < n4; i += (long long)gridDim.x * THREADS) {
    float4 v = __ldcs(x + i);
    v.x = new_gelu(v.x), v.y = new_gelu(v.y), v.z = new_gelu(v.z), v.w = new_gelu(v.w);
    __stcs(y + i, v);
  }
  if (4 * n4 + g < n) ys[4 * n4 + g] = new_gelu(xs[4 * n4 + g]);
}

__global__ static void __launch_bounds__(THREADS)
new_gelu1(const float *__restrict__ x, float *__restrict__ y, long long n) {
  for (long long i = blockIdx.x * (long long)THREADS + threadIdx.x; i < n;
       i += (long long)gridDim.x * THREADS)
    y[i] = new_gelu(x[i]);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long long n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  if (n == 0) return 0;
  const float *x = (const float *)c->inputs[0].data;
  float *y = (float *)c->outputs[0].data;
  cudaStream_t st = (cudaStream_t)c->stream;
  // 4 float4 per thread at the small shape (4M elements); capped for the 67M of large
  const bool vec = (((unsigned long long)x | (unsigned long long)y) & 15) == 0;
  long long work = vec ? (n / 4 > 0 ? n / 4 : 1) : n;
  long long blocks = (work + 4LL * THREADS - 1) / (4LL * THREADS);
  if (blocks > 132 * 64) blocks = 132 * 64;
  if (blocks < 1) blocks = 1;
  if (vec) new_gelu4<<<(unsigned)blocks, THREADS, 0, st>>>(x, y, n);
  else new_gelu1<<<(unsigned)blocks, THREADS, 0, st>>>(x, y, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
