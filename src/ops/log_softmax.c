/* log_softmax.c — host reference for cl1_op_log_softmax: max-shifted, log-sum-exp in double. */
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_log_softmax(void *stream, const float *x, float *y, int64_t rows, int64_t cols) {
  (void)stream;
  if (cl1_ops_bad_sizes(rows, cols, 0) || (rows * cols > 0 && (!x || !y))) return 1;
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;  // (cols)
    float *yr = y + r * cols;
    double m = -INFINITY;
    for (int64_t j = 0; j < cols; j++) m = xr[j] > m ? xr[j] : m;
    double s = 0.0;
    for (int64_t j = 0; j < cols; j++) s += exp((double)xr[j] - m);
    double lse = m + log(s);
    for (int64_t j = 0; j < cols; j++) yr[j] = (float)((double)xr[j] - lse);
  }
  return 0;
}
