/* reduce.c — host reference for cl1_op_reduce: (outer, red, inner) -> (outer, inner), the inner
 * dim innermost so that reads are sequential; sums in double. Max/min/arg* follow PyTorch: NaN
 * wins (the first NaN for arg*), ties keep the first index. */
#include <math.h>
#include <stdlib.h>
#include "cudal1/ops.h"
#include "host_common.h"

/* v replaces the current extreme m (found earlier, so ties keep m). */
static int beats(int is_max, float v, float m) {
  if (isnan(m)) return 0;
  if (isnan(v)) return 1;
  return is_max ? v > m : v < m;
}

int cl1_op_reduce(void *stream, int kind, const float *x, void *y, int64_t outer, int64_t red,
                  int64_t inner) {
  (void)stream;
  if (kind < 0 || kind >= CL1_REDUCE_N || cl1_ops_bad_sizes(outer, red, inner)) return 1;
  if (outer * inner == 0) return 0;
  int sum_like = kind == CL1_REDUCE_SUM || kind == CL1_REDUCE_MEAN;
  if (!y || (red > 0 && !x) || (red == 0 && !sum_like)) return 1;
  if (sum_like) {
    float *yf = y;
    double *acc = malloc(sizeof(double) * (size_t)inner);  // (inner)
    if (!acc) return 1;
    for (int64_t o = 0; o < outer; o++) {
      for (int64_t i = 0; i < inner; i++) acc[i] = 0.0;
      for (int64_t r = 0; r < red; r++) {
        const float *xr = x + (o * red + r) * inner;
        for (int64_t i = 0; i < inner; i++) acc[i] += xr[i];
      }
      for (int64_t i = 0; i < inner; i++)
        yf[o * inner + i] = (float)(kind == CL1_REDUCE_MEAN ? acc[i] / (double)red : acc[i]);
    }
    free(acc);
    return 0;
  }
  int is_max = kind == CL1_REDUCE_MAX || kind == CL1_REDUCE_ARGMAX;
  int arg = kind == CL1_REDUCE_ARGMAX || kind == CL1_REDUCE_ARGMIN;
  float *best = malloc(sizeof(float) * (size_t)inner);      // (inner)
  int64_t *idx = malloc(sizeof(int64_t) * (size_t)inner);  // (inner)
  if (!best || !idx) return free(best), free(idx), 1;
  for (int64_t o = 0; o < outer; o++) {
    const float *xo = x + o * red * inner;
    for (int64_t i = 0; i < inner; i++) best[i] = xo[i], idx[i] = 0;
    for (int64_t r = 1; r < red; r++) {
      const float *xr = xo + r * inner;
      for (int64_t i = 0; i < inner; i++)
        if (beats(is_max, xr[i], best[i])) best[i] = xr[i], idx[i] = r;
    }
    for (int64_t i = 0; i < inner; i++) {
      if (arg) ((int64_t *)y)[o * inner + i] = idx[i];
      else ((float *)y)[o * inner + i] = best[i];
    }
  }
  free(best), free(idx);
  return 0;
}
