/* batchnorm.c — host reference for cl1_op_batchnorm_train: per-channel two-pass mean/variance
 * in double over the batch, then the affine normalisation. */
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_batchnorm_train(void *stream, const float *x, const float *w, const float *b,
                           float *y, int64_t n, int64_t c, int64_t hw, double eps) {
  (void)stream;
  if (cl1_ops_bad_sizes(n, c, hw) || !(eps >= 0)) return 1;
  if (n * c * hw == 0) return 0;
  if (!x || !y) return 1;
  double cnt = (double)(n * hw);
  for (int64_t ch = 0; ch < c; ch++) {
    double mean = 0.0, var = 0.0;
    for (int64_t s = 0; s < n; s++) {
      const float *p = x + (s * c + ch) * hw;  // (hw)
      for (int64_t j = 0; j < hw; j++) mean += p[j];
    }
    mean /= cnt;
    for (int64_t s = 0; s < n; s++) {
      const float *p = x + (s * c + ch) * hw;
      for (int64_t j = 0; j < hw; j++) var += (p[j] - mean) * (p[j] - mean);
    }
    var /= cnt;  // biased: training-mode normalisation divides by the count
    double rstd = 1.0 / sqrt(var + eps), g = w ? w[ch] : 1.0, beta = b ? b[ch] : 0.0;
    for (int64_t s = 0; s < n; s++) {
      const float *p = x + (s * c + ch) * hw;
      float *q = y + (s * c + ch) * hw;
      for (int64_t j = 0; j < hw; j++) q[j] = (float)((p[j] - mean) * rstd * g + beta);
    }
  }
  return 0;
}
