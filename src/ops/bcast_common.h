/* bcast_common.h — the argument check the host and CUDA cl1_op_binary_bcast share, so both
 * backends refuse exactly the same calls (ops_elementwise.h states the contract). */
#ifndef CL1_OPS_BCAST_COMMON_H
#define CL1_OPS_BCAST_COMMON_H
#include <stdint.h>
#include "cudal1/ops.h"

/* 1 on invalid arguments, else 0 with *numel the element count (0: nothing to compute, and the
 * data pointers may then be NULL). */
static inline int cl1_bcast_check(cl1_binary_kind kind, const float *x, const int64_t *xs,
                                  const float *z, const int64_t *zs, const float *y, int32_t nd,
                                  const int64_t *shape, int64_t *numel) {
  *numel = 0;
  if ((unsigned)kind >= CL1_BINARY_N || nd < 1 || nd > CL1_BCAST_MAX_DIMS || !shape || !xs ||
      !zs)
    return 1;
  int64_t n = 1;
  for (int32_t k = 0; k < nd; k++) {
    if (shape[k] < 0 || xs[k] < 0 || zs[k] < 0) return 1;
    n *= shape[k];
  }
  *numel = n;
  return n && (!x || !z || !y);
}
#endif
