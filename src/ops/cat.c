/* cat.c — host reference for cl1_op_cat_part: one input's rows copied into its column range of
 * the concatenated output. */
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_cat_part(void *stream, const float *x, float *y, int64_t outer, int64_t inner_x,
                    int64_t inner_y, int64_t offset) {
  (void)stream;
  if (cl1_ops_bad_sizes(outer, inner_x, inner_y) || offset < 0 || offset + inner_x > inner_y)
    return 1;
  if (outer * inner_x == 0) return 0;
  if (!x || !y) return 1;
  for (int64_t o = 0; o < outer; o++)
    memcpy(y + o * inner_y + offset, x + o * inner_x, (size_t)inner_x * sizeof(float));
  return 0;
}
