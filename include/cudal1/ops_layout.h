/* ops_layout.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Data movement: one strided copy (what PyTorch does when a permuted/transposed/sliced/expanded
 * view is made contiguous, or a tensor is written into a slice of a larger one: torch.cat,
 * F.pad's interior), the cyclic shift torch.roll, a row gather (tensor[index]) and a constant
 * fill (torch.zeros, F.pad's border). */
#ifndef CUDAL1_OPS_LAYOUT_H
#define CUDAL1_OPS_LAYOUT_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define CL1_COPY_MAX_DIMS 8
/* y[sum_d i_d * y_stride[d]] = x[sum_d i_d * x_stride[d]] for every index (i_0, .., i_{nd-1})
 * with i_d < shape[d]; strides in elements, >= 0 (0 on x broadcasts, as torch.expand);
 * x_stride / y_stride NULL means that side is contiguous row-major over `shape`; the view may
 * start anywhere (pass x + offset, y + offset). This is x.permute(..).contiguous(),
 * x.transpose(1, 2).contiguous(), a slice x[:, 0] or x[:, :k], a channel shuffle of (N, C, H, W)
 * into g groups (shape (N, C/g, g, H*W), x strides (C*H*W, H*W, C/g*H*W, 1)), unfold into
 * patches, window partition/reverse, or (with y strides) a copy into a slice of a larger tensor
 * (a torch.cat part: cl1_cat_part, the interior of F.pad). The y positions must not overlap
 * (distinct indices write distinct elements), and y must not alias x.
 * 1 <= nd <= CL1_COPY_MAX_DIMS, shape >= 0. */
int cl1_op_strided_copy(void *stream, int nd, const int64_t *shape, const float *x,
                        const int64_t *x_stride, float *y, const int64_t *y_stride);

/* One part of torch.cat along a dim, as a strided copy: y[o, offset + i] = x[o, i] for
 * i < inner_x, with every tensor viewed as (outer, inner): outer = product of the dims before
 * the cat dim, inner = cat dim x the dims after it. torch.cat([a, b], dim=1) on (N, Ca, H, W)
 * and (N, Cb, H, W) is two calls: (outer N, inner_x Ca*H*W, offset 0) and (N, Cb*H*W, offset
 * Ca*H*W), inner_y = (Ca+Cb)*H*W. x: (outer, inner_x), y: (outer, inner_y). */
static inline int cl1_cat_part(void *stream, const float *x, float *y, int64_t outer,
                               int64_t inner_x, int64_t inner_y, int64_t offset) {
  if (inner_x < 0 || offset < 0 || offset + inner_x > inner_y) return 1;
  const int64_t shape[2] = {outer, inner_x}, y_stride[2] = {inner_y, 1};
  return cl1_op_strided_copy(stream, 2, shape, x, NULL, y ? y + offset : y, y_stride);
}

/* torch.roll(x, shifts=(s1, s2), dims=(1, 2)) with x viewed as (outer, d1, d2, inner):
 * y[o, (i + s1) mod d1, (j + s2) mod d2, k] = x[o, i, j, k]; shifts may be negative or exceed
 * the dim (the cyclic shift of shifted-window attention). x, y: (outer, d1, d2, inner), y must
 * not overlap x. */
int cl1_op_roll2(void *stream, const float *x, float *y, int64_t outer, int64_t d1, int64_t d2,
                 int64_t inner, int64_t s1, int64_t s2);

/* y[i, :] = table[index[i], :] for i < n (table[index] with an int64 index tensor, as
 * torch.index_select(table, 0, index)). index lives where the op runs (device memory on CUDA,
 * from cl1_op_alloc + cl1_op_upload). Every index must be in [0, rows): the host version returns
 * non-zero otherwise, the CUDA version writes NaN rows for it. table: (rows, cols), y: (n, cols);
 * y must not overlap table. */
int cl1_op_gather_rows(void *stream, const float *table, const int64_t *index, float *y,
                       int64_t n, int64_t rows, int64_t cols);

/* y[i] = value for i < n: torch.zeros / zeros_like / the constant part of F.pad. y: (n) */
int cl1_op_fill(void *stream, float *y, int64_t n, float value);

#ifdef __cplusplus
}
#endif
#endif
