/* mul_channel.c — host reference for cl1_op_mul_channel: y[o, c, i] = x[o, c, i] * s[c], one
 * fp32 product per element (PyTorch's broadcast multiply). */
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_mul_channel(void *stream, const float *x, const float *s, float *y, int64_t outer,
                       int64_t C, int64_t inner) {
  (void)stream;
  if (cl1_ops_bad_sizes(outer, C, inner)) return 1;
  if (outer * C * inner == 0) return 0;
  if (!x || !s || !y) return 1;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t c = 0; c < C; c++) {
      const float sc = s[c];
      const int64_t base = (o * C + c) * inner;
      for (int64_t i = 0; i < inner; i++) y[base + i] = x[base + i] * sc;
    }
  return 0;
}
