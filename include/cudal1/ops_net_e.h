/* ops_net_e.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * Ops first needed by level-3 networks (attention blocks, vision transformers): a general
 * strided copy (what PyTorch does when a permuted/transposed/sliced/expanded view is made
 * contiguous or written into a slice), the causal masked_fill of minGPT attention, exp, and a
 * constant fill (torch.zeros, F.pad's border). */
#ifndef CUDAL1_OPS_NET_E_H
#define CUDAL1_OPS_NET_E_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define CL1_COPY_MAX_DIMS 8
/* y[sum_d i_d * y_stride[d]] = x[sum_d i_d * x_stride[d]] for every index (i_0, .., i_{nd-1})
 * with i_d < shape[d]; strides in elements, >= 0 (0 on x broadcasts, as torch.expand);
 * x_stride / y_stride NULL means that side is contiguous row-major over `shape`. This is
 * x.permute(..).contiguous(), x.transpose(1, 2).contiguous(), a slice x[:, 0], unfold into
 * patches, window partition/reverse, or (with y strides) a copy into a slice of a larger tensor
 * (a torch.cat part, the interior of F.pad). The y positions must not overlap (distinct
 * indices write distinct elements), and y must not alias x. 1 <= nd <= CL1_COPY_MAX_DIMS. */
int cl1_op_strided_copy(void *stream, int nd, const int64_t *shape, const float *x,
                        const int64_t *x_stride, float *y, const int64_t *y_stride);

/* masked_fill of a triangular mask over the last two dims: y[b, i, j] = x[b, i, j] where
 * j - i <= diagonal (upper == 0: the tril part is kept) or j - i >= diagonal (upper != 0),
 * else `value` (e.g. -INFINITY). minGPT's att.masked_fill(tril(ones)[:T, :T] == 0, -inf) is
 * upper = 0, diagonal = 0. x, y: (batch, rows, cols); y may be x. */
int cl1_op_tri_fill(void *stream, const float *x, float *y, int64_t batch, int64_t rows,
                    int64_t cols, int upper, int64_t diagonal, float value);

/* y = exp(x) elementwise (torch.exp; expf on the GPU, as ATen); x, y: (n); y may alias x. */
int cl1_op_exp(void *stream, const float *x, float *y, int64_t n);

/* y[i] = value for i < n: torch.zeros / zeros_like / the constant part of F.pad. y: (n) */
int cl1_op_fill(void *stream, float *y, int64_t n, float value);

#ifdef __cplusplus
}
#endif
#endif
