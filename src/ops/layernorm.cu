/* layernorm.cu — CUDA cl1_op_layernorm. Rows of up to CL1_NORM_SHORT elements (LayerNorm
 * over a channel dim of 64 after a ConvTranspose3d) take norm_common's fused warp-per-row
 * kernel. Long rows with few of them (KernelBench 40: 16 rows of 4,194,304) are split into
 * chunks: norm_common's chunked Welford statistics (per-thread float Welford of x - pivot,
 * merged with Chan's formula into double partials, then per row in double), then ln_apply,
 * y = ((x - pivot) - (mean - pivot)) * rstd * w + b, one block per chunk again. */
#include <math.h>
#include "cudal1/ops.h"
#include "norm_common.cuh"

#define LN_THREADS CL1_NORM_THREADS
#define LN_CHUNK CL1_NORM_CHUNK

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
  if (cols <= CL1_NORM_SHORT) return cl1_norm_short_sets(st, x, w, b, y, rows, cols, 1, 0, 1, eps);
  int64_t chunks = cl1_norm_chunks(cols);
  size_t part_bytes = sizeof(cl1_wfd) * (size_t)(rows * chunks);
  part_bytes = (part_bytes + 255) & ~(size_t)255;
  void *scratch = nullptr;
  if (cl1_norm_scratch(CL1_NSCRATCH_STATS, part_bytes + sizeof(float4) * (size_t)rows, &scratch))
    return 1;
  cl1_wfd *part = (cl1_wfd *)scratch;
  float4 *stats = (float4 *)((char *)scratch + part_bytes);  // (rows)
  if (cl1_norm_stats(st, x, rows, 1, cols, cols, 0, eps, part, stats)) return 1;
  bool vec4 = cols % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
  int64_t nb = rows * chunks;
  unsigned grid = (unsigned)(nb < (1LL << 30) ? nb : (1LL << 30));
  ln_apply<<<grid, LN_THREADS, 0, st>>>(x, w, b, stats, y, rows, cols, chunks, vec4);
  CL1_LAUNCH_CHECK();
  return 0;
}
