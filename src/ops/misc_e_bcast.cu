/* misc_e_bcast.cu — CUDA cl1_op_binary_bcast: one grid-stride kernel per kind over the
 * contiguous (d0, d1, d2) output; each thread turns its linear index into (i0, i1, i2) and
 * reads both operands through their strides (0 = broadcast), as TensorIterator's generic
 * path. 32-bit index math when the output fits, 64-bit otherwise. */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

template <int K>
static __device__ __forceinline__ float bc1(float u, float v) {
  if constexpr (K == CL1_BCAST_ADD) return u + v;
  else if constexpr (K == CL1_BCAST_SUB) return u - v;
  else if constexpr (K == CL1_BCAST_MUL) return u * v;
  else if constexpr (K == CL1_BCAST_DIV) return u / v;
  else if constexpr (K == CL1_BCAST_MIN) return (isnan(u) || isnan(v)) ? NAN : (u < v ? u : v);
  else return (isnan(u) || isnan(v)) ? NAN : (u > v ? u : v);
}

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

extern "C" int cl1_op_binary_bcast(void *stream, int kind, const float *x, const int64_t xs[3],
                                   const float *z, const int64_t zs[3], float *y,
                                   const int64_t dims[3]) {
  if (kind < 0 || kind >= CL1_BCAST_N || !xs || !zs || !dims) return 1;
  for (int i = 0; i < 3; i++)
    if (dims[i] < 0 || xs[i] < 0 || zs[i] < 0) return 1;
  bc_args g{dims[1], dims[2], xs[0], xs[1], xs[2], zs[0], zs[1], zs[2],
            dims[0] * dims[1] * dims[2]};
  if (g.n == 0) return 0;
  if (!x || !z || !y) return 1;
  // the largest offset any operand reaches decides whether 32-bit math is exact
  int64_t xmax = (dims[0] - 1) * xs[0] + (dims[1] - 1) * xs[1] + (dims[2] - 1) * xs[2];
  int64_t zmax = (dims[0] - 1) * zs[0] + (dims[1] - 1) * zs[1] + (dims[2] - 1) * zs[2];
  const int64_t lim = (1LL << 31) - 1;
  bool small = g.n < lim && xmax < lim && zmax < lim;
  cudaStream_t st = (cudaStream_t)stream;
  switch (kind) {
    case CL1_BCAST_ADD: return bc_launch<CL1_BCAST_ADD>(st, x, z, y, g, small);
    case CL1_BCAST_SUB: return bc_launch<CL1_BCAST_SUB>(st, x, z, y, g, small);
    case CL1_BCAST_MUL: return bc_launch<CL1_BCAST_MUL>(st, x, z, y, g, small);
    case CL1_BCAST_DIV: return bc_launch<CL1_BCAST_DIV>(st, x, z, y, g, small);
    case CL1_BCAST_MIN: return bc_launch<CL1_BCAST_MIN>(st, x, z, y, g, small);
    default: return bc_launch<CL1_BCAST_MAX>(st, x, z, y, g, small);
  }
}
