/* layernorm.c — host reference for cl1_op_layernorm: two-pass mean/variance in double. */
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_layernorm(void *stream, const float *x, const float *w, const float *b, float *y,
                     int64_t rows, int64_t cols, double eps) {
  (void)stream;
  if (cl1_ops_bad_sizes(rows, cols, 0) || eps < 0) return 1;
  if (rows * cols == 0) return 0;
  if (!x || !y) return 1;
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;  // (cols)
    float *yr = y + r * cols;
    double mean = 0.0, var = 0.0;
    for (int64_t j = 0; j < cols; j++) mean += xr[j];
    mean /= (double)cols;
    for (int64_t j = 0; j < cols; j++) {
      double d = xr[j] - mean;
      var += d * d;
    }
    var /= (double)cols;  // biased, as PyTorch
    double rstd = 1.0 / sqrt(var + eps);
    for (int64_t j = 0; j < cols; j++) {
      double v = (xr[j] - mean) * rstd;
      if (w) v *= w[j];
      if (b) v += b[j];
      yr[j] = (float)v;
    }
  }
  return 0;
}
