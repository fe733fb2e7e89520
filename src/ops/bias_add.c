/* bias_add.c — host reference for cl1_op_bias_add: y[o, c, i] = x[o, c, i] + bias[c]. */
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_bias_add(void *stream, const float *x, const float *bias, float *y, int64_t outer,
                    int64_t C, int64_t inner) {
  (void)stream;
  if (cl1_ops_bad_sizes(outer, C, inner)) return 1;
  if (outer * C * inner == 0) return 0;
  if (!x || !bias || !y) return 1;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < C; c++) {
      int64_t base = (o * C + c) * inner;
      float bc = bias[c];
      for (int64_t i = 0; i < inner; i++) y[base + i] = x[base + i] + bc;
    }
  return 0;
}
