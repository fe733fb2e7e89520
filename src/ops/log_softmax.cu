/* log_softmax.cu — CUDA cl1_op_log_softmax: one block per row (rows up to 393216 long). Pass 1
 * keeps a per-thread online (max, sum of exp(x - max)) pair — one exp per element — merged
 * across the block; pass 2 writes (x - max) - log(sum), as ATen does. float4 where aligned. */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

namespace {
struct maxsum { float m, s; };  // running max and sum of exp(x - m)
}

static __device__ __forceinline__ void ms_push(maxsum &a, float v) {
  if (v <= a.m) {
    if (v != -INFINITY) a.s += expf(v - a.m);  // -inf - -inf would be NaN: a masked entry adds 0
  } else {
    a.s = a.s * expf(a.m - v) + 1.f;  // a.s == 0 while a.m is still -inf
    a.m = v;
  }
}

static __device__ __forceinline__ maxsum ms_merge(maxsum a, maxsum b) {
  float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return a.s != 0.f ? a : b;  // empty threads, or all -inf so far
  float s = (a.s != 0.f ? a.s * expf(a.m - m) : 0.f) + (b.s != 0.f ? b.s * expf(b.m - m) : 0.f);
  return maxsum{m, s};
}

static __device__ __forceinline__ maxsum ms_warp(maxsum v) {
  for (int o = 16; o > 0; o >>= 1) {
    maxsum u{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)};
    v = ms_merge(v, u);
  }
  return v;
}

static __device__ __forceinline__ maxsum ms_block(maxsum v) {
  __shared__ maxsum sh[32];
  v = ms_warp(v);
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  if (lane == 0) sh[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = ms_warp(lane < nw ? sh[lane] : maxsum{-INFINITY, 0.f});
    if (lane == 0) sh[0] = v;
  }
  __syncthreads();
  maxsum r = sh[0];
  __syncthreads();  // sh is reused by the block's next row
  return r;
}

// x, y: (rows, cols); blockIdx.x strides over rows.
__global__ static void log_softmax_rows(const float *x, float *y, int64_t rows, int64_t cols,
                                        bool vec4) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    maxsum a{-INFINITY, 0.f};
    if (vec4) {
      const float4 *xv = (const float4 *)xr;
      for (int64_t i = threadIdx.x; i < cols / 4; i += blockDim.x) {
        float4 v = xv[i];
        ms_push(a, v.x), ms_push(a, v.y), ms_push(a, v.z), ms_push(a, v.w);
      }
    } else {
      for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) ms_push(a, xr[i]);
    }
    maxsum t = ms_block(a);
    float m = t.m, ls = logf(t.s);
    if (vec4) {
      const float4 *xv = (const float4 *)xr;
      float4 *yv = (float4 *)yr;
      for (int64_t i = threadIdx.x; i < cols / 4; i += blockDim.x) {
        float4 v = xv[i];
        v.x = (v.x - m) - ls, v.y = (v.y - m) - ls, v.z = (v.z - m) - ls, v.w = (v.w - m) - ls;
        yv[i] = v;
      }
    } else {
      for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) yr[i] = (xr[i] - m) - ls;
    }
  }
}

extern "C" int cl1_op_log_softmax(void *stream, const float *x, float *y, int64_t rows,
                                  int64_t cols) {
  if (rows < 0 || cols < 0) return 1;
  if (rows * cols == 0) return 0;
  if (!x || !y) return 1;
  int block = cols >= 16384 ? 1024 : cols >= 2048 ? 512 : cols >= 256 ? 256 : 64;
  bool vec4 = cols % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
  unsigned grid = (unsigned)(rows < (1LL << 30) ? rows : (1LL << 30));
  log_softmax_rows<<<grid, block, 0, (cudaStream_t)stream>>>(x, y, rows, cols, vec4);
  CL1_LAUNCH_CHECK();
  return 0;
}
