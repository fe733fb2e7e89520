/* scan.c — host reference for cl1_op_scan: cumsum/cumprod over the middle dim of
 * (outer, n, inner), running value in double, with reverse/exclusive/mask flags. */
#include <stdlib.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_scan(void *stream, int kind, const float *x, const uint8_t *mask, float *y,
                int64_t outer, int64_t n, int64_t inner, int reverse, int exclusive) {
  (void)stream;
  if (kind < 0 || kind >= CL1_SCAN_N || cl1_ops_bad_sizes(outer, n, inner)) return 1;
  if (outer * n * inner == 0) return 0;
  if (!x || !y) return 1;
  int prod = kind == CL1_SCAN_PROD;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      double acc = prod ? 1.0 : 0.0;
      for (int64_t s = 0; s < n; s++) {
        int64_t k = reverse ? n - 1 - s : s;
        int64_t at = (o * n + k) * inner + i;
        // PyTorch's `x * mask` rounds to float before the scan
        double v = mask ? (double)(x[at] * (float)mask[at]) : (double)x[at];
        if (exclusive) y[at] = (float)acc;
        acc = prod ? acc * v : acc + v;
        if (!exclusive) y[at] = (float)acc;
      }
    }
  return 0;
}
