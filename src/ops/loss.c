/* loss.c — host reference for cl1_op_loss and cl1_op_cross_entropy: every term and every sum in
 * double, one float result. */
#include <math.h>
#include "cudal1/ops.h"

int cl1_op_loss(void *stream, int kind, const float *a, const float *b, const float *c,
                float *y, int64_t rows, int64_t cols, double p) {
  (void)stream;
  if (kind < 0 || kind >= CL1_LOSS_N || rows < 1 || cols < 1) return 1;
  if (!a || !b || !y || (kind == CL1_LOSS_TRIPLET && !c)) return 1;
  if (kind == CL1_LOSS_HUBER && !(p > 0)) return 1;
  double sum = 0.0;
  for (int64_t r = 0; r < rows; r++) {
    const float *ar = a + r * cols, *br = kind == CL1_LOSS_HINGE ? b : b + r * cols;
    if (kind == CL1_LOSS_TRIPLET) {
      const float *cr = c + r * cols;
      double dp = 0.0, dn = 0.0;
      for (int64_t j = 0; j < cols; j++) {
        double u = (double)ar[j] - br[j] + CL1_TRIPLET_EPS, w = (double)ar[j] - cr[j] + CL1_TRIPLET_EPS;
        dp += u * u, dn += w * w;
      }
      double l = sqrt(dp) - sqrt(dn) + p;
      sum += l > 0 ? l : 0.0;
      continue;
    }
    for (int64_t j = 0; j < cols; j++) {
      double u = ar[j], t = br[j], d = u - t, l;
      switch (kind) {
      case CL1_LOSS_MSE: l = d * d; break;
      case CL1_LOSS_HUBER: l = fabs(d) < p ? 0.5 * d * d / p : fabs(d) - 0.5 * p; break;
      case CL1_LOSS_KL_DIV: l = t == 0.0 ? 0.0 : t * (log(t) - log(u)); break;
      default: l = 1.0 - u * t, l = l > 0 ? l : 0.0; break;  // HINGE
      }
      sum += l;
    }
  }
  double n = kind == CL1_LOSS_KL_DIV || kind == CL1_LOSS_TRIPLET ? (double)rows
                                                                 : (double)rows * (double)cols;
  y[0] = (float)(sum / n);
  return 0;
}

int cl1_op_cross_entropy(void *stream, const float *x, const int64_t *target, float *y,
                         int64_t rows, int64_t cols) {
  (void)stream;
  if (rows < 1 || cols < 1 || !x || !target || !y) return 1;
  double sum = 0.0;
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    if (target[r] < 0 || target[r] >= cols) return 1;
    double m = xr[0], s = 0.0;
    for (int64_t j = 1; j < cols; j++) m = xr[j] > m ? xr[j] : m;
    for (int64_t j = 0; j < cols; j++) s += exp((double)xr[j] - m);
    sum += m + log(s) - xr[target[r]];
  }
  y[0] = (float)(sum / (double)rows);
  return 0;
}
