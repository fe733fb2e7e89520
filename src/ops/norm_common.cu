/* norm_common.cu — scratch slots and the shared statistics/apply kernels of the normalisation
 * ops (see norm_common.cuh). Three steps, as layernorm.cu does for its rows:
 *   1. stats_partial: one block per (set, segment, chunk of 4096): per-thread Welford in float
 *      of x - pivot, merged across the block with Chan's formula, stored as double partials;
 *   2. stats_final:   one block per set merges its partials in double -> (pivot, mean', rstd);
 *   3. norm_apply:    one block per (plane, chunk), the affine normalisation. */
#include <math.h>
#include <mutex>
#include "norm_common.cuh"

static std::mutex g_mu;
static void *g_buf[CL1_NSCRATCH_N];
static size_t g_bytes[CL1_NSCRATCH_N];

int cl1_norm_scratch(int slot, size_t bytes, void **out) {
  if (slot < 0 || slot >= CL1_NSCRATCH_N) return 1;
  if (bytes == 0) {
    *out = nullptr;
    return 0;
  }
  std::lock_guard<std::mutex> lk(g_mu);
  if (bytes > g_bytes[slot]) {
    if (g_buf[slot]) {
      CL1_CUDA_TRY(cudaDeviceSynchronize());  // queued kernels may still use the old buffer
      CL1_CUDA_TRY(cudaFree(g_buf[slot]));
      g_buf[slot] = nullptr;
      g_bytes[slot] = 0;
    }
    size_t want = bytes + bytes / 4;
    void *p = nullptr;
    CL1_CUDA_TRY(cudaMalloc(&p, want));
    g_buf[slot] = p;
    g_bytes[slot] = want;
  }
  *out = g_buf[slot];
  return 0;
}

__global__ static void stats_partial(const float *__restrict__ x, cl1_wfd *__restrict__ part,
                                     int64_t R, int64_t nseg, int64_t seglen, int64_t rstride,
                                     int64_t kstride, int64_t chunks, bool vec4) {
  __shared__ cl1_wf sh[CL1_NORM_THREADS / 32];
  int64_t per_set = nseg * chunks;
  for (int64_t bi = blockIdx.x; bi < R * per_set; bi += gridDim.x) {
    int64_t r = bi / per_set, rem = bi % per_set, k = rem / chunks;
    int64_t c0 = (rem % chunks) * CL1_NORM_CHUNK;
    int64_t c1 = c0 + CL1_NORM_CHUNK < seglen ? c0 + CL1_NORM_CHUNK : seglen;
    const float p = x[r * rstride];
    const float *s = x + r * rstride + k * kstride;  // (seglen)
    cl1_wf a{0.f, 0.f, 0.f};
    if (vec4) {
      for (int64_t i = c0 / 4 + threadIdx.x; i < c1 / 4; i += CL1_NORM_THREADS) {
        float4 v = ((const float4 *)s)[i];
        cl1_wf_push(a, v.x - p), cl1_wf_push(a, v.y - p);
        cl1_wf_push(a, v.z - p), cl1_wf_push(a, v.w - p);
      }
    } else {
      for (int64_t i = c0 + threadIdx.x; i < c1; i += CL1_NORM_THREADS) cl1_wf_push(a, s[i] - p);
    }
    for (int o = 16; o > 0; o >>= 1) {
      cl1_wf b{__shfl_xor_sync(0xffffffffu, a.n, o), __shfl_xor_sync(0xffffffffu, a.mean, o),
               __shfl_xor_sync(0xffffffffu, a.m2, o)};
      a = cl1_chan<float, cl1_wf>(a, b);
    }
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = a;
    __syncthreads();
    if (threadIdx.x == 0) {
      cl1_wfd t{0.0, 0.0, 0.0};
      for (int w = 0; w < CL1_NORM_THREADS / 32; w++)
        t = cl1_chan<double, cl1_wfd>(t, cl1_wfd{sh[w].n, sh[w].mean, sh[w].m2});
      part[bi] = t;
    }
    __syncthreads();
  }
}

__global__ static void stats_final(const float *__restrict__ x, const cl1_wfd *__restrict__ part,
                                   float4 *__restrict__ stats, int64_t R, int64_t per_set,
                                   int64_t rstride, double eps) {
  __shared__ cl1_wfd sh[CL1_NORM_THREADS];
  for (int64_t r = blockIdx.x; r < R; r += gridDim.x) {
    cl1_wfd a{0.0, 0.0, 0.0};
    for (int64_t k = threadIdx.x; k < per_set; k += CL1_NORM_THREADS)
      a = cl1_chan<double, cl1_wfd>(a, part[r * per_set + k]);
    sh[threadIdx.x] = a;
    __syncthreads();
    for (int s = CL1_NORM_THREADS / 2; s > 0; s >>= 1) {
      if ((int)threadIdx.x < s)
        sh[threadIdx.x] = cl1_chan<double, cl1_wfd>(sh[threadIdx.x], sh[threadIdx.x + s]);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      double var = sh[0].n > 0 ? sh[0].m2 / sh[0].n : 0.0;  // biased, as PyTorch
      stats[r] = make_float4(x[r * rstride], (float)sh[0].mean, (float)(1.0 / sqrt(var + eps)),
                             0.f);
    }
    __syncthreads();
  }
}

int cl1_norm_stats(cudaStream_t st, const float *x, int64_t R, int64_t nseg, int64_t seglen,
                   int64_t rstride, int64_t kstride, double eps, cl1_wfd *part, float4 *stats) {
  if (R <= 0 || nseg <= 0 || seglen <= 0) return 1;
  int64_t chunks = cl1_norm_chunks(seglen), nb = R * nseg * chunks;
  bool vec4 = seglen % 4 == 0 && rstride % 4 == 0 && kstride % 4 == 0 &&
              ((uintptr_t)x & 15) == 0;
  unsigned grid = (unsigned)(nb < (1LL << 30) ? nb : (1LL << 30));
  stats_partial<<<grid, CL1_NORM_THREADS, 0, st>>>(x, part, R, nseg, seglen, rstride, kstride,
                                                   chunks, vec4);
  CL1_LAUNCH_CHECK();
  unsigned sgrid = (unsigned)(R < (1LL << 30) ? R : (1LL << 30));
  stats_final<<<sgrid, CL1_NORM_THREADS, 0, st>>>(x, part, stats, R, nseg * chunks, rstride,
                                                  eps);
  CL1_LAUNCH_CHECK();
  return 0;
}

static __device__ __forceinline__ float norm1(float v, float4 s, float g, float beta) {
  return ((v - s.x) - s.y) * s.z * g + beta;
}

__global__ static void norm_apply(const float *x, const float *__restrict__ w,
                                  const float *__restrict__ b, const float4 *__restrict__ stats,
                                  float *y, int64_t planes, int64_t C, int64_t hw, int64_t sdiv,
                                  int64_t smod, int64_t chunks, bool vec4) {
  for (int64_t bi = blockIdx.x; bi < planes * chunks; bi += gridDim.x) {
    int64_t p = bi / chunks, c0 = (bi % chunks) * CL1_NORM_CHUNK;
    int64_t c1 = c0 + CL1_NORM_CHUNK < hw ? c0 + CL1_NORM_CHUNK : hw;
    int64_t ch = p % C;
    float4 s = stats[(p / sdiv) % smod];
    float g = w ? w[ch] : 1.f, beta = b ? b[ch] : 0.f;
    const float *xp = x + p * hw;  // (hw)
    float *yp = y + p * hw;
    if (vec4) {
      for (int64_t i = c0 / 4 + threadIdx.x; i < c1 / 4; i += CL1_NORM_THREADS) {
        float4 v = ((const float4 *)xp)[i];
        v.x = norm1(v.x, s, g, beta), v.y = norm1(v.y, s, g, beta);
        v.z = norm1(v.z, s, g, beta), v.w = norm1(v.w, s, g, beta);
        ((float4 *)yp)[i] = v;
      }
    } else {
      for (int64_t i = c0 + threadIdx.x; i < c1; i += CL1_NORM_THREADS)
        yp[i] = norm1(xp[i], s, g, beta);
    }
  }
}

/* One thread per element: for planes shorter than a block's chunk (hw = 1 for BatchNorm over
 * (N, C)) a block per plane would leave most threads idle. IT: 32-bit index math when it fits. */
template <typename IT>
__global__ static void norm_apply_flat(const float *x, const float *__restrict__ w,
                                       const float *__restrict__ b,
                                       const float4 *__restrict__ stats, float *y, IT total,
                                       IT C, IT hw, IT sdiv, IT smod) {
  for (IT e = blockIdx.x * (IT)blockDim.x + threadIdx.x; e < total;
       e += (IT)gridDim.x * blockDim.x) {
    IT p = e / hw, ch = p % C;
    float4 s = stats[(p / sdiv) % smod];
    y[e] = norm1(x[e], s, w ? w[ch] : 1.f, b ? b[ch] : 0.f);
  }
}

#define CL1_NORM_FLAT_HW 1024  // planes shorter than this take the flat apply

int cl1_norm_apply(cudaStream_t st, const float *x, const float *w, const float *b,
                   const float4 *stats, float *y, int64_t planes, int64_t C, int64_t hw,
                   int64_t sdiv, int64_t smod) {
  if (planes <= 0 || C <= 0 || hw <= 0 || sdiv <= 0 || smod <= 0) return 1;
  if (hw < CL1_NORM_FLAT_HW) {
    int64_t total = planes * hw, nb = (total + 255) / 256;
    unsigned grid = (unsigned)(nb < 65536 * 8 ? nb : 65536 * 8);
    if (total < (1LL << 31))
      norm_apply_flat<uint32_t><<<grid, 256, 0, st>>>(x, w, b, stats, y, (uint32_t)total,
                                                      (uint32_t)C, (uint32_t)hw, (uint32_t)sdiv,
                                                      (uint32_t)smod);
    else
      norm_apply_flat<int64_t><<<grid, 256, 0, st>>>(x, w, b, stats, y, total, C, hw, sdiv, smod);
    CL1_LAUNCH_CHECK();
    return 0;
  }
  int64_t chunks = cl1_norm_chunks(hw), nb = planes * chunks;
  bool vec4 = hw % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
  unsigned grid = (unsigned)(nb < (1LL << 30) ? nb : (1LL << 30));
  norm_apply<<<grid, CL1_NORM_THREADS, 0, st>>>(x, w, b, stats, y, planes, C, hw, sdiv, smod,
                                                chunks, vec4);
  CL1_LAUNCH_CHECK();
  return 0;
}

/* ---- column statistics (cl1_norm_stats_cols) ---- */
#define COL_TX 32
#define COL_TY 8

/* Enough (column tile, row chunk) blocks to fill the GPU, chunks of at least 64 rows. */
static int64_t col_chunks(int64_t n, int64_t cols) {
  int64_t tiles = (cols + COL_TX - 1) / COL_TX, want = (2048 + tiles - 1) / tiles;
  int64_t by_rows = (n + 63) / 64, k = want < by_rows ? want : by_rows;
  return k < 1 ? 1 : k > 65535 ? 65535 : k;
}

int64_t cl1_norm_col_parts(int64_t n, int64_t cols) { return cols * col_chunks(n, cols); }

// blockIdx.x: 32 adjacent columns; blockIdx.y: a chunk of rows. part[col * chunks + chunk].
__global__ static void stats_cols_partial(const float *__restrict__ x, cl1_wfd *__restrict__ part,
                                          int64_t n, int64_t cols, int64_t hw, int64_t rpc,
                                          int64_t chunks) {
  __shared__ cl1_wf sh[COL_TY][COL_TX + 1];
  int64_t col = blockIdx.x * (int64_t)COL_TX + threadIdx.x, chunk = blockIdx.y;
  cl1_wf a{0.f, 0.f, 0.f};
  if (col < cols) {
    const float p = x[(col / hw) * hw];  // the set's pivot, as stats_final takes it
    int64_t r1 = (chunk + 1) * rpc < n ? (chunk + 1) * rpc : n;
    for (int64_t r = chunk * rpc + threadIdx.y; r < r1; r += COL_TY) cl1_wf_push(a, x[r * cols + col] - p);
  }
  sh[threadIdx.y][threadIdx.x] = a;
  __syncthreads();
  if (threadIdx.y == 0 && col < cols) {
    cl1_wfd t{0.0, 0.0, 0.0};
    for (int k = 0; k < COL_TY; k++)
      t = cl1_chan<double, cl1_wfd>(t, cl1_wfd{sh[k][threadIdx.x].n, sh[k][threadIdx.x].mean,
                                               sh[k][threadIdx.x].m2});
    part[col * chunks + chunk] = t;
  }
}

int cl1_norm_stats_cols(cudaStream_t st, const float *x, int64_t n, int64_t c, int64_t hw,
                        double eps, cl1_wfd *part, float4 *stats) {
  if (n <= 0 || c <= 0 || hw <= 0) return 1;
  int64_t cols = c * hw, chunks = col_chunks(n, cols), rpc = (n + chunks - 1) / chunks;
  int64_t tiles = (cols + COL_TX - 1) / COL_TX;
  if (tiles > (1LL << 31) - 1) return 1;
  stats_cols_partial<<<dim3((unsigned)tiles, (unsigned)chunks), dim3(COL_TX, COL_TY), 0, st>>>(
      x, part, n, cols, hw, rpc, chunks);
  CL1_LAUNCH_CHECK();
  // set r's partials are the hw * chunks entries from r * hw * chunks; its pivot is x[r * hw]
  unsigned sgrid = (unsigned)(c < (1LL << 30) ? c : (1LL << 30));
  stats_final<<<sgrid, CL1_NORM_THREADS, 0, st>>>(x, part, stats, c, hw * chunks, hw, eps);
  CL1_LAUNCH_CHECK();
  return 0;
}

/* ---- short contiguous sets, fused (cl1_norm_short_sets) ---- */
// x and y may alias (in place): each lane reads element i before it writes it.
__global__ static void norm_short(const float *x, const float *__restrict__ w,
                                  const float *__restrict__ b, float *y, int64_t R,
                                  int len, int64_t wmod, int64_t wmul, int wdiv, float eps) {
  const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
  for (int64_t r = blockIdx.x * (int64_t)warps + (threadIdx.x >> 5); r < R;
       r += (int64_t)gridDim.x * warps) {
    const float *xs = x + r * len;  // (len)
    const float p = xs[0];
    // two passes over the set (the second hits L1): no per-element division as in Welford
    float s1 = 0.f;
    for (int i = lane; i < len; i += 32) s1 += xs[i] - p;
    for (int o = 16; o > 0; o >>= 1) s1 += __shfl_xor_sync(0xffffffffu, s1, o);
    const float mean = s1 / (float)len;  // relative to the pivot
    float s2 = 0.f;
    for (int i = lane; i < len; i += 32) {
      float d = (xs[i] - p) - mean;
      s2 += d * d;
    }
    for (int o = 16; o > 0; o >>= 1) s2 += __shfl_xor_sync(0xffffffffu, s2, o);
    const float rstd = (float)(1.0 / sqrt((double)(s2 / (float)len) + (double)eps));
    const int64_t wb = (r % wmod) * wmul;
    float *ys = y + r * len;
    for (int i = lane; i < len; i += 32) {
      float v = ((xs[i] - p) - mean) * rstd;
      int64_t j = wb + i / wdiv;
      if (w) v *= w[j];
      if (b) v += b[j];
      ys[i] = v;
    }
  }
}

int cl1_norm_short_sets(cudaStream_t st, const float *x, const float *w, const float *b,
                        float *y, int64_t R, int64_t len, int64_t wmod, int64_t wmul,
                        int64_t wdiv, double eps) {
  if (R <= 0 || len <= 0 || len > CL1_NORM_SHORT || wmod <= 0 || wmul < 0 || wdiv <= 0) return 1;
  int64_t nb = (R + 7) / 8;  // 8 warps per block
  unsigned grid = (unsigned)(nb < 65536 * 8 ? nb : 65536 * 8);
  norm_short<<<grid, 256, 0, st>>>(x, w, b, y, R, (int)len, wmod, wmul, (int)wdiv, (float)eps);
  CL1_LAUNCH_CHECK();
  return 0;
}
