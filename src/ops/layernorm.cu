/* layernorm.cu — CUDA cl1_op_layernorm for rows of up to millions of elements and few rows
 * (KernelBench 40: 16 rows of 4,194,304): every row is split into chunks, one block per chunk.
 *   1. ln_partial: per-thread Welford (count, mean, M2) in float of x - pivot (pivot = the row's
 *      first element, so a large mean costs no float precision), merged across the block with
 *      Chan's formula, written as double partials — robust, unlike E[x^2] - E[x]^2;
 *   2. ln_stats:   one block per row merges its chunks' partials in double -> (mean, rstd);
 *   3. ln_apply:   y = ((x - pivot) - (mean - pivot)) * rstd * w + b, one block per chunk again.
 * The partial buffer lives in a process-global scratch cache (kept, grown on demand). */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

#define LN_THREADS 256
#define LN_CHUNK (LN_THREADS * 16)  // elements per block; a multiple of 4 keeps float4 aligned

struct wf { float n, mean, m2; };
struct wfd { double n, mean, m2; };

static __device__ __forceinline__ void wf_push(wf &a, float v) {
  a.n += 1.f;
  float d = v - a.mean;
  a.mean += d / a.n;
  a.m2 += d * (v - a.mean);
}

template <typename T, typename S>
static __device__ __forceinline__ S chan(S a, S b) {
  if (a.n == (T)0) return b;
  if (b.n == (T)0) return a;
  T n = a.n + b.n, d = b.mean - a.mean;
  return S{n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n)};
}

// partials: (rows, chunks) of wfd. Blocks stride over the rows * chunks (row, chunk) pairs.
__global__ static void ln_partial(const float *__restrict__ x, wfd *__restrict__ part,
                                  int64_t rows, int64_t cols, int64_t chunks, bool vec4) {
  __shared__ wf sh[LN_THREADS / 32];
  for (int64_t bi = blockIdx.x; bi < rows * chunks; bi += gridDim.x) {
    int64_t row = bi / chunks, c0 = (bi % chunks) * LN_CHUNK;
    int64_t c1 = c0 + LN_CHUNK < cols ? c0 + LN_CHUNK : cols;
    const float *xr = x + row * cols;
    const float p = xr[0];
    wf a{0.f, 0.f, 0.f};
    if (vec4) {
      for (int64_t i = c0 / 4 + threadIdx.x; i < c1 / 4; i += LN_THREADS) {
        float4 v = ((const float4 *)xr)[i];
        wf_push(a, v.x - p), wf_push(a, v.y - p), wf_push(a, v.z - p), wf_push(a, v.w - p);
      }
    } else {
      for (int64_t i = c0 + threadIdx.x; i < c1; i += LN_THREADS) wf_push(a, xr[i] - p);
    }
    for (int o = 16; o > 0; o >>= 1) {
      wf b{__shfl_xor_sync(0xffffffffu, a.n, o), __shfl_xor_sync(0xffffffffu, a.mean, o),
           __shfl_xor_sync(0xffffffffu, a.m2, o)};
      a = chan<float, wf>(a, b);
    }
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = a;
    __syncthreads();
    if (threadIdx.x == 0) {
      wfd t{0.0, 0.0, 0.0};
      for (int k = 0; k < LN_THREADS / 32; k++)
        t = chan<double, wfd>(t, wfd{sh[k].n, sh[k].mean, sh[k].m2});
      part[bi] = t;
    }
    __syncthreads();
  }
}

// stats: (rows) of {pivot, mean - pivot, rstd}; one block per row.
__global__ static void ln_stats(const float *__restrict__ x, const wfd *__restrict__ part,
                                float4 *__restrict__ stats, int64_t rows, int64_t cols,
                                int64_t chunks, double eps) {
  __shared__ wfd sh[LN_THREADS];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    wfd a{0.0, 0.0, 0.0};
    for (int64_t k = threadIdx.x; k < chunks; k += LN_THREADS)
      a = chan<double, wfd>(a, part[row * chunks + k]);
    sh[threadIdx.x] = a;
    __syncthreads();
    for (int s = LN_THREADS / 2; s > 0; s >>= 1) {
      if ((int)threadIdx.x < s) sh[threadIdx.x] = chan<double, wfd>(sh[threadIdx.x], sh[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      double var = sh[0].n > 0 ? sh[0].m2 / sh[0].n : 0.0;  // biased, as PyTorch
      // kept relative to the pivot: float(mean) alone would lose ulp(mean) for large means
      stats[row] = make_float4(x[row * cols], (float)sh[0].mean, (float)(1.0 / sqrt(var + eps)), 0.f);
    }
    __syncthreads();
  }
}

static __device__ __forceinline__ float ln1(float v, float4 st, const float *w, const float *b,
                                            int64_t j) {
  float r = ((v - st.x) - st.y) * st.z;
  if (w) r *= w[j];
  if (b) r += b[j];
  return r;
}

__global__ static void ln_apply(const float *x, const float *__restrict__ w,
                                const float *__restrict__ b, const float4 *__restrict__ stats,
                                float *y, int64_t rows, int64_t cols, int64_t chunks,
                                bool vec4) {
  for (int64_t bi = blockIdx.x; bi < rows * chunks; bi += gridDim.x) {
    int64_t row = bi / chunks, c0 = (bi % chunks) * LN_CHUNK;
    int64_t c1 = c0 + LN_CHUNK < cols ? c0 + LN_CHUNK : cols;
    float4 st = stats[row];
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    if (vec4) {
      for (int64_t i = c0 / 4 + threadIdx.x; i < c1 / 4; i += LN_THREADS) {
        float4 v = ((const float4 *)xr)[i];
        int64_t j = 4 * i;
        v.x = ln1(v.x, st, w, b, j), v.y = ln1(v.y, st, w, b, j + 1);
        v.z = ln1(v.z, st, w, b, j + 2), v.w = ln1(v.w, st, w, b, j + 3);
        ((float4 *)yr)[i] = v;
      }
    } else {
      for (int64_t i = c0 + threadIdx.x; i < c1; i += LN_THREADS) yr[i] = ln1(xr[i], st, w, b, i);
    }
  }
}

extern "C" int cl1_op_layernorm(void *stream, const float *x, const float *w, const float *b,
                                float *y, int64_t rows, int64_t cols, double eps) {
  if (rows < 0 || cols < 0 || !(eps >= 0)) return 1;
  if (rows * cols == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  int64_t chunks = (cols + LN_CHUNK - 1) / LN_CHUNK;
  size_t part_bytes = sizeof(wfd) * (size_t)(rows * chunks);
  part_bytes = (part_bytes + 255) & ~(size_t)255;
  void *scratch = nullptr;
  if (cl1_ops_scratch(CL1_SCRATCH_LAYERNORM, part_bytes + sizeof(float4) * (size_t)rows, &scratch))
    return 1;
  wfd *part = (wfd *)scratch;
  float4 *stats = (float4 *)((char *)scratch + part_bytes);
  bool vec4 = cols % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
  int64_t nb = rows * chunks;
  unsigned grid = (unsigned)(nb < (1LL << 30) ? nb : (1LL << 30));
  ln_partial<<<grid, LN_THREADS, 0, st>>>(x, part, rows, cols, chunks, vec4);
  CL1_LAUNCH_CHECK();
  unsigned sgrid = (unsigned)(rows < (1LL << 30) ? rows : (1LL << 30));
  ln_stats<<<sgrid, LN_THREADS, 0, st>>>(x, part, stats, rows, cols, chunks, eps);
  CL1_LAUNCH_CHECK();
  ln_apply<<<grid, LN_THREADS, 0, st>>>(x, w, b, stats, y, rows, cols, chunks, vec4);
  CL1_LAUNCH_CHECK();
  return 0;
}
