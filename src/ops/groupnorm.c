/* groupnorm.c — host reference for cl1_op_groupnorm: per (sample, group) two-pass mean/variance
 * in double over the group's contiguous c/groups * hw elements, per-channel affine. */
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_groupnorm(void *stream, const float *x, const float *w, const float *b, float *y,
                     int64_t n, int64_t c, int64_t hw, int64_t groups, double eps) {
  (void)stream;
  if (cl1_ops_bad_sizes(n, c, hw) || groups <= 0 || c % groups || !(eps >= 0)) return 1;
  if (n * c * hw == 0) return 0;
  if (!x || !y) return 1;
  int64_t cg = c / groups, len = cg * hw;
  for (int64_t r = 0; r < n * groups; r++) {
    const float *p = x + r * len;  // (cg, hw)
    float *q = y + r * len;
    double mean = 0.0, var = 0.0;
    for (int64_t j = 0; j < len; j++) mean += p[j];
    mean /= (double)len;
    for (int64_t j = 0; j < len; j++) var += (p[j] - mean) * (p[j] - mean);
    var /= (double)len;  // biased, as PyTorch
    double rstd = 1.0 / sqrt(var + eps);
    for (int64_t k = 0; k < cg; k++) {
      int64_t ch = (r % groups) * cg + k;
      double g = w ? w[ch] : 1.0, beta = b ? b[ch] : 0.0;
      for (int64_t j = k * hw; j < (k + 1) * hw; j++)
        q[j] = (float)((p[j] - mean) * rstd * g + beta);
    }
  }
  return 0;
}
