/* logsumexp.cu — CUDA cl1_op_logsumexp over the middle dim of (outer, red, inner), as
 * ATen's logsumexp: m = max (NaN propagates), m := 0 where |m| = inf, y = log(sum exp(x - m)) + m,
 * float accumulation. inner == 1: a block per row (max, then sum of exp; the row is re-read from
 * cache). inner > 1: a thread per (o, i) column, adjacent threads on adjacent i (coalesced). */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

// max that keeps NaN once seen
static __device__ __forceinline__ float nmax(float a, float b) {
  return (isnan(a) || b <= a) ? a : b;
}

template <bool MAX>
static __device__ __forceinline__ float block_reduce(float v, float *sh) {
  for (int o = 16; o > 0; o >>= 1) {
    float u = __shfl_xor_sync(0xffffffffu, v, o);
    v = MAX ? nmax(v, u) : v + u;
  }
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  if (lane == 0) sh[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = lane < nw ? sh[lane] : (MAX ? -INFINITY : 0.f);
    for (int o = 16; o > 0; o >>= 1) {
      float u = __shfl_xor_sync(0xffffffffu, v, o);
      v = MAX ? nmax(v, u) : v + u;
    }
    if (lane == 0) sh[0] = v;
  }
  __syncthreads();
  float r = sh[0];
  __syncthreads();  // sh is reused
  return r;
}

__global__ static void lse_rows(const float *__restrict__ x, float *__restrict__ y, int64_t rows,
                                int64_t red) {
  __shared__ float sh[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *p = x + r * red;
    float m = -INFINITY;
    for (int64_t k = threadIdx.x; k < red; k += blockDim.x) m = nmax(m, p[k]);
    m = block_reduce<true>(m, sh);
    if (isinf(m)) m = 0.f;
    float s = 0.f;
    for (int64_t k = threadIdx.x; k < red; k += blockDim.x) s += expf(p[k] - m);
    s = block_reduce<false>(s, sh);
    if (threadIdx.x == 0) y[r] = logf(s) + m;
  }
}

__global__ static void lse_cols(const float *__restrict__ x, float *__restrict__ y, int64_t outer,
                                int64_t red, int64_t inner) {
  int64_t cols = outer * inner;
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < cols;
       c += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = c / inner, i = c - o * inner;
    const float *p = x + o * red * inner + i;
    float m = -INFINITY;
    for (int64_t k = 0; k < red; k++) m = nmax(m, p[k * inner]);
    if (isinf(m)) m = 0.f;
    float s = 0.f;
    for (int64_t k = 0; k < red; k++) s += expf(p[k * inner] - m);
    y[c] = logf(s) + m;
  }
}

extern "C" int cl1_op_logsumexp(void *stream, const float *x, float *y, int64_t outer,
                                int64_t red, int64_t inner) {
  if (outer < 0 || red < 1 || inner < 0) return 1;
  if (outer * inner == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  if (inner == 1 && red >= 32) {
    int block = red >= 4096 ? 512 : red >= 512 ? 256 : 128;
    unsigned grid = (unsigned)(outer < (1LL << 30) ? outer : (1LL << 30));
    lse_rows<<<grid, block, 0, st>>>(x, y, outer, red);
  } else {
    lse_cols<<<cl1_ops_grid(outer * inner, 256), 256, 0, st>>>(x, y, outer, red, inner);
  }
  CL1_LAUNCH_CHECK();
  return 0;
}
