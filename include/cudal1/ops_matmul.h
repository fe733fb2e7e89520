/* ops_matmul.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * The matmul family: a general (batched, transposed) GEMM and the elementwise companions that
 * KernelBench's matmul tasks need (per-row scaling, triu/tril and the triangular masked_fill of
 * causal attention scores); the matrix-scalar product is cl1_op_unary's CL1_UNARY_MUL_SCALAR
 * (ops_elementwise.h). */
#ifndef CUDAL1_OPS_MATMUL_H
#define CUDAL1_OPS_MATMUL_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* C[b] = op(A[b]) @ op(B[b]) for b < batch, in full FP32 (no TF32), row-major contiguous
 * matrices. op(A) is (M, K): A is stored (M, K), or (K, M) when trans_a != 0. op(B) is (K, N): B
 * is stored (K, N), or (N, K) when trans_b != 0. C[b] is (M, N). Matrix b of A starts at
 * A + b * stride_a (elements; likewise B, C); stride_a or stride_b 0 broadcasts one matrix to
 * every batch. stride_c must be >= M*N when batch > 1 (outputs never overlap). */
int cl1_op_gemm_ex(void *stream, int trans_a, int trans_b, const float *A, const float *B,
                   float *C, int64_t M, int64_t N, int64_t K, int64_t batch, int64_t stride_a,
                   int64_t stride_b, int64_t stride_c);

/* y[o, c, i] = x[o, c, i] * s[c] (a per-channel broadcast multiply; e.g. diag(s) @ X is
 * outer = 1, C = rows, inner = cols). x, y: (outer, C, inner); s: (C); y may be x. */
int cl1_op_mul_channel(void *stream, const float *x, const float *s, float *y, int64_t outer,
                       int64_t C, int64_t inner);

/* torch.triu (upper != 0) or torch.tril (upper == 0) with offset `diagonal` over the last two
 * dims: y[b, i, j] = x[b, i, j] where j - i >= diagonal (triu) / j - i <= diagonal (tril), else
 * 0 (also where x is NaN). x, y: (batch, rows, cols); y may be x. */
int cl1_op_tri(void *stream, const float *x, float *y, int64_t batch, int64_t rows, int64_t cols,
               int upper, int64_t diagonal);

/* masked_fill of a triangular mask over the last two dims: y[b, i, j] = x[b, i, j] where
 * j - i <= diagonal (upper == 0: the tril part is kept) or j - i >= diagonal (upper != 0),
 * else `value` (e.g. -INFINITY). minGPT's att.masked_fill(tril(ones)[:T, :T] == 0, -inf) is
 * upper = 0, diagonal = 0. x, y: (batch, rows, cols); y may be x. */
int cl1_op_tri_fill(void *stream, const float *x, float *y, int64_t batch, int64_t rows,
                    int64_t cols, int upper, int64_t diagonal, float value);

#ifdef __cplusplus
}
#endif
#endif
