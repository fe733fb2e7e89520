/* gen_cuda.cu — the GPU side of input/param generation: one grid-stride kernel per dtype that
 * evaluates cl1_gen_value (gen_cuda.h) per element exactly as cl1_gen_host does, then rounds with the CUDA
 * round-to-nearest-even intrinsics, which match gen.c's bit code; the row-softmax dists get a
 * block-per-row kernel per dtype. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include "task/gen_cuda.h"

template <int D>
__device__ __forceinline__ void gen_store(void *dst, int64_t i, double v) {
  if constexpr (D == CL1_F32) static_cast<float *>(dst)[i] = (float)v;
  else if constexpr (D == CL1_F16) static_cast<__half *>(dst)[i] = __float2half_rn((float)v);
  else if constexpr (D == CL1_BF16)
    static_cast<__nv_bfloat16 *>(dst)[i] = __float2bfloat16_rn((float)v);
  else if constexpr (D == CL1_F64) static_cast<double *>(dst)[i] = v;
  else if constexpr (D == CL1_I32) static_cast<int32_t *>(dst)[i] = cl1_gen_to_i32(v);
  else if constexpr (D == CL1_I64) static_cast<int64_t *>(dst)[i] = cl1_gen_to_i64(v);
  else if constexpr (D == CL1_U8) static_cast<uint8_t *>(dst)[i] = cl1_gen_to_u8(v);
  else static_cast<uint8_t *>(dst)[i] = cl1_gen_to_bool(v);
}

template <int D>
__device__ __forceinline__ void gen_body(void *dst, int64_t n, int dist, double a, double b,
                                         double xp, double xs, double xc, uint64_t seed,
                                         uint32_t tid) {
  int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
    gen_store<D>(dst, i, cl1_gen_value(dist, a, b, xp, xs, xc, seed, tid, (uint64_t)i));
}

/* Block-wide reduction of one double per thread (max or sum); blockDim.x is a multiple of 32
 * up to 1024. Every thread gets the result. */
template <bool MAX>
__device__ __forceinline__ double block_reduce(double v, double *sh) {
  for (int o = 16; o > 0; o >>= 1) {
    double u = __shfl_xor_sync(0xffffffffu, v, o);
    v = MAX ? (u > v ? u : v) : v + u;
  }
  int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if (lane == 0) sh[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = lane < nw ? sh[lane] : (MAX ? -INFINITY : 0.0);
    for (int o = 16; o > 0; o >>= 1) {
      double u = __shfl_xor_sync(0xffffffffu, v, o);
      v = MAX ? (u > v ? u : v) : v + u;
    }
    if (lane == 0) sh[0] = v;
  }
  __syncthreads();
  double r = sh[0];
  __syncthreads();  // sh is reused by the next reduction
  return r;
}

/* The row-softmax dists (cl1_rng_row_softmax): a block per row of the last dim, three passes
 * that recompute the samples (max, sum of exp, values), all in double as gen.c; only the sum's
 * order differs from the host's, a few double ulps that rounding to float almost always hides. */
template <int D>
__device__ __forceinline__ void gen_softmax_body(void *dst, int64_t rows, int64_t cols, int dist,
                                                 double a, double b, uint64_t seed,
                                                 uint32_t tid) {
  __shared__ double sh[32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    int64_t row0 = r * cols;
    double m = -INFINITY, s = 0.0;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      double v = cl1_rng_sample(dist, a, b, seed, tid, (uint64_t)(row0 + j));
      m = v > m ? v : m;
    }
    m = block_reduce<true>(m, sh);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      s += exp(cl1_rng_sample(dist, a, b, seed, tid, (uint64_t)(row0 + j)) - m);
    s = block_reduce<false>(s, sh);
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x)
      gen_store<D>(dst, row0 + j,
                   exp(cl1_rng_sample(dist, a, b, seed, tid, (uint64_t)(row0 + j)) - m) / s);
  }
}

/* Plain kernels, not a kernel template: nvcc's host stubs for kernel templates use guarded
 * statics (__cxa_guard_*), and the C binaries that link libcudal1.a bring no libstdc++. */
#define CL1_GEN_KERNEL(D)                                                                     \
  __global__ void gen_kernel_##D(void *dst, int64_t n, int dist, double a, double b,          \
                                 double xp, double xs, double xc, uint64_t seed,              \
                                 uint32_t tid) {                                              \
    gen_body<D>(dst, n, dist, a, b, xp, xs, xc, seed, tid);                                   \
  }                                                                                           \
  __global__ void gen_softmax_kernel_##D(void *dst, int64_t rows, int64_t cols, int dist,     \
                                         double a, double b, uint64_t seed, uint32_t tid) {   \
    gen_softmax_body<D>(dst, rows, cols, dist, a, b, seed, tid);                              \
  }
CL1_GEN_KERNEL(CL1_F32)
CL1_GEN_KERNEL(CL1_F16)
CL1_GEN_KERNEL(CL1_BF16)
CL1_GEN_KERNEL(CL1_F64)
CL1_GEN_KERNEL(CL1_I32)
CL1_GEN_KERNEL(CL1_I64)
CL1_GEN_KERNEL(CL1_U8)
CL1_GEN_KERNEL(CL1_BOOL)
#undef CL1_GEN_KERNEL

extern "C" int cl1_gen_cuda(const cl1_tinst *t, void *dst_device, uint64_t seed, uint32_t tid,
                            void *stream) {
  if (!t || t->numel < 0 || (t->numel > 0 && !dst_device)) return (int)cudaErrorInvalidValue;
  if (t->numel == 0) return 0;
  const int threads = 256;
  int64_t blocks = (t->numel + threads - 1) / threads;
  if (blocks > 8192) blocks = 8192; /* grid-stride covers the rest; enough to fill an H100/H200 */
  dim3 grid((unsigned)blocks), block(threads);
  cudaStream_t st = (cudaStream_t)stream;
  int64_t n = t->numel;
  if (cl1_rng_row_softmax(t->dist)) {
    int64_t cols = t->ndim > 0 ? t->shape[t->ndim - 1] : 1, rows = n / cols;
    dim3 rgrid((unsigned)(rows < 65535 ? rows : 65535)), rblock(256);
    switch (t->dtype) {
#define CL1_GEN_CASE(D)                                                                       \
  case D:                                                                                     \
    gen_softmax_kernel_##D<<<rgrid, rblock, 0, st>>>(dst_device, rows, cols, t->dist, t->a,   \
                                                     t->b, seed, tid);                        \
    break;
      CL1_GEN_CASE(CL1_F32)
      CL1_GEN_CASE(CL1_F16)
      CL1_GEN_CASE(CL1_BF16)
      CL1_GEN_CASE(CL1_F64)
      CL1_GEN_CASE(CL1_I32)
      CL1_GEN_CASE(CL1_I64)
      CL1_GEN_CASE(CL1_U8)
      CL1_GEN_CASE(CL1_BOOL)
#undef CL1_GEN_CASE
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
  }
  switch (t->dtype) {
#define CL1_GEN_CASE(D)                                                                       \
  case D:                                                                                     \
    gen_kernel_##D<<<grid, block, 0, st>>>(dst_device, n, t->dist, t->a, t->b, t->extreme_p,   \
                                           t->extreme_scale, t->extreme_center, seed, tid);    \
    break;
    CL1_GEN_CASE(CL1_F32)
    CL1_GEN_CASE(CL1_F16)
    CL1_GEN_CASE(CL1_BF16)
    CL1_GEN_CASE(CL1_F64)
    CL1_GEN_CASE(CL1_I32)
    CL1_GEN_CASE(CL1_I64)
    CL1_GEN_CASE(CL1_U8)
    CL1_GEN_CASE(CL1_BOOL)
#undef CL1_GEN_CASE
  default: return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}
