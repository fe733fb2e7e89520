/* misc_e_bcast.c — host cl1_op_binary_bcast: PyTorch broadcasting of two operands over a
 * (d0, d1, d2) output through per-operand strides (0 = broadcast), in double, rounded once. */
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

static double bcast1(int kind, double u, double v) {
  switch (kind) {
    case CL1_BCAST_ADD: return u + v;
    case CL1_BCAST_SUB: return u - v;
    case CL1_BCAST_MUL: return u * v;
    case CL1_BCAST_DIV: return u / v;
    case CL1_BCAST_MIN: return isnan(u) || isnan(v) ? NAN : u < v ? u : v;
    default: return isnan(u) || isnan(v) ? NAN : u > v ? u : v;
  }
}

int cl1_op_binary_bcast(void *stream, int kind, const float *x, const int64_t xs[3],
                        const float *z, const int64_t zs[3], float *y, const int64_t dims[3]) {
  (void)stream;
  if (kind < 0 || kind >= CL1_BCAST_N || !xs || !zs || !dims) return 1;
  if (cl1_ops_bad_sizes(dims[0], dims[1], dims[2]) || cl1_ops_bad_sizes(xs[0], xs[1], xs[2]) ||
      cl1_ops_bad_sizes(zs[0], zs[1], zs[2]))
    return 1;
  if (dims[0] * dims[1] * dims[2] == 0) return 0;
  if (!x || !z || !y) return 1;
  for (int64_t a = 0; a < dims[0]; a++)
    for (int64_t b = 0; b < dims[1]; b++)
      for (int64_t c = 0; c < dims[2]; c++) {
        double u = x[a * xs[0] + b * xs[1] + c * xs[2]], v = z[a * zs[0] + b * zs[1] + c * zs[2]];
        y[(a * dims[1] + b) * dims[2] + c] = (float)bcast1(kind, u, v);
      }
  return 0;
}
