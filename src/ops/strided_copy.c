/* strided_copy.c — host reference for cl1_op_strided_copy: a plain index loop (an odometer over
 * the simplified dims). */
#include "cudal1/ops.h"
#include "host_common.h"
#include "copy_common.h"

int cl1_op_strided_copy(void *stream, int nd, const int64_t *shape, const float *x,
                        const int64_t *x_stride, float *y, const int64_t *y_stride) {
  (void)stream;
  int k;
  int64_t s[8], xs[8], ys[8], n;
  if (cl1_copy_simplify(nd, shape, x_stride, y_stride, &k, s, xs, ys, &n)) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  int64_t idx[8] = {0}, xo = 0, yo = 0;
  for (int64_t e = 0; e < n; e++) {
    y[yo] = x[xo];
    for (int d = k - 1; d >= 0; d--) {  // odometer: carry into the next slower dim
      if (++idx[d] < s[d]) {
        xo += xs[d], yo += ys[d];
        break;
      }
      idx[d] = 0;
      xo -= xs[d] * (s[d] - 1), yo -= ys[d] * (s[d] - 1);
    }
  }
  return 0;
}
