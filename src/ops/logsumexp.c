/* logsumexp.c — host cl1_op_logsumexp (torch.logsumexp over a middle dim) in double:
 * the max shift with +-inf shifted by 0, as ATen, so -inf rows stay -inf and +inf rows +inf. */
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_logsumexp(void *stream, const float *x, float *y, int64_t outer, int64_t red,
                     int64_t inner) {
  (void)stream;
  if (cl1_ops_bad_sizes(outer, red, inner) || red < 1) return 1;
  if (outer * inner == 0) return 0;
  if (!x || !y) return 1;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      const float *p = x + o * red * inner + i;
      double m = -INFINITY;
      int nan = 0;
      for (int64_t r = 0; r < red; r++) {
        double v = p[r * inner];
        if (isnan(v)) nan = 1;
        else if (v > m) m = v;
      }
      if (nan) {
        y[o * inner + i] = NAN;
        continue;
      }
      if (isinf(m)) m = 0;
      double s = 0;
      for (int64_t r = 0; r < red; r++) s += exp((double)p[r * inner] - m);
      y[o * inner + i] = (float)(log(s) + m);
    }
  return 0;
}
