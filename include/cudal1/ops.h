/* ops.h — the reference op library: what task references are built from, one call per PyTorch
 * op, eager style. Two builds share this API: libcl1ops_host.so (C loops, float64 accumulation)
 * and libcl1ops_cuda.so (cuBLAS/cuDNN where PyTorch uses them, plain kernels elsewhere). Pointers
 * are host pointers on the host build and device pointers on the CUDA build; `stream` is a
 * cudaStream_t (ignored, may be NULL, on the host build). Tensors are contiguous row-major fp32.
 * Every op returns 0 on success and non-zero on a library or launch error. Numerics follow
 * PyTorch's defaults: matmul in full FP32 (no TF32); cuDNN convolution with TF32 allowed. */
#ifndef CUDAL1_OPS_H
#define CUDAL1_OPS_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "solution.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Helpers for references written against this library. */
/* Number of elements of a tensor. */
static inline int64_t cl1_op_numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}
/* The task attribute `name` into *v; 0 when present, 1 when the task has none. */
static inline int cl1_op_attr(const cl1_call *c, const char *name, double *v) {
  for (int32_t i = 0; i < c->n_attrs; i++)
    if (!strcmp(c->attrs[i].name, name)) return *v = c->attrs[i].value, 0;
  return 1;
}

/* Memory for a reference's intermediates (eager PyTorch allocates them per call from its caching
 * allocator; a reference allocates them once in cl1_setup, where input shapes are known, and
 * frees them in cl1_teardown). Device memory on the CUDA build, host memory on the host build;
 * NULL when out of memory. Contents undefined. */
void *cl1_op_alloc(size_t bytes);
void cl1_op_free(void *p);

/* Copies `bytes` bytes from host memory `src` to `dst` (memory from cl1_op_alloc: device memory
 * on the CUDA backend, host memory on the host one), e.g. the constant tables a module builds in
 * __init__. For cl1_setup: the copy has completed when the call returns, so `src` may be freed
 * at once. */
int cl1_op_upload(void *stream, void *dst, const void *src, size_t bytes);

/* Loads what the library's ops need before the first of them runs (CUDA: the cuBLAS and cuDNN
 * handles, about 0.1 s, and the libraries behind them). Not an op: the worker calls it while it
 * sets up, for the reference and the candidate alike, so that this cost falls outside the GPU
 * hold of a judge that shares its GPU (src/eval/gpu_lock.h). 0 on success. */
int cl1_ops_preload(void);

/* y = max(x, 0); x, y: (n) */
int cl1_op_relu(void *stream, const float *x, float *y, int64_t n);

/* Softmax over the last dim. x, y: (rows, cols) */
int cl1_op_softmax(void *stream, const float *x, float *y, int64_t rows, int64_t cols);

/* Sum over the middle dim. x: (outer, red, inner) -> y: (outer, inner) */
int cl1_op_sum_dim(void *stream, const float *x, float *y, int64_t outer, int64_t red,
                   int64_t inner);

/* LayerNorm over the last `cols` elements with elementwise affine (w, b may be NULL).
 * x, y: (rows, cols); w, b: (cols); biased variance, as PyTorch. */
int cl1_op_layernorm(void *stream, const float *x, const float *w, const float *b, float *y,
                     int64_t rows, int64_t cols, double eps);

/* C = A @ B. A: (M, K), B: (K, N), C: (M, N) */
int cl1_op_matmul(void *stream, const float *A, const float *B, float *C, int64_t M, int64_t N,
                  int64_t K);

/* F.linear: y = x @ W^T + bias (bias may be NULL). Row i of x starts at x + i * ldx: ldx 0
 * means K (x contiguous); ldx > K reads a row-strided view without a copy, as addmm does, e.g.
 * out[:, -1, :] of a (B, T, K) tensor is x = out + (T-1)*K, ldx = T*K.
 * x: (M, K) rows, W: (N, K), bias: (N), y: (M, N) contiguous */
int cl1_op_linear(void *stream, const float *x, int64_t ldx, const float *W, const float *bias,
                  float *y, int64_t M, int64_t N, int64_t K);

/* y[o, c, i] = x[o, c, i] + bias[c]. x, y: (outer, C, inner); bias: (C) */
int cl1_op_bias_add(void *stream, const float *x, const float *bias, float *y, int64_t outer,
                    int64_t C, int64_t inner);

typedef struct {
  int64_t n, c, h, w;        /* input (N, C, H, W) */
  int64_t k, r, s;           /* weight (K, C/groups, R, S) */
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
} cl1_conv2d_desc;

/* Output height/width of a conv2d (PyTorch's formula). */
static inline int64_t cl1_conv2d_out_h(const cl1_conv2d_desc *d) {
  return (d->h + 2 * d->pad_h - d->dil_h * (d->r - 1) - 1) / d->stride_h + 1;
}
static inline int64_t cl1_conv2d_out_w(const cl1_conv2d_desc *d) {
  return (d->w + 2 * d->pad_w - d->dil_w * (d->s - 1) - 1) / d->stride_w + 1;
}

/* Cross-correlation with zero padding, as nn.Conv2d; bias (K) may be NULL.
 * x: (N, C, H, W), w: (K, C/groups, R, S), y: (N, K, OH, OW) */
int cl1_op_conv2d(void *stream, const float *x, const float *w, const float *bias, float *y,
                  const cl1_conv2d_desc *d);

#ifdef __cplusplus
}
#endif

/* The op families (one header each, same conventions). */
#include "ops_elementwise.h"
#include "ops_softmax.h"
#include "ops_matmul.h"
#include "ops_norm.h"
#include "ops_conv.h"
#include "ops_convt.h"
#include "ops_pool.h"
#include "ops_scan.h"
#include "ops_layout.h"
#include "ops_rnn.h"
#endif
