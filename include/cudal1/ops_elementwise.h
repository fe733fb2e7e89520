/* ops_elementwise.h — part of the op library API (ops.h includes it); see ops.h for the
 * conventions. The elementwise family: one unary op (activations and the arithmetic KernelBench
 * writes out by hand, such as Swish as x * sigmoid(x) or x / 2.0, so that a reference stays one
 * call per PyTorch op) and the binary ops, same-shape or through broadcast/strided views. One
 * kind enum per arity, shared by every op of that arity. Formulas and constants are PyTorch's
 * (ATen's CPU/CUDA kernels), in float on the GPU. */
#ifndef CUDAL1_OPS_ELEMENTWISE_H
#define CUDAL1_OPS_ELEMENTWISE_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* The functions of cl1_op_unary; a and b are the per-kind parameters (ignored by the others). */
typedef enum {
  CL1_UNARY_LEAKY_RELU = 0,  /* x > 0 ? x : a*x                      (a = negative_slope) */
  CL1_UNARY_SIGMOID = 1,     /* 1 / (1 + exp(-x)) */
  CL1_UNARY_TANH = 2,        /* tanh(x) */
  CL1_UNARY_GELU = 3,        /* 0.5 x (1 + erf(x / sqrt 2)), exact (approximate='none') */
  CL1_UNARY_SELU = 4,        /* scale (x > 0 ? x : alpha expm1(x)), PyTorch's fixed constants */
  CL1_UNARY_HARDSIGMOID = 5, /* clamp(x/6 + 1/2, 0, 1) */
  CL1_UNARY_SOFTPLUS = 6,    /* a*x > b ? x : log1p(exp(a*x)) / a    (a = beta, b = threshold) */
  CL1_UNARY_ELU = 7,         /* x > 0 ? x : a expm1(x)               (a = alpha) */
  CL1_UNARY_HARDTANH = 8,    /* min(max(x, a), b)                    (a = min_val, b = max_val) */
  CL1_UNARY_ABS = 9,         /* |x| */
  CL1_UNARY_ADD_SCALAR = 10, /* x + a      (torch `x + a` / `a + x` with a Python scalar) */
  CL1_UNARY_MUL_SCALAR = 11, /* x * a */
  CL1_UNARY_HARDSWISH = 12,  /* x * clamp(x + 3, 0, 6) / 6                (F.hardswish) */
  CL1_UNARY_MISH = 13,       /* x * tanh(log1p(exp(x)))        (F.mish, as ATen: no threshold) */
  CL1_UNARY_MIN_SCALAR = 14, /* min(x, a), NaN propagates (torch.min(x, tensor(a)), clamp(max=a)) */
  CL1_UNARY_MAX_SCALAR = 15, /* max(x, a), NaN propagates (torch.max(x, tensor(a)), clamp(min=a)) */
  CL1_UNARY_DIV_SCALAR = 16, /* x / a, true division          (x / a with a Python scalar) */
  CL1_UNARY_EXP = 17,        /* exp(x)                        (torch.exp; expf on the GPU) */
  CL1_UNARY_N = 18
} cl1_unary_kind;

/* PyTorch's SELU constants (torch.nn.SELU). */
#define CL1_SELU_ALPHA 1.6732632423543772848170429916717
#define CL1_SELU_SCALE 1.0507009873554804934193349852946

/* y = f_kind(x; a, b) elementwise; x, y: (n); y may alias x. Non-zero for an unknown kind. */
int cl1_op_unary(void *stream, cl1_unary_kind kind, const float *x, float *y, int64_t n,
                 double a, double b);

/* The functions of cl1_op_binary and cl1_op_binary_bcast. */
typedef enum {
  CL1_BINARY_ADD = 0, /* x + z */
  CL1_BINARY_SUB = 1, /* x - z */
  CL1_BINARY_MUL = 2, /* x * z */
  CL1_BINARY_DIV = 3, /* x / z (true division) */
  CL1_BINARY_MIN = 4, /* torch.minimum(x, z), NaN propagates */
  CL1_BINARY_MAX = 5, /* torch.maximum(x, z), NaN propagates */
  CL1_BINARY_N = 6
} cl1_binary_kind;

/* y = x (op) z elementwise, same shapes (no broadcasting); x, z, y: (n); y may alias x or z. */
int cl1_op_binary(void *stream, cl1_binary_kind kind, const float *x, const float *z, float *y,
                  int64_t n);

/* Most dims of a broadcast/strided operand (the ABI's CL1_MAX_DIMS). */
#define CL1_BCAST_MAX_DIMS 8

/* y = x (op) z over `shape` with both operands read through strided views, y contiguous:
 * y[i_0, .., i_{nd-1}] = x[sum_d i_d * xs[d]] (op) z[sum_d i_d * zs[d]]. Strides are in
 * elements and >= 0; a broadcast dim has stride 0, as PyTorch's TensorIterator (a 0-dim
 * parameter: all strides 0; a per-channel (C, 1, 1) bias on (N, C, HW): zs = {0, 1, 0}; a
 * transposed operand: its strides permuted). 1 <= nd <= CL1_BCAST_MAX_DIMS, shape >= 0. y may
 * alias an operand only when that operand's view is y's own contiguous layout. */
int cl1_op_binary_bcast(void *stream, cl1_binary_kind kind, const float *x, const int64_t *xs,
                        const float *z, const int64_t *zs, float *y, int32_t nd,
                        const int64_t *shape);

#ifdef __cplusplus
}
#endif
#endif
