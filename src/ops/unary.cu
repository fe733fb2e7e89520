/* unary.cu — CUDA cl1_op_unary and cl1_op_binary: one grid-stride kernel per kind (a template
 * parameter, so each kind compiles to its own straight-line loop), float4 when every pointer is
 * 16-byte aligned (its first threads also take the n % 4 tail), scalar otherwise. Formulas
 * follow ATen's CUDA kernels in float (hardswish divides by 6, mish is x * tanh(log1p(exp(x))),
 * exp is expf). */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

/* Comparisons rather than fminf/fmaxf so that NaN passes through, as in PyTorch. */
static __device__ __forceinline__ float clampf(float v, float lo, float hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

template <int K>
static __device__ __forceinline__ float unary1(float v, float a, float b) {
  if constexpr (K == CL1_UNARY_LEAKY_RELU) return v > 0.f ? v : v * a;
  else if constexpr (K == CL1_UNARY_SIGMOID) return 1.f / (1.f + expf(-v));
  else if constexpr (K == CL1_UNARY_TANH) return tanhf(v);
  else if constexpr (K == CL1_UNARY_GELU) return v * 0.5f * (1.f + erff(v * (float)M_SQRT1_2));
  else if constexpr (K == CL1_UNARY_SELU)
    return v <= 0.f ? expm1f(v) * (float)(CL1_SELU_ALPHA * CL1_SELU_SCALE)
                    : v * (float)CL1_SELU_SCALE;
  else if constexpr (K == CL1_UNARY_HARDSIGMOID)
    return clampf(v + 3.f, 0.f, 6.f) * (1.f / 6.f);
  else if constexpr (K == CL1_UNARY_SOFTPLUS) return v * a > b ? v : log1pf(expf(v * a)) / a;
  else if constexpr (K == CL1_UNARY_ELU) return v <= 0.f ? expm1f(v) * a : v;
  else if constexpr (K == CL1_UNARY_HARDTANH) return clampf(v, a, b);
  else if constexpr (K == CL1_UNARY_ABS) return fabsf(v);
  else if constexpr (K == CL1_UNARY_ADD_SCALAR) return v + a;
  else if constexpr (K == CL1_UNARY_MUL_SCALAR) return v * a;
  else if constexpr (K == CL1_UNARY_HARDSWISH) {
    float t = v + 3.f;
    t = t < 0.f ? 0.f : t > 6.f ? 6.f : t;
    return v * t / 6.f;
  } else if constexpr (K == CL1_UNARY_MISH) return v * tanhf(log1pf(expf(v)));
  else if constexpr (K == CL1_UNARY_MIN_SCALAR) return (isnan(v) || v < a) ? v : a;
  else if constexpr (K == CL1_UNARY_MAX_SCALAR) return (isnan(v) || v > a) ? v : a;
  else if constexpr (K == CL1_UNARY_DIV_SCALAR) return v / a;
  else return expf(v);  // CL1_UNARY_EXP
}

/* float4 over the first n / 4 quads, then the first n % 4 threads of the grid take the tail:
   one launch for any n (a separate tail kernel doubled the launches of odd-sized tensors) */
template <int K>
__global__ static void unary_vec4(const float *xs, float *ys, int64_t n, float a, float b) {
  const float4 *x = (const float4 *)xs;
  float4 *y = (float4 *)ys;
  const int64_t n4 = n / 4, g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  for (int64_t i = g; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
    float4 v = x[i];
    v.x = unary1<K>(v.x, a, b), v.y = unary1<K>(v.y, a, b);
    v.z = unary1<K>(v.z, a, b), v.w = unary1<K>(v.w, a, b);
    y[i] = v;
  }
  if (4 * n4 + g < n) ys[4 * n4 + g] = unary1<K>(xs[4 * n4 + g], a, b);
}

template <int K>
__global__ static void unary_scalar(const float *x, float *y, int64_t n, float a, float b) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = unary1<K>(x[i], a, b);
}

template <int K>
static int unary_launch(cudaStream_t st, const float *x, float *y, int64_t n, float a, float b) {
  const int block = 256;
  if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0)
    unary_vec4<K><<<cl1_ops_grid(n / 4 > 0 ? n / 4 : 1, block), block, 0, st>>>(x, y, n, a, b);
  else
    unary_scalar<K><<<cl1_ops_grid(n, block), block, 0, st>>>(x, y, n, a, b);
  CL1_LAUNCH_CHECK();
  return 0;
}

extern "C" int cl1_op_unary(void *stream, cl1_unary_kind kind, const float *x, float *y,
                            int64_t n, double a, double b) {
  if ((unsigned)kind >= CL1_UNARY_N || n < 0) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  float fa = (float)a, fb = (float)b;  // PyTorch casts Python scalars to the float opmath type
  switch (kind) {
    case CL1_UNARY_LEAKY_RELU: return unary_launch<CL1_UNARY_LEAKY_RELU>(st, x, y, n, fa, fb);
    case CL1_UNARY_SIGMOID: return unary_launch<CL1_UNARY_SIGMOID>(st, x, y, n, fa, fb);
    case CL1_UNARY_TANH: return unary_launch<CL1_UNARY_TANH>(st, x, y, n, fa, fb);
    case CL1_UNARY_GELU: return unary_launch<CL1_UNARY_GELU>(st, x, y, n, fa, fb);
    case CL1_UNARY_SELU: return unary_launch<CL1_UNARY_SELU>(st, x, y, n, fa, fb);
    case CL1_UNARY_HARDSIGMOID: return unary_launch<CL1_UNARY_HARDSIGMOID>(st, x, y, n, fa, fb);
    case CL1_UNARY_SOFTPLUS: return unary_launch<CL1_UNARY_SOFTPLUS>(st, x, y, n, fa, fb);
    case CL1_UNARY_ELU: return unary_launch<CL1_UNARY_ELU>(st, x, y, n, fa, fb);
    case CL1_UNARY_HARDTANH: return unary_launch<CL1_UNARY_HARDTANH>(st, x, y, n, fa, fb);
    case CL1_UNARY_ABS: return unary_launch<CL1_UNARY_ABS>(st, x, y, n, fa, fb);
    case CL1_UNARY_ADD_SCALAR: return unary_launch<CL1_UNARY_ADD_SCALAR>(st, x, y, n, fa, fb);
    case CL1_UNARY_MUL_SCALAR: return unary_launch<CL1_UNARY_MUL_SCALAR>(st, x, y, n, fa, fb);
    case CL1_UNARY_HARDSWISH: return unary_launch<CL1_UNARY_HARDSWISH>(st, x, y, n, fa, fb);
    case CL1_UNARY_MISH: return unary_launch<CL1_UNARY_MISH>(st, x, y, n, fa, fb);
    case CL1_UNARY_MIN_SCALAR: return unary_launch<CL1_UNARY_MIN_SCALAR>(st, x, y, n, fa, fb);
    case CL1_UNARY_MAX_SCALAR: return unary_launch<CL1_UNARY_MAX_SCALAR>(st, x, y, n, fa, fb);
    case CL1_UNARY_DIV_SCALAR: return unary_launch<CL1_UNARY_DIV_SCALAR>(st, x, y, n, fa, fb);
    case CL1_UNARY_EXP: return unary_launch<CL1_UNARY_EXP>(st, x, y, n, fa, fb);
    default: return 1;
  }
}

template <int K>
static __device__ __forceinline__ float binary1(float u, float v) {
  if constexpr (K == CL1_BINARY_ADD) return u + v;
  else if constexpr (K == CL1_BINARY_SUB) return u - v;
  else if constexpr (K == CL1_BINARY_MUL) return u * v;
  else if constexpr (K == CL1_BINARY_DIV) return u / v;
  else if constexpr (K == CL1_BINARY_MIN) return (isnan(u) || isnan(v)) ? NAN : (u < v ? u : v);
  else return (isnan(u) || isnan(v)) ? NAN : (u > v ? u : v);  // CL1_BINARY_MAX
}

template <int K>  // float4 plus the tail in one launch, as unary_vec4
__global__ static void binary_vec4(const float *xs, const float *zs, float *ys, int64_t n) {
  const float4 *x = (const float4 *)xs, *z = (const float4 *)zs;
  float4 *y = (float4 *)ys;
  const int64_t n4 = n / 4, g = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  for (int64_t i = g; i < n4; i += (int64_t)gridDim.x * blockDim.x) {
    float4 u = x[i], v = z[i];
    u.x = binary1<K>(u.x, v.x), u.y = binary1<K>(u.y, v.y);
    u.z = binary1<K>(u.z, v.z), u.w = binary1<K>(u.w, v.w);
    y[i] = u;
  }
  if (4 * n4 + g < n) ys[4 * n4 + g] = binary1<K>(xs[4 * n4 + g], zs[4 * n4 + g]);
}

template <int K>
__global__ static void binary_scalar(const float *x, const float *z, float *y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = binary1<K>(x[i], z[i]);
}

template <int K>
static int binary_launch(cudaStream_t st, const float *x, const float *z, float *y, int64_t n) {
  const int block = 256;
  if ((((uintptr_t)x | (uintptr_t)z | (uintptr_t)y) & 15) == 0)
    binary_vec4<K><<<cl1_ops_grid(n / 4 > 0 ? n / 4 : 1, block), block, 0, st>>>(x, z, y, n);
  else
    binary_scalar<K><<<cl1_ops_grid(n, block), block, 0, st>>>(x, z, y, n);
  CL1_LAUNCH_CHECK();
  return 0;
}

extern "C" int cl1_op_binary(void *stream, cl1_binary_kind kind, const float *x, const float *z,
                             float *y, int64_t n) {
  if ((unsigned)kind >= CL1_BINARY_N || n < 0) return 1;
  if (n == 0) return 0;
  if (!x || !z || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  switch (kind) {
    case CL1_BINARY_ADD: return binary_launch<CL1_BINARY_ADD>(st, x, z, y, n);
    case CL1_BINARY_SUB: return binary_launch<CL1_BINARY_SUB>(st, x, z, y, n);
    case CL1_BINARY_MUL: return binary_launch<CL1_BINARY_MUL>(st, x, z, y, n);
    case CL1_BINARY_DIV: return binary_launch<CL1_BINARY_DIV>(st, x, z, y, n);
    case CL1_BINARY_MIN: return binary_launch<CL1_BINARY_MIN>(st, x, z, y, n);
    case CL1_BINARY_MAX: return binary_launch<CL1_BINARY_MAX>(st, x, z, y, n);
    default: return 1;
  }
}
