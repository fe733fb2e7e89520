/* layout.c — host versions of the data-movement ops besides the strided copy:
 * cl1_op_gather_rows, cl1_op_roll2 and cl1_op_fill; plain index loops. */
#include <string.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_gather_rows(void *stream, const float *table, const int64_t *index, float *y,
                       int64_t n, int64_t rows, int64_t cols) {
  (void)stream;
  if (cl1_ops_bad_sizes(n, rows, cols)) return 1;
  if (n == 0 || cols == 0) return 0;
  if (!table || !index || !y) return 1;
  for (int64_t i = 0; i < n; i++)
    if (index[i] < 0 || index[i] >= rows) return 1;
  for (int64_t i = 0; i < n; i++)
    memcpy(y + i * cols, table + index[i] * cols, (size_t)cols * sizeof(float));
  return 0;
}

/* s mod d in [0, d) for any sign of s */
static int64_t wrap(int64_t s, int64_t d) {
  const int64_t r = s % d;
  return r < 0 ? r + d : r;
}

int cl1_op_roll2(void *stream, const float *x, float *y, int64_t outer, int64_t d1, int64_t d2,
                 int64_t inner, int64_t s1, int64_t s2) {
  (void)stream;
  if (cl1_ops_bad_sizes(outer, d1, d2) || inner < 0) return 1;
  if (outer * d1 * d2 * inner == 0) return 0;
  if (!x || !y) return 1;
  const int64_t a = wrap(s1, d1), b = wrap(s2, d2);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < d1; i++)
      for (int64_t j = 0; j < d2; j++) {
        const int64_t yi = i + a < d1 ? i + a : i + a - d1, yj = j + b < d2 ? j + b : j + b - d2;
        memcpy(y + ((o * d1 + yi) * d2 + yj) * inner, x + ((o * d1 + i) * d2 + j) * inner,
               (size_t)inner * sizeof(float));
      }
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
