/* binary_bcast.c — host cl1_op_binary_bcast: PyTorch broadcasting of two strided operands over
 * a contiguous output, an odometer walk over the output's index space with both operand
 * offsets kept in step; each element in double, rounded once. */
#include "cudal1/ops.h"
#include "host_common.h"
#include "bcast_common.h"

int cl1_op_binary_bcast(void *stream, cl1_binary_kind kind, const float *x, const int64_t *xs,
                        const float *z, const int64_t *zs, float *y, int32_t nd,
                        const int64_t *shape) {
  (void)stream;
  int64_t n;
  if (cl1_bcast_check(kind, x, xs, z, zs, y, nd, shape, &n)) return 1;
  if (n == 0) return 0;
  int64_t idx[CL1_BCAST_MAX_DIMS] = {0}, ox = 0, oz = 0;
  for (int64_t i = 0; i < n; i++) {
    y[i] = (float)cl1_ops_binary1(kind, x[ox], z[oz]);
    for (int32_t k = nd - 1; k >= 0; k--) {  // odometer: carry into the next slower dim
      ox += xs[k], oz += zs[k];
      if (++idx[k] < shape[k]) break;
      ox -= xs[k] * shape[k], oz -= zs[k] * shape[k];
      idx[k] = 0;
    }
  }
  return 0;
}
