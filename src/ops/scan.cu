/* scan.cu — CUDA cl1_op_scan. inner == 1 (the scanned dim contiguous): one 1024-thread block per
 * row walks it in 1024-element chunks, a warp-shuffle block scan per chunk plus a running carry.
 * inner > 1: one thread per (outer, inner) column scans sequentially (coalesced across i). */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

#define SB 1024

template <bool PROD> static __device__ __forceinline__ float comb(float a, float b) {
  return PROD ? a * b : a + b;
}

template <bool PROD>
__global__ static void scan_rows(const float *__restrict__ x, const uint8_t *__restrict__ m,
                                 float *__restrict__ y, int64_t outer, int64_t n, int rev,
                                 int excl) {
  __shared__ float warp_tot[32];
  __shared__ float incl[SB];
  const float id = PROD ? 1.f : 0.f;
  int t = threadIdx.x, lane = t & 31, w = t >> 5;
  for (int64_t o = blockIdx.x; o < outer; o += gridDim.x) {
    float carry = id;
    for (int64_t base = 0; base < n; base += SB) {
      int64_t s = base + t, k = rev ? n - 1 - s : s;
      float v = id;
      if (s < n) {
        v = x[o * n + k];
        if (m) v = v * (float)m[o * n + k];
      }
      for (int d = 1; d < 32; d <<= 1) {  // warp inclusive scan
        float u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v = comb<PROD>(u, v);
      }
      if (lane == 31) warp_tot[w] = v;
      __syncthreads();
      if (w == 0) {
        float u = warp_tot[lane];
        for (int d = 1; d < 32; d <<= 1) {
          float z = __shfl_up_sync(0xffffffffu, u, d);
          if (lane >= d) u = comb<PROD>(z, u);
        }
        warp_tot[lane] = u;
      }
      __syncthreads();
      if (w > 0) v = comb<PROD>(warp_tot[w - 1], v);
      v = comb<PROD>(carry, v);
      incl[t] = v;
      __syncthreads();
      if (s < n) y[o * n + k] = excl ? (t > 0 ? incl[t - 1] : carry) : v;
      carry = incl[SB - 1];
      __syncthreads();
    }
  }
}

template <bool PROD>
__global__ static void scan_cols(const float *__restrict__ x, const uint8_t *__restrict__ m,
                                 float *__restrict__ y, int64_t outer, int64_t n, int64_t inner,
                                 int rev, int excl) {
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < outer * inner;
       c += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = c / inner, i = c % inner;
    float acc = PROD ? 1.f : 0.f;
    for (int64_t s = 0; s < n; s++) {
      int64_t at = (o * n + (rev ? n - 1 - s : s)) * inner + i;
      float v = m ? x[at] * (float)m[at] : x[at];
      if (excl) y[at] = acc;
      acc = comb<PROD>(acc, v);
      if (!excl) y[at] = acc;
    }
  }
}

extern "C" int cl1_op_scan(void *stream, int kind, const float *x, const uint8_t *mask, float *y,
                           int64_t outer, int64_t n, int64_t inner, int reverse, int exclusive) {
  if (kind < 0 || kind >= CL1_SCAN_N || outer < 0 || n < 0 || inner < 0) return 1;
  if (outer * n * inner == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  bool prod = kind == CL1_SCAN_PROD;
  if (inner == 1) {
    unsigned g = (unsigned)(outer < (1LL << 30) ? outer : (1LL << 30));
    if (prod) scan_rows<true><<<g, SB, 0, st>>>(x, mask, y, outer, n, reverse, exclusive);
    else scan_rows<false><<<g, SB, 0, st>>>(x, mask, y, outer, n, reverse, exclusive);
  } else {
    unsigned g = cl1_ops_grid(outer * inner, 256);
    if (prod) scan_cols<true><<<g, 256, 0, st>>>(x, mask, y, outer, n, inner, reverse, exclusive);
    else scan_cols<false><<<g, 256, 0, st>>>(x, mask, y, outer, n, inner, reverse, exclusive);
  }
  CL1_LAUNCH_CHECK();
  return 0;
}
