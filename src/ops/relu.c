/* relu.c — host reference for cl1_op_relu. */
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_relu(void *stream, const float *x, float *y, int64_t n) {
  (void)stream;
  if (cl1_ops_bad_sizes(n, 0, 0) || (n > 0 && (!x || !y))) return 1;
  /* x > 0 ? x : 0 keeps NaN out of the positive branch, as torch.relu maps NaN to NaN */
  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : (x[i] != x[i] ? x[i] : 0.0f);
  return 0;
}
