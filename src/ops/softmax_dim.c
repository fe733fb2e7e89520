/* softmax_dim.c — host cl1_op_softmax_dim: softmax over the middle dim of
 * (outer, n, inner), max-shifted, in double. */
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_softmax_dim(void *stream, const float *x, float *y, int64_t outer, int64_t n,
                       int64_t inner) {
  (void)stream;
  if (cl1_ops_bad_sizes(outer, n, inner)) return 1;
  if (outer * n * inner == 0) return 0;
  if (!x || !y || x == y) return 1;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      const float *p = x + o * n * inner + i;
      float *q = y + o * n * inner + i;
      double m = -INFINITY;
      for (int64_t r = 0; r < n; r++) m = fmax(m, (double)p[r * inner]);
      double s = 0;
      for (int64_t r = 0; r < n; r++) s += exp((double)p[r * inner] - m);
      for (int64_t r = 0; r < n; r++) q[r * inner] = (float)(exp((double)p[r * inner] - m) / s);
    }
  return 0;
}
