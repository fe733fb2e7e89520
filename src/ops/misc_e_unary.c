/* misc_e_unary.c — host cl1_op_unary_e: each element in double from the float input, rounded
 * to float once. */
#include <assert.h>
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

static double unary_e1(int kind, double v, double a) {
  switch (kind) {
    case CL1_UNARY_E_HARDSWISH: return v * (v + 3 < 0 ? 0 : v + 3 > 6 ? 6 : v + 3) / 6;
    case CL1_UNARY_E_MISH: return v * tanh(log1p(exp(v)));
    /* comparisons so that NaN passes through */
    case CL1_UNARY_E_MIN_SCALAR: return isnan(v) || v < a ? v : a;
    case CL1_UNARY_E_MAX_SCALAR: return isnan(v) || v > a ? v : a;
    case CL1_UNARY_E_DIV_SCALAR: return v / a;
  }
  assert(0 && "kind checked by the caller");
  return NAN;
}

int cl1_op_unary_e(void *stream, int kind, const float *x, float *y, int64_t n, double a) {
  (void)stream;
  if (kind < 0 || kind >= CL1_UNARY_E_N) return 1;
  if (cl1_ops_bad_sizes(n, 0, 0) || (n > 0 && (!x || !y))) return 1;
  for (int64_t i = 0; i < n; i++) y[i] = (float)unary_e1(kind, (double)x[i], a);
  return 0;
}
