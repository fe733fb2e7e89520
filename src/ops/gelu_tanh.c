/* gelu_tanh.c — host reference for cl1_op_gelu_tanh (minGPT's NewGELU), in double. */
#include <math.h>
#include "cudal1/ops.h"

int cl1_op_gelu_tanh(void *stream, const float *x, float *y, int64_t n) {
  (void)stream;
  if (n < 0) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  const double c = sqrt(2.0 / M_PI);
  for (int64_t i = 0; i < n; i++) {
    double v = x[i];
    y[i] = (float)(0.5 * v * (1.0 + tanh(c * (v + 0.044715 * v * v * v))));
  }
  return 0;
}
