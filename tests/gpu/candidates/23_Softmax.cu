/* 23_Softmax.cu — a correct, fast CUDA candidate for level1/23_Softmax (softmax over dim 1).
 * One launch: a thread-block cluster of 8 CTAs owns a row, so even 16 rows fill 128 SMs. Each
 * CTA reduces its eighth of the row to a (max, sum exp) pair, the 8 pairs are exchanged through
 * distributed shared memory, and each CTA writes its eighth. When the eighth fits in registers
 * (<= 4096 floats, float4-aligned) x is read once; otherwise twice (the second read mostly
 * from L2). */
#include <cudal1/solution.h>
#include <cooperative_groups.h>
#include <math.h>

namespace cg = cooperative_groups;

#define THREADS 256
#define CLUSTER 8
#define REG4 4  // float4 per thread kept in registers: 256 * 4 * 4 = 4096 floats per CTA

struct pair { float m, s; };

static __device__ __forceinline__ pair merge(pair a, pair b) {
  float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return pair{m, 0.f};
  return pair{m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

// the block's merged pair, in every thread
static __device__ pair block_merge(pair v, pair *sh) {
  for (int o = 16; o; o >>= 1)
    v = merge(v, pair{__shfl_xor_sync(~0u, v.m, o), __shfl_xor_sync(~0u, v.s, o)});
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  v = sh[0];
  for (int i = 1; i < THREADS / 32; i++) v = merge(v, sh[i]);
  return v;
}

// grid (CLUSTER, rows); the row's span [c0, c1) per CTA, a multiple of 4 wide when vec
__global__ static void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS)
softmax_cluster(const float *__restrict__ x, float *__restrict__ y, long long cols, bool vec) {
  __shared__ pair warp_pairs[THREADS / 32];
  __shared__ pair cta_pair;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  long long span = (cols + CLUSTER - 1) / CLUSTER;
  if (vec) span = (span + 3) / 4 * 4;
  const long long c0 = rank * span < cols ? rank * span : cols;
  const long long c1 = c0 + span < cols ? c0 + span : cols;
  const float *xr = x + blockIdx.y * cols;
  float *yr = y + blockIdx.y * cols;
  const bool regs = vec && c1 - c0 <= (long long)THREADS * REG4 * 4;
  float4 v[REG4];
  pair a{-INFINITY, 0.f};
  if (regs) {
    const float4 *x4 = (const float4 *)(xr + c0);
    const int n4 = (int)((c1 - c0) / 4);
    float m = -INFINITY;
#pragma unroll
    for (int j = 0; j < REG4; j++) {
      int i = threadIdx.x + j * THREADS;
      v[j] = i < n4 ? x4[i] : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
      m = fmaxf(m, fmaxf(fmaxf(v[j].x, v[j].y), fmaxf(v[j].z, v[j].w)));
    }
    float s = 0.f;
    if (m != -INFINITY) {
#pragma unroll
      for (int j = 0; j < REG4; j++)
        s += __expf(v[j].x - m) + __expf(v[j].y - m) + __expf(v[j].z - m) + __expf(v[j].w - m);
    }
    a = pair{m, s};
  } else {
    for (long long i = c0 + threadIdx.x; i < c1; i += THREADS) {
      float e = xr[i];
      if (e <= a.m) a.s += __expf(e - a.m);
      else a.s = a.s * __expf(a.m - e) + 1.f, a.m = e;
    }
  }
  pair b = block_merge(a, warp_pairs);
  if (threadIdx.x == 0) cta_pair = b;
  cluster.sync();  // every CTA's pair is visible cluster-wide
  pair t = *cluster.map_shared_rank(&cta_pair, 0);
  for (unsigned r = 1; r < CLUSTER; r++) t = merge(t, *cluster.map_shared_rank(&cta_pair, r));
  cluster.sync();  // no CTA leaves while another still reads its shared memory
  const float inv = 1.f / t.s;
  if (regs) {
    float4 *y4 = (float4 *)(yr + c0);
    const int n4 = (int)((c1 - c0) / 4);
#pragma unroll
    for (int j = 0; j < REG4; j++) {
      int i = threadIdx.x + j * THREADS;
      if (i < n4)
        y4[i] = make_float4(__expf(v[j].x - t.m) * inv, __expf(v[j].y - t.m) * inv,
                            __expf(v[j].z - t.m) * inv, __expf(v[j].w - t.m) * inv);
    }
  } else {
    for (long long i = c0 + threadIdx.x; i < c1; i += THREADS) yr[i] = __expf(xr[i] - t.m) * inv;
  }
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  long long rows = c->inputs[0].shape[0], cols = c->inputs[0].shape[1];
  if (rows > 65535) return 1;
  if (rows == 0 || cols == 0) return 0;
  const float *x = (const float *)c->inputs[0].data;
  float *y = (float *)c->outputs[0].data;
  bool vec = cols % 4 == 0 && (((unsigned long long)x | (unsigned long long)y) & 15) == 0;
  softmax_cluster<<<dim3(CLUSTER, (unsigned)rows), THREADS, 0, (cudaStream_t)c->stream>>>(
      x, y, cols, vec);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
