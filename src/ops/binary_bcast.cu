/* binary_bcast.cu — CUDA cl1_op_binary_bcast: y contiguous, both operands read through their
 * strides (0 = broadcast), as TensorIterator's generic path. Up to 3 dims: one grid-stride
 * kernel per kind that splits each linear index into (i0, i1, i2), 32-bit index math when every
 * offset fits, 64-bit otherwise. More dims: size-1 dims are dropped and dims that both operands
 * step through as one run are merged on the host, then a kernel decomposes each output index in
 * 64 bits. */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"
#include "bcast_common.h"

template <int K>
static __device__ __forceinline__ float bc1(float u, float v) {
  if constexpr (K == CL1_BINARY_ADD) return u + v;
  else if constexpr (K == CL1_BINARY_SUB) return u - v;
  else if constexpr (K == CL1_BINARY_MUL) return u * v;
  else if constexpr (K == CL1_BINARY_DIV) return u / v;
  else if constexpr (K == CL1_BINARY_MIN) return (isnan(u) || isnan(v)) ? NAN : (u < v ? u : v);
  else return (isnan(u) || isnan(v)) ? NAN : (u > v ? u : v);
}

/* ---- up to 3 dims ---- */

struct bc_args {
  int64_t d1, d2, x0, x1, x2, z0, z1, z2, n;
};

template <int K, typename I>
__global__ static void bc_kernel(const float *__restrict__ x, const float *__restrict__ z,
                                 float *y, bc_args g) {
  I n = (I)g.n, d1 = (I)g.d1, d2 = (I)g.d2;
  for (I t = blockIdx.x * (I)blockDim.x + threadIdx.x; t < n; t += (I)gridDim.x * blockDim.x) {
    I c = t % d2, r = t / d2;
    I b = r % d1, a = r / d1;
    float u = x[a * (I)g.x0 + b * (I)g.x1 + c * (I)g.x2];
    float v = z[a * (I)g.z0 + b * (I)g.z1 + c * (I)g.z2];
    y[t] = bc1<K>(u, v);
  }
}

template <int K>
static int bc_launch(cudaStream_t st, const float *x, const float *z, float *y, const bc_args &g,
                     bool small) {
  const int block = 256;
  if (small) bc_kernel<K, uint32_t><<<cl1_ops_grid(g.n, block), block, 0, st>>>(x, z, y, g);
  else bc_kernel<K, int64_t><<<cl1_ops_grid(g.n, block), block, 0, st>>>(x, z, y, g);
  CL1_LAUNCH_CHECK();
  return 0;
}

/* dims, xs, zs: 3 entries each (leading dims padded with size 1, stride 0) */
static int bcast3(cudaStream_t st, int kind, const float *x, const int64_t *xs, const float *z,
                  const int64_t *zs, float *y, const int64_t *dims) {
  bc_args g{dims[1], dims[2], xs[0], xs[1], xs[2], zs[0], zs[1], zs[2],
            dims[0] * dims[1] * dims[2]};
  // the largest offset any operand reaches decides whether 32-bit math is exact
  int64_t xmax = (dims[0] - 1) * xs[0] + (dims[1] - 1) * xs[1] + (dims[2] - 1) * xs[2];
  int64_t zmax = (dims[0] - 1) * zs[0] + (dims[1] - 1) * zs[1] + (dims[2] - 1) * zs[2];
  const int64_t lim = (1LL << 31) - 1;
  bool small = g.n < lim && xmax < lim && zmax < lim;
  switch (kind) {
    case CL1_BINARY_ADD: return bc_launch<CL1_BINARY_ADD>(st, x, z, y, g, small);
    case CL1_BINARY_SUB: return bc_launch<CL1_BINARY_SUB>(st, x, z, y, g, small);
    case CL1_BINARY_MUL: return bc_launch<CL1_BINARY_MUL>(st, x, z, y, g, small);
    case CL1_BINARY_DIV: return bc_launch<CL1_BINARY_DIV>(st, x, z, y, g, small);
    case CL1_BINARY_MIN: return bc_launch<CL1_BINARY_MIN>(st, x, z, y, g, small);
    default: return bc_launch<CL1_BINARY_MAX>(st, x, z, y, g, small);
  }
}

/* ---- more dims ---- */

namespace {

struct view_t {
  int nd;
  int64_t shape[CL1_BCAST_MAX_DIMS];
  int64_t sx[CL1_BCAST_MAX_DIMS], sz[CL1_BCAST_MAX_DIMS];
};

/* Drops size-1 dims and merges dim k into the previous kept one where both operands step
 * through them as one contiguous run. */
void view_make(int32_t nd, const int64_t *shape, const int64_t *sx, const int64_t *sz,
               view_t &v) {
  v.nd = 0;
  for (int32_t k = 0; k < nd; k++) {
    if (shape[k] == 1) continue;
    if (v.nd > 0) {
      int j = v.nd - 1;
      if (v.sx[j] == sx[k] * shape[k] && v.sz[j] == sz[k] * shape[k]) {
        v.shape[j] *= shape[k], v.sx[j] = sx[k], v.sz[j] = sz[k];
        continue;
      }
    }
    v.shape[v.nd] = shape[k], v.sx[v.nd] = sx[k], v.sz[v.nd] = sz[k], v.nd++;
  }
  if (v.nd == 0) v.nd = 1, v.shape[0] = 1, v.sx[0] = 0, v.sz[0] = 0;
}

template <int K>
__global__ void view_k(view_t v, const float *x, const float *z, float *y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t r = i, ox = 0, oz = 0;
    for (int k = v.nd - 1; k >= 0; k--) {
      int64_t q = r / v.shape[k], c = r - q * v.shape[k];
      ox += c * v.sx[k], oz += c * v.sz[k];
      r = q;
    }
    y[i] = bc1<K>(x[ox], z[oz]);
  }
}

template <int K>
int view_launch(cudaStream_t st, const view_t &v, const float *x, const float *z, float *y,
                int64_t n) {
  const int block = 256;
  view_k<K><<<cl1_ops_grid(n, block), block, 0, st>>>(v, x, z, y, n);
  CL1_LAUNCH_CHECK();
  return 0;
}

}  // namespace

extern "C" int cl1_op_binary_bcast(void *stream, cl1_binary_kind kind, const float *x,
                                   const int64_t *xs, const float *z, const int64_t *zs,
                                   float *y, int32_t nd, const int64_t *shape) {
  int64_t n;
  if (cl1_bcast_check(kind, x, xs, z, zs, y, nd, shape, &n)) return 1;
  if (n == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  if (nd <= 3) {
    int64_t d3[3] = {1, 1, 1}, x3[3] = {0, 0, 0}, z3[3] = {0, 0, 0};
    for (int32_t k = 0; k < nd; k++)
      d3[3 - nd + k] = shape[k], x3[3 - nd + k] = xs[k], z3[3 - nd + k] = zs[k];
    return bcast3(st, kind, x, x3, z, z3, y, d3);
  }
  view_t v;
  view_make(nd, shape, xs, zs, v);
  switch (kind) {
    case CL1_BINARY_ADD: return view_launch<CL1_BINARY_ADD>(st, v, x, z, y, n);
    case CL1_BINARY_SUB: return view_launch<CL1_BINARY_SUB>(st, v, x, z, y, n);
    case CL1_BINARY_MUL: return view_launch<CL1_BINARY_MUL>(st, v, x, z, y, n);
    case CL1_BINARY_DIV: return view_launch<CL1_BINARY_DIV>(st, v, x, z, y, n);
    case CL1_BINARY_MIN: return view_launch<CL1_BINARY_MIN>(st, v, x, z, y, n);
    default: return view_launch<CL1_BINARY_MAX>(st, v, x, z, y, n);
  }
}
