/* net_e_exp.c — host reference for cl1_op_exp and cl1_op_fill. */
#include <math.h>
#include "cudal1/ops.h"

int cl1_op_exp(void *stream, const float *x, float *y, int64_t n) {
  (void)stream;
  if (n < 0) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  for (int64_t i = 0; i < n; i++) y[i] = (float)exp((double)x[i]);
  return 0;
}

int cl1_op_fill(void *stream, float *y, int64_t n, float value) {
  (void)stream;
  if (n < 0) return 1;
  if (n == 0) return 0;
  if (!y) return 1;
  for (int64_t i = 0; i < n; i++) y[i] = value;
  return 0;
}
