/* tri.c — host references for cl1_op_tri (torch.triu / torch.tril over the last two dims; the
 * masked part is written as 0 whatever x holds there, NaN included, as PyTorch does) and
 * cl1_op_tri_fill (the same mask filled with a value). */
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_tri(void *stream, const float *x, float *y, int64_t batch, int64_t rows, int64_t cols,
               int upper, int64_t diagonal) {
  (void)stream;
  if (cl1_ops_bad_sizes(batch, rows, cols)) return 1;
  if (batch * rows * cols == 0) return 0;
  if (!x || !y) return 1;
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < rows; i++) {
      const int64_t base = (b * rows + i) * cols;
      for (int64_t j = 0; j < cols; j++) {
        int keep = upper ? j - i >= diagonal : j - i <= diagonal;
        y[base + j] = keep ? x[base + j] : 0.f;
      }
    }
  return 0;
}

int cl1_op_tri_fill(void *stream, const float *x, float *y, int64_t batch, int64_t rows,
                    int64_t cols, int upper, int64_t diagonal, float value) {
  (void)stream;
  if (cl1_ops_bad_sizes(batch, rows, cols)) return 1;
  if (batch * rows * cols == 0) return 0;
  if (!x || !y) return 1;
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < rows; i++)
      for (int64_t j = 0; j < cols; j++) {
        int64_t o = (b * rows + i) * cols + j;
        int keep = upper ? j - i >= diagonal : j - i <= diagonal;
        y[o] = keep ? x[o] : value;
      }
  return 0;
}
