/* ops_misc_e.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Ops first needed by level-1/2 tasks: logsumexp and softmax over a middle dim, more
 * elementwise functions (HardSwish, Mish, min/max/division by a Python scalar) and binary ops
 * with PyTorch-style broadcasting of either operand (a 0-dim parameter, a per-channel bias, an
 * outer sum). */
#ifndef CUDAL1_OPS_MISC_E_H
#define CUDAL1_OPS_MISC_E_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* torch.logsumexp over the middle dim: y = m + log(sum exp(x - m)), m the max over the dim
 * with +-inf replaced by 0 (so a row of -inf gives -inf, a row holding +inf gives +inf, NaN
 * propagates). x: (outer, red, inner) -> y: (outer, inner); red >= 1. */
int cl1_op_logsumexp(void *stream, const float *x, float *y, int64_t outer, int64_t red,
                     int64_t inner);

/* Softmax over the middle dim (torch.softmax(x, dim) with x viewed as (outer, n, inner)):
 * y[o, :, i] = exp(x[o, :, i] - max) / sum exp(x[o, :, i] - max). x, y: (outer, n, inner);
 * y must not alias x. */
int cl1_op_softmax_dim(void *stream, const float *x, float *y, int64_t outer, int64_t n,
                       int64_t inner);

/* The elementwise functions of cl1_op_unary_e; a is the per-kind parameter. */
typedef enum {
  CL1_UNARY_E_HARDSWISH = 0,  /* x * clamp(x + 3, 0, 6) / 6                (F.hardswish) */
  CL1_UNARY_E_MISH = 1,       /* x * tanh(log1p(exp(x)))        (F.mish, as ATen: no threshold) */
  CL1_UNARY_E_MIN_SCALAR = 2, /* min(x, a), NaN propagates   (torch.min(x, tensor(a)) / clamp(max=a)) */
  CL1_UNARY_E_MAX_SCALAR = 3, /* max(x, a), NaN propagates   (torch.max(x, tensor(a)) / clamp(min=a)) */
  CL1_UNARY_E_DIV_SCALAR = 4, /* x / a, true division          (x / a with a Python scalar) */
  CL1_UNARY_E_N = 5
} cl1_unary_e_kind;

/* y = f_kind(x; a) elementwise; x, y: (n); y may alias x. Non-zero for an unknown kind. */
int cl1_op_unary_e(void *stream, int kind, const float *x, float *y, int64_t n, double a);

/* The functions of cl1_op_binary_bcast. */
typedef enum {
  CL1_BCAST_ADD = 0, /* x + z */
  CL1_BCAST_SUB = 1, /* x - z */
  CL1_BCAST_MUL = 2, /* x * z */
  CL1_BCAST_DIV = 3, /* x / z */
  CL1_BCAST_MIN = 4, /* torch.minimum(x, z), NaN propagates */
  CL1_BCAST_MAX = 5, /* torch.maximum(x, z), NaN propagates */
  CL1_BCAST_N = 6
} cl1_bcast_kind;

/* y[i0, i1, i2] = x[i0*xs[0] + i1*xs[1] + i2*xs[2]] (op) z[i0*zs[0] + i1*zs[1] + i2*zs[2]]
 * for i < dims: broadcasting as PyTorch's TensorIterator does it, a broadcast dim having stride
 * 0 (a 0-dim parameter: all strides 0; a per-channel (C, 1, 1) bias on (N, C, HW): zs = {0, 1,
 * 0}). Strides are in elements and >= 0. y is contiguous (dims[0], dims[1], dims[2]) and may
 * alias an operand only when that operand is contiguous with y's shape. */
int cl1_op_binary_bcast(void *stream, int kind, const float *x, const int64_t xs[3],
                        const float *z, const int64_t zs[3], float *y, const int64_t dims[3]);

#ifdef __cplusplus
}
#endif
#endif
