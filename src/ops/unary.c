/* unary.c — host references for cl1_op_unary and cl1_op_binary: each element computed in double
 * from the float input, then rounded to float once (the float64-checked reference). */
#include <assert.h>
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

/* Comparisons rather than fmin/fmax so that NaN passes through, as in PyTorch. */
static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

static double unary1(cl1_unary_kind kind, double v, double a, double b) {
  switch (kind) {
    case CL1_UNARY_LEAKY_RELU: return v > 0 ? v : a * v;
    case CL1_UNARY_SIGMOID: return 1.0 / (1.0 + exp(-v));
    case CL1_UNARY_TANH: return tanh(v);
    case CL1_UNARY_GELU: return 0.5 * v * (1.0 + erf(v * M_SQRT1_2));
    case CL1_UNARY_SELU: return CL1_SELU_SCALE * (v > 0 ? v : CL1_SELU_ALPHA * expm1(v));
    case CL1_UNARY_HARDSIGMOID: return clampd(v / 6.0 + 0.5, 0.0, 1.0);
    case CL1_UNARY_SOFTPLUS: return a * v > b ? v : log1p(exp(a * v)) / a;
    case CL1_UNARY_ELU: return v > 0 ? v : a * expm1(v);
    case CL1_UNARY_HARDTANH: return clampd(v, a, b);
    case CL1_UNARY_ABS: return fabs(v);
    case CL1_UNARY_ADD_SCALAR: return v + a;
    case CL1_UNARY_MUL_SCALAR: return v * a;
    case CL1_UNARY_HARDSWISH: return v * clampd(v + 3, 0, 6) / 6;
    case CL1_UNARY_MISH: return v * tanh(log1p(exp(v)));
    /* comparisons so that NaN passes through */
    case CL1_UNARY_MIN_SCALAR: return isnan(v) || v < a ? v : a;
    case CL1_UNARY_MAX_SCALAR: return isnan(v) || v > a ? v : a;
    case CL1_UNARY_DIV_SCALAR: return v / a;
    case CL1_UNARY_EXP: return exp(v);
    case CL1_UNARY_N: break;
  }
  assert(0 && "kind checked by the caller");
  return NAN;
}

int cl1_op_unary(void *stream, cl1_unary_kind kind, const float *x, float *y, int64_t n,
                 double a, double b) {
  (void)stream;
  if ((unsigned)kind >= CL1_UNARY_N) return 1;
  if (cl1_ops_bad_sizes(n, 0, 0) || (n > 0 && (!x || !y))) return 1;
  for (int64_t i = 0; i < n; i++) y[i] = (float)unary1(kind, (double)x[i], a, b);
  return 0;
}

int cl1_op_binary(void *stream, cl1_binary_kind kind, const float *x, const float *z, float *y,
                  int64_t n) {
  (void)stream;
  if ((unsigned)kind >= CL1_BINARY_N) return 1;
  if (cl1_ops_bad_sizes(n, 0, 0) || (n > 0 && (!x || !z || !y))) return 1;
  for (int64_t i = 0; i < n; i++) y[i] = (float)cl1_ops_binary1(kind, x[i], z[i]);
  return 0;
}
