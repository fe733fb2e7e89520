/* misc_e_unary.cu — CUDA cl1_op_unary_e: a grid-stride kernel per kind (template parameter),
 * float4 when both pointers are 16-byte aligned (its first threads also take the n % 4 tail),
 * scalar otherwise. Formulas as ATen's CUDA kernels
 * in float (hardswish divides by 6, mish is x * tanh(log1p(exp(x)))). */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

template <int K>
static __device__ __forceinline__ float ue1(float v, float a) {
  if constexpr (K == CL1_UNARY_E_HARDSWISH) {
    float t = v + 3.f;
    t = t < 0.f ? 0.f : t > 6.f ? 6.f : t;
    return v * t / 6.f;
  } else if constexpr (K == CL1_UNARY_E_MISH) {
    return v * tanhf(log1pf(expf(v)));
  } else if constexpr (K == CL1_UNARY_E_MIN_SCALAR) {
    return (isnan(v) || v < a) ? v : a;  // NaN propagates, as torch.minimum
  } else if constexpr (K == CL1_UNARY_E_MAX_SCALAR) {
    return (isnan(v) || v > a) ? v : a;
  } else {
    return v / a;  // CL1_UNARY_E_DIV_SCALAR
  }
}

/* float4 over the first n / 4 quads, then the first n % 4 threads of the grid take the tail:
   one launch for any n (a separate tail kernel doubled the launches of odd-sized tensors) */
template <int K>
__global__ static void ue_vec4(const float *xs, float *ys, int64_t n, float a) {
  const float4 *x = (const float4 *)xs;
  float4 *y = (float4 *)ys;
  const int64_t n4 = n / 4, g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  for (int64_t i = g; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
    float4 v = x[i];
    v.x = ue1<K>(v.x, a), v.y = ue1<K>(v.y, a), v.z = ue1<K>(v.z, a), v.w = ue1<K>(v.w, a);
    y[i] = v;
  }
  if (4 * n4 + g < n) ys[4 * n4 + g] = ue1<K>(xs[4 * n4 + g], a);
}

template <int K>
__global__ static void ue_scalar(const float *x, float *y, int64_t n, float a) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = ue1<K>(x[i], a);
}

template <int K>
static int ue_launch(cudaStream_t st, const float *x, float *y, int64_t n, float a) {
  const int block = 256;
  if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0)
    ue_vec4<K><<<cl1_ops_grid(n / 4 > 0 ? n / 4 : 1, block), block, 0, st>>>(x, y, n, a);
  else
    ue_scalar<K><<<cl1_ops_grid(n, block), block, 0, st>>>(x, y, n, a);
  CL1_LAUNCH_CHECK();
  return 0;
}

extern "C" int cl1_op_unary_e(void *stream, int kind, const float *x, float *y, int64_t n,
                              double a) {
  if (kind < 0 || kind >= CL1_UNARY_E_N || n < 0) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  float fa = (float)a;  // PyTorch casts a Python scalar to the float opmath type
  switch (kind) {
    case CL1_UNARY_E_HARDSWISH: return ue_launch<CL1_UNARY_E_HARDSWISH>(st, x, y, n, fa);
    case CL1_UNARY_E_MISH: return ue_launch<CL1_UNARY_E_MISH>(st, x, y, n, fa);
    case CL1_UNARY_E_MIN_SCALAR: return ue_launch<CL1_UNARY_E_MIN_SCALAR>(st, x, y, n, fa);
    case CL1_UNARY_E_MAX_SCALAR: return ue_launch<CL1_UNARY_E_MAX_SCALAR>(st, x, y, n, fa);
    default: return ue_launch<CL1_UNARY_E_DIV_SCALAR>(st, x, y, n, fa);
  }
}
