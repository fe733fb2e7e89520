/* sum_dim.c — host reference for cl1_op_sum_dim: (outer, red, inner) -> (outer, inner), summed
 * in double with the inner dim innermost so that reads are sequential. */
#include <stdlib.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_sum_dim(void *stream, const float *x, float *y, int64_t outer, int64_t red,
                   int64_t inner) {
  (void)stream;
  if (cl1_ops_bad_sizes(outer, red, inner)) return 1;
  if (outer * inner == 0) return 0;
  if (!y || (red > 0 && !x)) return 1;
  double *acc = malloc(sizeof(double) * (size_t)inner);  // (inner)
  if (!acc) return 1;
  for (int64_t o = 0; o < outer; o++) {
    for (int64_t i = 0; i < inner; i++) acc[i] = 0.0;
    for (int64_t r = 0; r < red; r++) {
      const float *xr = x + (o * red + r) * inner;
      for (int64_t i = 0; i < inner; i++) acc[i] += xr[i];
    }
    for (int64_t i = 0; i < inner; i++) y[o * inner + i] = (float)acc[i];
  }
  free(acc);
  return 0;
}
