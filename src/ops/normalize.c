/* normalize.c — host reference for cl1_op_normalize: y = x / d with d from a double-accumulated
 * reduction over the middle dim (see ops_norm.h for the kinds). */
#include <math.h>
#include <stdlib.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_normalize(void *stream, int kind, const float *x, float *y, int64_t outer,
                     int64_t red, int64_t inner, double eps) {
  (void)stream;
  if (kind < 0 || kind >= CL1_NORM_N || cl1_ops_bad_sizes(outer, red, inner) || !(eps >= 0))
    return 1;
  if (outer * red * inner == 0) return 0;
  if (!x || !y) return 1;
  int sq = kind == CL1_NORM_L2 || kind == CL1_NORM_RMS;
  int mean = kind == CL1_NORM_MEAN_ABS || kind == CL1_NORM_RMS;
  double *d = malloc(sizeof(double) * (size_t)inner);  // (inner)
  if (!d) return 1;
  for (int64_t o = 0; o < outer; o++) {
    const float *xo = x + o * red * inner;  // (red, inner)
    float *yo = y + o * red * inner;
    for (int64_t i = 0; i < inner; i++) d[i] = 0.0;
    for (int64_t r = 0; r < red; r++)
      for (int64_t i = 0; i < inner; i++) {
        double v = xo[r * inner + i];
        d[i] += sq ? v * v : fabs(v);
      }
    for (int64_t i = 0; i < inner; i++) {
      double s = mean ? d[i] / (double)red : d[i];
      d[i] = sq ? sqrt(s + eps) : s + eps;
    }
    for (int64_t r = 0; r < red; r++)
      for (int64_t i = 0; i < inner; i++) yo[r * inner + i] = (float)(xo[r * inner + i] / d[i]);
  }
  free(d);
  return 0;
}
