/* l1_24_log_softmax_cluster.cu — level1/24_LogSoftmax: y = x - max - log(sum exp(x - max)) per
 * row. Technique: warp-shuffle reductions of (max, sum-exp) pairs + a thread-block cluster per
 * row. At the small shape there are only 16 rows of 16384: one block per row (the reference)
 * leaves 116 of 132 SMs idle. Here 8 CTAs of one cluster split a row, each reduces its eighth
 * to an online (max, sum exp(x - max)) pair (warp shuffles, then the 8 warps through shared
 * memory), the CTAs read each other's pairs through distributed shared memory and merge them in
 * rank order (so every CTA gets the same bits), then write. When a CTA's slice fits in
 * registers (<= 4096 floats, float4-aligned rows) x is read from DRAM once; otherwise a second
 * pass re-reads it (the large rows of 393216). expf/logf in full precision. */
#include <cudal1/solution.h>
#include <cooperative_groups.h>
#include <math.h>

namespace cg = cooperative_groups;

#define THREADS 256
#define CL 8
#define REG4 4  // float4 per thread held in registers: 4096 floats per CTA

struct ms { float m, s; };  // running max, sum of exp(x - max)

static __device__ __forceinline__ ms merge(ms a, ms b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return ms{m, 0.f};
  return ms{m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

static __device__ __forceinline__ void push(ms &a, float v) {
  if (v <= a.m) {
    if (v != -INFINITY) a.s += expf(v - a.m);  // -inf - -inf would be NaN
  } else {
    a.s = a.s * expf(a.m - v) + 1.f, a.m = v;
  }
}

// the CTA's merged pair, identical in every thread
static __device__ ms cta_reduce(ms v, ms *sh) {
#pragma unroll
  for (int o = 16; o; o >>= 1)
    v = merge(v, ms{__shfl_xor_sync(~0u, v.m, o), __shfl_xor_sync(~0u, v.s, o)});
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  ms r = sh[0];
#pragma unroll
  for (int w = 1; w < THREADS / 32; w++) r = merge(r, sh[w]);
  return r;
}

__global__ static void __cluster_dims__(CL, 1, 1) __launch_bounds__(THREADS)
log_softmax_rows(const float *__restrict__ x, float *__restrict__ y, long long rows,
                 long long cols, bool vec) {
  __shared__ ms warp_pairs[THREADS / 32];
  __shared__ ms cta_pair;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  long long span = (cols + CL - 1) / CL;
  if (vec) span = (span + 3) / 4 * 4;
  const long long c0 = rank * span < cols ? rank * span : cols;
  const long long c1 = c0 + span < cols ? c0 + span : cols;
  const bool regs = vec && span <= (long long)THREADS * REG4 * 4;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    float4 v[REG4];
    ms a{-INFINITY, 0.f};
    if (regs) {
      const float4 *x4 = (const float4 *)(xr + c0);
      const int n4 = (int)((c1 - c0) / 4);
      float m = -INFINITY;
#pragma unroll
      for (int j = 0; j < REG4; j++) {
        const int i = threadIdx.x + j * THREADS;
        v[j] = i < n4 ? __ldcs(x4 + i) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        m = fmaxf(m, fmaxf(fmaxf(v[j].x, v[j].y), fmaxf(v[j].z, v[j].w)));
      }
      float s = 0.f;
      if (m != -INFINITY) {
#pragma unroll
        for (int j = 0; j < REG4; j++)
          s += expf(v[j].x - m) + expf(v[j].y - m) + expf(v[j].z - m) + expf(v[j].w - m);
      }
      a = ms{m, s};
    } else {
      for (long long i = c0 + threadIdx.x; i < c1; i += THREADS) push(a, xr[i]);
    }
    const ms b = cta_reduce(a, warp_pairs);
    if (threadIdx.x == 0) cta_pair = b;
    cluster.sync();  // every CTA's pair is visible cluster-wide
    ms t = *cluster.map_shared_rank(&cta_pair, 0);
    for (unsigned q = 1; q < CL; q++) t = merge(t, *cluster.map_shared_rank(&cta_pair, q));
    cluster.sync();  // no CTA overwrites or frees its pair while another still reads it
    const float m = t.m, ls = logf(t.s);
    if (regs) {
      float4 *y4 = (float4 *)(yr + c0);
      const int n4 = (int)((c1 - c0) / 4);
#pragma unroll
      for (int j = 0; j < REG4; j++) {
        const int i = threadIdx.x + j * THREADS;
        if (i < n4)
          __stcs(y4 + i, make_float4((v[j].x - m) - ls, (v[j].y - m) - ls, (v[j].z - m) - ls,
                                     (v[j].w - m) - ls));
      }
    } else {
      for (long long i = c0 + threadIdx.x; i < c1; i += THREADS) yr[i] = (xr[i] - m) - ls;
    }
  }
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *X = &c->inputs[0];
  if (X->ndim != 2) return 1;
  const long long rows = X->shape[0], cols = X->shape[1];
  if (rows == 0 || cols == 0) return 0;
  const float *x = (const float *)X->data;
  float *y = (float *)c->outputs[0].data;
  const bool vec = cols % 4 == 0 && (((unsigned long long)x | (unsigned long long)y) & 15) == 0;
  const unsigned gy = (unsigned)(rows < 65535 ? rows : 65535);
  log_softmax_rows<<<dim3(CL, gy), THREADS, 0, (cudaStream_t)c->stream>>>(x, y, rows, cols, vec);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
