/* host_common.h — what the host (C loop) ops share: argument checks and the binary functions.
 * Host ops accumulate in double so that they serve as a float64-checked reference for the
 * PyTorch twins. */
#ifndef CL1_OPS_HOST_COMMON_H
#define CL1_OPS_HOST_COMMON_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "cudal1/ops.h"

/* Non-zero when any size is negative: callers return it as the op's error. */
static inline int cl1_ops_bad_sizes(int64_t a, int64_t b, int64_t c) {
  return a < 0 || b < 0 || c < 0;
}

/* u (op) v in double for a valid cl1_binary_kind; min/max by comparison so that NaN in either
 * operand propagates, as torch.minimum/maximum. */
static inline double cl1_ops_binary1(cl1_binary_kind kind, double u, double v) {
  switch (kind) {
    case CL1_BINARY_ADD: return u + v;
    case CL1_BINARY_SUB: return u - v;
    case CL1_BINARY_MUL: return u * v;
    case CL1_BINARY_DIV: return u / v;
    case CL1_BINARY_MIN: return isnan(u) || isnan(v) ? NAN : u < v ? u : v;
    case CL1_BINARY_MAX: return isnan(u) || isnan(v) ? NAN : u > v ? u : v;
    case CL1_BINARY_N: break;
  }
  return NAN;
}
#endif
