/* host_common.h — what the host (C loop) ops share: argument checks. Host ops accumulate in
 * double so that they serve as a float64-checked reference for the PyTorch twins. */
#ifndef CL1_OPS_HOST_COMMON_H
#define CL1_OPS_HOST_COMMON_H
#include <stddef.h>
#include <stdint.h>

/* Non-zero when any size is negative: callers return it as the op's error. */
static inline int cl1_ops_bad_sizes(int64_t a, int64_t b, int64_t c) {
  return a < 0 || b < 0 || c < 0;
}
#endif
