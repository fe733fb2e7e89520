/* ops_act.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Activations and the elementwise arithmetic that KernelBench writes out by hand (Swish as
 * x * sigmoid(x), Softsign as x / (1 + |x|)), so that a reference stays one call per PyTorch op.
 * Formulas and constants are PyTorch's (ATen's CPU/CUDA kernels), in float on the GPU. */
#ifndef CUDAL1_OPS_ACT_H
#define CUDAL1_OPS_ACT_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* The elementwise functions of cl1_op_unary; a and b are the per-kind parameters. */
typedef enum {
  CL1_UNARY_LEAKY_RELU = 0, /* x > 0 ? x : a*x                      (a = negative_slope) */
  CL1_UNARY_SIGMOID = 1,    /* 1 / (1 + exp(-x)) */
  CL1_UNARY_TANH = 2,       /* tanh(x) */
  CL1_UNARY_GELU = 3,       /* 0.5 x (1 + erf(x / sqrt 2)), exact (approximate='none') */
  CL1_UNARY_SELU = 4,       /* scale (x > 0 ? x : alpha expm1(x)), PyTorch's fixed constants */
  CL1_UNARY_HARDSIGMOID = 5,/* clamp(x/6 + 1/2, 0, 1) */
  CL1_UNARY_SOFTPLUS = 6,   /* a*x > b ? x : log1p(exp(a*x)) / a    (a = beta, b = threshold) */
  CL1_UNARY_ELU = 7,        /* x > 0 ? x : a expm1(x)               (a = alpha) */
  CL1_UNARY_HARDTANH = 8,   /* min(max(x, a), b)                    (a = min_val, b = max_val) */
  CL1_UNARY_ABS = 9,        /* |x| */
  CL1_UNARY_ADD_SCALAR = 10,/* x + a      (torch `x + a` / `a + x` with a Python scalar) */
  CL1_UNARY_MUL_SCALAR = 11,/* x * a */
  CL1_UNARY_N = 12
} cl1_unary_kind;

/* PyTorch's SELU constants (torch.nn.SELU). */
#define CL1_SELU_ALPHA 1.6732632423543772848170429916717
#define CL1_SELU_SCALE 1.0507009873554804934193349852946

/* y = f_kind(x; a, b) elementwise; x, y: (n); y may alias x. Non-zero for an unknown kind. */
int cl1_op_unary(void *stream, cl1_unary_kind kind, const float *x, float *y, int64_t n,
                 double a, double b);

/* The elementwise binary functions of cl1_op_binary. */
typedef enum {
  CL1_BINARY_ADD = 0, /* x + z */
  CL1_BINARY_SUB = 1, /* x - z */
  CL1_BINARY_MUL = 2, /* x * z */
  CL1_BINARY_DIV = 3, /* x / z (true division) */
  CL1_BINARY_N = 4
} cl1_binary_kind;

/* y = x (op) z elementwise, same shapes (no broadcasting); x, z, y: (n); y may alias x or z. */
int cl1_op_binary(void *stream, cl1_binary_kind kind, const float *x, const float *z, float *y,
                  int64_t n);

/* LogSoftmax over the last dim: y = x - max - log(sum exp(x - max)). x, y: (rows, cols) */
int cl1_op_log_softmax(void *stream, const float *x, float *y, int64_t rows, int64_t cols);

#ifdef __cplusplus
}
#endif
#endif
