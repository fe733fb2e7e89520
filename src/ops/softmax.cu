/* softmax.cu — CUDA cl1_op_softmax: a warp per row up to 1024 long, else one block per row
 * (rows up to 393216 long), numerically stable. Pass 1 keeps a per-thread online (max, sum of exp) pair — one exp per element — and
 * merges the pairs across the block; pass 2 writes exp(x - max) / sum. float4 where aligned. */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

struct ms { float m, s; };  // running max and sum of exp(x - m)

static __device__ __forceinline__ void ms_push(ms &a, float v) {
  if (v <= a.m) {
    if (v != -INFINITY) a.s += expf(v - a.m);  // -inf - -inf would be NaN: a masked entry adds 0
  } else {
    a.s = a.s * expf(a.m - v) + 1.f;  // exp(-inf) = 0 for the first element
    a.m = v;
  }
}

static __device__ __forceinline__ ms ms_merge(ms a, ms b) {
  float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return a.s != 0.f ? a : b;  // empty threads, or all -inf so far
  float s = (a.s != 0.f ? a.s * expf(a.m - m) : 0.f) + (b.s != 0.f ? b.s * expf(b.m - m) : 0.f);
  return ms{m, s};
}

static __device__ __forceinline__ ms ms_block(ms v) {
  __shared__ ms sh[32];
  for (int o = 16; o > 0; o >>= 1) {
    ms u{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)};
    v = ms_merge(v, u);
  }
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
  if (lane == 0) sh[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = lane < nw ? sh[lane] : ms{-INFINITY, 0.f};
    for (int o = 16; o > 0; o >>= 1) {
      ms u{__shfl_xor_sync(0xffffffffu, v.m, o), __shfl_xor_sync(0xffffffffu, v.s, o)};
      v = ms_merge(v, u);
    }
    if (lane == 0) sh[0] = v;
  }
  __syncthreads();
  ms r = sh[0];
  __syncthreads();  // sh is reused by the next row
  return r;
}

// x, y: (rows, cols); blockIdx.x strides over rows.
__global__ static void softmax_rows(const float *x, float *y, int64_t rows, int64_t cols,
                                    bool vec4) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    ms a{-INFINITY, 0.f};
    if (vec4) {
      const float4 *xv = (const float4 *)xr;
      for (int64_t i = threadIdx.x; i < cols / 4; i += blockDim.x) {
        float4 v = xv[i];
        ms_push(a, v.x), ms_push(a, v.y), ms_push(a, v.z), ms_push(a, v.w);
      }
    } else {
      for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) ms_push(a, xr[i]);
    }
    ms t = ms_block(a);
    if (vec4) {
      const float4 *xv = (const float4 *)xr;
      float4 *yv = (float4 *)yr;
      for (int64_t i = threadIdx.x; i < cols / 4; i += blockDim.x) {
        float4 v = xv[i];
        v.x = expf(v.x - t.m) / t.s, v.y = expf(v.y - t.m) / t.s;
        v.z = expf(v.z - t.m) / t.s, v.w = expf(v.w - t.m) / t.s;
        yv[i] = v;
      }
    } else {
      for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) yr[i] = expf(xr[i] - t.m) / t.s;
    }
  }
}

/* Rows of up to SHORT_COLS: a warp per row (8 per block), as PyTorch's persistent warp
 * softmax; a 64-thread block per 48-element row (NetVLAD's clusters) ran 15x slower. */
#define SHORT_COLS 1024
__global__ static void softmax_rows_warp(const float *x, float *y, int64_t rows, int cols) {
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (int64_t r = blockIdx.x * (int64_t)warps + (threadIdx.x >> 5); r < rows;
       r += (int64_t)gridDim.x * warps) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    ms a{-INFINITY, 0.f};
    for (int i = lane; i < cols; i += 32) ms_push(a, xr[i]);
    for (int o = 16; o > 0; o >>= 1) {
      ms u{__shfl_xor_sync(0xffffffffu, a.m, o), __shfl_xor_sync(0xffffffffu, a.s, o)};
      a = ms_merge(a, u);
    }
    for (int i = lane; i < cols; i += 32) yr[i] = expf(xr[i] - a.m) / a.s;
  }
}

extern "C" int cl1_op_softmax(void *stream, const float *x, float *y, int64_t rows,
                              int64_t cols) {
  if (rows < 0 || cols < 0) return 1;
  if (rows * cols == 0) return 0;
  if (!x || !y) return 1;
  if (cols <= SHORT_COLS) {
    int64_t nb = (rows + 7) / 8;
    unsigned grid = (unsigned)(nb < 65536 * 8 ? nb : 65536 * 8);
    softmax_rows_warp<<<grid, 256, 0, (cudaStream_t)stream>>>(x, y, rows, (int)cols);
    CL1_LAUNCH_CHECK();
    return 0;
  }
  int block = cols >= 16384 ? 1024 : cols >= 2048 ? 512 : 256;  // cols > SHORT_COLS here
  bool vec4 = cols % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
  unsigned grid = (unsigned)(rows < (1LL << 30) ? rows : (1LL << 30));
  softmax_rows<<<grid, block, 0, (cudaStream_t)stream>>>(x, y, rows, cols, vec4);
  CL1_LAUNCH_CHECK();
  return 0;
}
