/* ops_net_b.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Ops first needed by level-3 networks (Swin Transformer V2): uploading constant tables a module
 * builds in __init__ (relative-position indices, shift masks), an index gather of table rows
 * (tensor[index] with an int64 index tensor), and torch.roll over two adjacent dims (the
 * cyclic shift of shifted-window attention). */
#ifndef CUDAL1_OPS_NET_B_H
#define CUDAL1_OPS_NET_B_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Copies `bytes` bytes from host memory `src` to `dst` (memory from cl1_op_alloc: device memory
 * on the CUDA backend, host memory on the host one). For cl1_setup: the copy has completed when
 * the call returns, so `src` may be freed at once. */
int cl1_op_upload(void *stream, void *dst, const void *src, size_t bytes);

/* y[i, :] = table[index[i], :] for i < n (table[index] with an int64 index tensor, as
 * torch.index_select(table, 0, index)). index lives where the op runs (device memory on CUDA,
 * from cl1_op_alloc + cl1_op_upload). Every index must be in [0, rows): the host version returns
 * non-zero otherwise, the CUDA version writes NaN rows for it. table: (rows, cols), y: (n, cols);
 * y must not overlap table. */
int cl1_op_gather_rows(void *stream, const float *table, const int64_t *index, float *y,
                       int64_t n, int64_t rows, int64_t cols);

/* torch.roll(x, shifts=(s1, s2), dims=(1, 2)) with x viewed as (outer, d1, d2, inner):
 * y[o, (i + s1) mod d1, (j + s2) mod d2, k] = x[o, i, j, k]; shifts may be negative or exceed
 * the dim. x, y: (outer, d1, d2, inner), y must not overlap x. */
int cl1_op_roll2(void *stream, const float *x, float *y, int64_t outer, int64_t d1, int64_t d2,
                 int64_t inner, int64_t s1, int64_t s2);

#ifdef __cplusplus
}
#endif
#endif
