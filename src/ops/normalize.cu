/* normalize.cu — CUDA cl1_op_normalize: y = x / d, d a norm over the middle dim of
 * (outer, red, inner). Three layouts:
 *   - inner >= 32 and red <= 256 (RMSNorm over channels): one thread per column (o, i) reduces
 *     its red strided values (coalesced across the warp), then divides them — one kernel;
 *   - inner >= 32, longer red: 32 x 16 tiles reduce to d (as sum_dim.cu), then a divide pass;
 *   - inner < 32 (rows, or the whole tensor for a Frobenius norm): the reduced dim is split into
 *     S slices so that >= ~2048 blocks run, each block's float sum becomes a double partial, a
 *     block per output merges its partials into d, then a divide pass.
 * d lives in this op's scratch slot. The divide is IEEE x / d, as PyTorch's true division. */
#include <math.h>
#include "cudal1/ops.h"
#include "norm_common.cuh"

#define NT 256
#define TX 32
#define TY 16
#define FUSED_MAX_RED 256
#define DIV_CHUNK (NT * 16)

template <int K> static __device__ __forceinline__ float term(float v) {
  return K == CL1_NORM_L2 || K == CL1_NORM_RMS ? v * v : fabsf(v);
}
template <int K> static __device__ __forceinline__ double finish(double s, int64_t red, double eps) {
  if (K == CL1_NORM_MEAN_ABS || K == CL1_NORM_RMS) s /= (double)red;
  return K == CL1_NORM_L2 || K == CL1_NORM_RMS ? sqrt(s + eps) : s + eps;
}
template <int K> static __device__ __forceinline__ float finishf(float s, int64_t red, float eps) {
  if (K == CL1_NORM_MEAN_ABS || K == CL1_NORM_RMS) s /= (float)red;
  return K == CL1_NORM_L2 || K == CL1_NORM_RMS ? sqrtf(s + eps) : s + eps;
}

// one thread per column (o, i): reduce, then divide the same red values.
template <int K>
__global__ static void nrm_cols_fused(const float *__restrict__ x, float *__restrict__ y,
                                      int64_t outer, int64_t red, int64_t inner, float eps) {
  int64_t ncol = outer * inner;
  for (int64_t col = blockIdx.x * (int64_t)NT + threadIdx.x; col < ncol;
       col += (int64_t)gridDim.x * NT) {
    int64_t o = col / inner, i = col % inner;
    const float *p = x + o * red * inner + i;
    float *q = y + o * red * inner + i;
    float s = 0.f;
    for (int64_t r = 0; r < red; r++) s += term<K>(p[r * inner]);
    float d = finishf<K>(s, red, eps);
    for (int64_t r = 0; r < red; r++) q[r * inner] = p[r * inner] / d;
  }
}

// 32 x 16 tiles: d[o, i] for 32 adjacent i per block.
template <int K>
__global__ static void nrm_tiled(const float *__restrict__ x, float *__restrict__ d,
                                 int64_t outer, int64_t red, int64_t inner, float eps) {
  __shared__ float sh[TY][TX + 1];
  int64_t i = blockIdx.x * (int64_t)TX + threadIdx.x;
  for (int64_t o = blockIdx.y; o < outer; o += gridDim.y) {
    float s = 0.f;
    if (i < inner) {
      const float *p = x + o * red * inner + i;
      for (int64_t r = threadIdx.y; r < red; r += TY) s += term<K>(p[r * inner]);
    }
    sh[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && i < inner) {
      for (int k = 1; k < TY; k++) s += sh[k][threadIdx.x];
      d[o * inner + i] = finishf<K>(s, red, eps);
    }
    __syncthreads();
  }
}

static __device__ __forceinline__ float block_sum(float v, float *sh) {
  for (int k = 16; k > 0; k >>= 1) v += __shfl_xor_sync(0xffffffffu, v, k);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  float t = 0.f;
  if (threadIdx.x < 32) {
    t = threadIdx.x < NT / 32 ? sh[threadIdx.x] : 0.f;
    for (int k = 16; k > 0; k >>= 1) t += __shfl_xor_sync(0xffffffffu, t, k);
  }
  __syncthreads();
  return t;  // valid in thread 0
}

// part[out * S + s] = sum over slice s (slen values) of output out's reduced values.
template <int K>
__global__ static void nrm_split(const float *__restrict__ x, double *__restrict__ part,
                                 int64_t outer, int64_t red, int64_t inner, int64_t S,
                                 int64_t slen) {
  __shared__ float sh[32];
  for (int64_t bi = blockIdx.x; bi < outer * inner * S; bi += gridDim.x) {
    int64_t out = bi / S, s = bi % S, o = out / inner, i = out % inner;
    int64_t r0 = s * slen, r1 = r0 + slen < red ? r0 + slen : red;
    const float *p = x + o * red * inner + i;
    float acc = 0.f;
    for (int64_t r = r0 + threadIdx.x; r < r1; r += NT) acc += term<K>(p[r * inner]);
    float t = block_sum(acc, sh);
    if (threadIdx.x == 0) part[bi] = (double)t;
  }
}

__global__ static void nrm_finish(const double *__restrict__ part, float *__restrict__ d,
                                  int64_t nout, int64_t S, int64_t red, double eps, int kind) {
  __shared__ double sh[NT];
  for (int64_t out = blockIdx.x; out < nout; out += gridDim.x) {
    double a = 0.0;
    for (int64_t s = threadIdx.x; s < S; s += NT) a += part[out * S + s];
    sh[threadIdx.x] = a;
    __syncthreads();
    for (int k = NT / 2; k > 0; k >>= 1) {
      if ((int)threadIdx.x < k) sh[threadIdx.x] += sh[threadIdx.x + k];
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      double v = sh[0];
      switch (kind) {
      case CL1_NORM_L1: v = finish<CL1_NORM_L1>(v, red, eps); break;
      case CL1_NORM_MEAN_ABS: v = finish<CL1_NORM_MEAN_ABS>(v, red, eps); break;
      case CL1_NORM_L2: v = finish<CL1_NORM_L2>(v, red, eps); break;
      default: v = finish<CL1_NORM_RMS>(v, red, eps); break;
      }
      d[out] = (float)v;
    }
    __syncthreads();
  }
}

// planes of len elements; plane p divides by d[p] (scalar) or by d[(p / red) * inner + j].
__global__ static void nrm_divide(const float *x, const float *__restrict__ d, float *y,
                                  int64_t planes, int64_t len, int64_t red, int64_t inner,
                                  bool scalar, int64_t chunks, bool vec4) {
  for (int64_t bi = blockIdx.x; bi < planes * chunks; bi += gridDim.x) {
    int64_t p = bi / chunks, c0 = (bi % chunks) * DIV_CHUNK;
    int64_t c1 = c0 + DIV_CHUNK < len ? c0 + DIV_CHUNK : len;
    const float *xp = x + p * len;  // (len)
    float *yp = y + p * len;
    if (scalar) {
      float dv = d[p];
      if (vec4) {
        for (int64_t j = c0 / 4 + threadIdx.x; j < c1 / 4; j += NT) {
          float4 v = ((const float4 *)xp)[j];
          v.x /= dv, v.y /= dv, v.z /= dv, v.w /= dv;
          ((float4 *)yp)[j] = v;
        }
      } else {
        for (int64_t j = c0 + threadIdx.x; j < c1; j += NT) yp[j] = xp[j] / dv;
      }
    } else {
      const float *dp = d + (p / red) * inner;  // (inner) == (len)
      if (vec4) {
        for (int64_t j = c0 / 4 + threadIdx.x; j < c1 / 4; j += NT) {
          float4 v = ((const float4 *)xp)[j], w = ((const float4 *)dp)[j];
          v.x /= w.x, v.y /= w.y, v.z /= w.z, v.w /= w.w;
          ((float4 *)yp)[j] = v;
        }
      } else {
        for (int64_t j = c0 + threadIdx.x; j < c1; j += NT) yp[j] = xp[j] / dp[j];
      }
    }
  }
}

/* The divide as one thread per element, for planes shorter than a block's chunk: a block per
 * 32-element plane (NetVLAD's (B, D, K = 32) intra-normalisation) ran 20x slower than PyTorch. */
template <typename IT>
__global__ static void nrm_divide_flat(const float *x, const float *__restrict__ d, float *y,
                                       IT total, IT red, IT inner, bool scalar) {
  for (IT e = blockIdx.x * (IT)blockDim.x + threadIdx.x; e < total;
       e += (IT)gridDim.x * blockDim.x) {
    float dv = scalar ? d[e / red] : d[(e / (red * inner)) * inner + e % inner];
    y[e] = x[e] / dv;
  }
}

static unsigned capped(int64_t n) { return (unsigned)(n < (1LL << 30) ? (n < 1 ? 1 : n) : (1LL << 30)); }

template <int K>
static int run(cudaStream_t st, const float *x, float *y, int64_t outer, int64_t red,
               int64_t inner, double eps) {
  int64_t nout = outer * inner;
  if (inner >= TX && red <= FUSED_MAX_RED) {
    nrm_cols_fused<K><<<cl1_ops_grid(nout, NT), NT, 0, st>>>(x, y, outer, red, inner, (float)eps);
    CL1_LAUNCH_CHECK();
    return 0;
  }
  int64_t S = 1;
  if (inner < TX) {
    S = (2048 + nout - 1) / nout;             // enough blocks for the GPU
    int64_t smax = (red + 4 * NT - 1) / (4 * NT);  // but >= 4 values per thread
    if (S > smax) S = smax;
    if (S < 1) S = 1;
  }
  size_t dbytes = ((sizeof(float) * (size_t)nout) + 255) & ~(size_t)255;
  size_t pbytes = inner < TX ? sizeof(double) * (size_t)(nout * S) : 0;
  void *scratch = nullptr;
  if (cl1_norm_scratch(CL1_NSCRATCH_NORMALIZE, dbytes + pbytes, &scratch)) return 1;
  float *d = (float *)scratch;  // (outer, inner)
  if (inner >= TX) {
    int64_t tiles = (inner + TX - 1) / TX;
    if (tiles > (1LL << 31) - 1) return 1;
    unsigned gy = (unsigned)(outer < 65535 ? outer : 65535);
    nrm_tiled<K><<<dim3((unsigned)tiles, gy), dim3(TX, TY), 0, st>>>(x, d, outer, red, inner,
                                                                     (float)eps);
    CL1_LAUNCH_CHECK();
  } else {
    double *part = (double *)((char *)scratch + dbytes);  // (nout, S)
    int64_t slen = (red + S - 1) / S;
    nrm_split<K><<<capped(nout * S), NT, 0, st>>>(x, part, outer, red, inner, S, slen);
    CL1_LAUNCH_CHECK();
    nrm_finish<<<capped(nout), NT, 0, st>>>(part, d, nout, S, red, eps, K);
    CL1_LAUNCH_CHECK();
  }
  bool scalar = inner == 1;
  int64_t planes = scalar ? outer : outer * red, len = scalar ? red : inner;
  if (len < DIV_CHUNK / 4) {
    int64_t total = outer * red * inner;
    unsigned grid = cl1_ops_grid(total, NT);
    if (total < (1LL << 31))
      nrm_divide_flat<uint32_t><<<grid, NT, 0, st>>>(x, d, y, (uint32_t)total, (uint32_t)red,
                                                     (uint32_t)inner, scalar);
    else
      nrm_divide_flat<int64_t><<<grid, NT, 0, st>>>(x, d, y, total, red, inner, scalar);
    CL1_LAUNCH_CHECK();
    return 0;
  }
  int64_t chunks = (len + DIV_CHUNK - 1) / DIV_CHUNK;
  bool vec4 = len % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
  nrm_divide<<<capped(planes * chunks), NT, 0, st>>>(x, d, y, planes, len, red, inner, scalar,
                                                     chunks, vec4);
  CL1_LAUNCH_CHECK();
  return 0;
}

extern "C" int cl1_op_normalize(void *stream, int kind, const float *x, float *y, int64_t outer,
                                int64_t red, int64_t inner, double eps) {
  if (kind < 0 || kind >= CL1_NORM_N || outer < 0 || red < 0 || inner < 0 || !(eps >= 0))
    return 1;
  if (outer * red * inner == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  switch (kind) {
  case CL1_NORM_L1: return run<CL1_NORM_L1>(st, x, y, outer, red, inner, eps);
  case CL1_NORM_MEAN_ABS: return run<CL1_NORM_MEAN_ABS>(st, x, y, outer, red, inner, eps);
  case CL1_NORM_L2: return run<CL1_NORM_L2>(st, x, y, outer, red, inner, eps);
  default: return run<CL1_NORM_RMS>(st, x, y, outer, red, inner, eps);
  }
}
