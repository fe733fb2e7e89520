/* net_c_view.cu — CUDA cl1_op_view_copy and cl1_op_view_binary: dims that are contiguous in
 * every operand are merged on the host first (a channel shuffle becomes a 4-d index, a slice a
 * 2-d one), then one grid-stride kernel decomposes each output index, 64-bit, as ATen's
 * TensorIterator does for non-contiguous operands; the output is written coalesced. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

namespace {

struct view_t {
  int nd;
  int64_t shape[CL1_VIEW_MAX_DIMS];
  int64_t sx[CL1_VIEW_MAX_DIMS], sz[CL1_VIEW_MAX_DIMS];
};

/* Drops size-1 dims and merges dim k into k+1 where both operands step through them as one
 * contiguous run; *n = element count. 0 on success, 1 on invalid sizes. */
int view_make(int32_t ndim, const int64_t *shape, const int64_t *sx, const int64_t *sz,
              view_t &v, int64_t *n) {
  if (ndim < 1 || ndim > CL1_VIEW_MAX_DIMS || !shape || !sx) return 1;
  *n = 1;
  v.nd = 0;
  for (int32_t k = 0; k < ndim; k++) {
    if (shape[k] < 0) return 1;
    *n *= shape[k];
    if (shape[k] == 1) continue;
    int64_t zs = sz ? sz[k] : 0;
    if (v.nd > 0) {
      int j = v.nd - 1;  // merge into the previous kept dim when it steps over this one exactly
      if (v.sx[j] == sx[k] * shape[k] && v.sz[j] == zs * shape[k]) {
        v.shape[j] *= shape[k], v.sx[j] = sx[k], v.sz[j] = zs;
        continue;
      }
    }
    v.shape[v.nd] = shape[k], v.sx[v.nd] = sx[k], v.sz[v.nd] = zs, v.nd++;
  }
  if (v.nd == 0) v.nd = 1, v.shape[0] = 1, v.sx[0] = 0, v.sz[0] = 0;
  return 0;
}

__device__ __forceinline__ void offsets(const view_t &v, int64_t i, int64_t *ox, int64_t *oz) {
  int64_t a = 0, b = 0;
  for (int k = v.nd - 1; k >= 0; k--) {
    int64_t q = i / v.shape[k], r = i - q * v.shape[k];
    a += r * v.sx[k], b += r * v.sz[k];
    i = q;
  }
  *ox = a, *oz = b;
}

__global__ void copy_k(view_t v, const float *__restrict__ x, float *__restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t ox, oz;
    offsets(v, i, &ox, &oz);
    y[i] = x[ox];
  }
}

template <int K>
__device__ __forceinline__ float op1(float u, float v) {
  if (K == CL1_BINARY_ADD) return u + v;
  if (K == CL1_BINARY_SUB) return u - v;
  if (K == CL1_BINARY_MUL) return u * v;
  return u / v;
}

template <int K>
__global__ void binary_k(view_t v, const float *x, const float *z, float *y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t ox, oz;
    offsets(v, i, &ox, &oz);
    y[i] = op1<K>(x[ox], z[oz]);
  }
}

}  // namespace

extern "C" int cl1_op_view_copy(void *stream, const float *x, float *y, int32_t ndim,
                                const int64_t *shape, const int64_t *xstride) {
  view_t v;
  int64_t n;
  if (view_make(ndim, shape, xstride, NULL, v, &n)) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  if (v.nd == 1 && v.sx[0] == 1) {  // already contiguous: a plain copy
    CL1_CUDA_TRY(cudaMemcpyAsync(y, x, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, st));
    return 0;
  }
  if (v.nd == 2 && v.sx[1] == 1) {  // rows of a wider matrix (a slice): a pitched copy
    const size_t w = (size_t)v.shape[1] * sizeof(float);
    if (v.sx[0] >= v.shape[1]) {
      CL1_CUDA_TRY(cudaMemcpy2DAsync(y, w, x, (size_t)v.sx[0] * sizeof(float), w,
                                     (size_t)v.shape[0], cudaMemcpyDeviceToDevice, st));
      return 0;
    }
  }
  const int block = 256;
  copy_k<<<cl1_ops_grid(n, block), block, 0, st>>>(v, x, y, n);
  CL1_LAUNCH_CHECK();
  return 0;
}

extern "C" int cl1_op_view_binary(void *stream, cl1_binary_kind kind, const float *x,
                                  const int64_t *xstride, const float *z,
                                  const int64_t *zstride, float *y, int32_t ndim,
                                  const int64_t *shape) {
  view_t v;
  int64_t n;
  if ((unsigned)kind >= CL1_BINARY_N || !zstride) return 1;
  if (view_make(ndim, shape, xstride, zstride, v, &n)) return 1;
  if (n == 0) return 0;
  if (!x || !z || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  const int block = 256;
  const unsigned grid = cl1_ops_grid(n, block);
  switch (kind) {
    case CL1_BINARY_ADD: binary_k<CL1_BINARY_ADD><<<grid, block, 0, st>>>(v, x, z, y, n); break;
    case CL1_BINARY_SUB: binary_k<CL1_BINARY_SUB><<<grid, block, 0, st>>>(v, x, z, y, n); break;
    case CL1_BINARY_MUL: binary_k<CL1_BINARY_MUL><<<grid, block, 0, st>>>(v, x, z, y, n); break;
    default: binary_k<CL1_BINARY_DIV><<<grid, block, 0, st>>>(v, x, z, y, n); break;
  }
  CL1_LAUNCH_CHECK();
  return 0;
}
