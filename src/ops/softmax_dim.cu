/* softmax_dim.cu — CUDA cl1_op_softmax_dim: softmax over the middle dim of
 * (outer, n, inner). inner == 1 is a last-dim softmax and goes to cl1_op_softmax (a block per
 * row). inner > 1 (e.g. over channels of NCHW): a thread per (o, i) column, adjacent threads on
 * adjacent i so every pass is coalesced, as ATen's spatial softmax; pass 1 keeps an online
 * (max, sum of exp), pass 2 writes exp(x - max) / sum. */
#include <math.h>
#include "cudal1/ops.h"
#include "cuda_common.cuh"

__global__ static void softmax_cols(const float *__restrict__ x, float *__restrict__ y,
                                    int64_t outer, int64_t n, int64_t inner) {
  int64_t cols = outer * inner;
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < cols;
       c += (int64_t)gridDim.x * blockDim.x) {
    int64_t o = c / inner, i = c - o * inner;
    const float *p = x + o * n * inner + i;
    float *q = y + o * n * inner + i;
    float m = -INFINITY, s = 0.f;
    for (int64_t k = 0; k < n; k++) {
      float v = p[k * inner];
      if (v <= m) {
        if (v != -INFINITY) s += expf(v - m);  // -inf - -inf would be NaN: a masked entry adds 0
      } else {
        s = s * expf(m - v) + 1.f;  // exp(-inf) = 0 for the first element; NaN makes s NaN
        m = v;
      }
    }
    for (int64_t k = 0; k < n; k++) q[k * inner] = expf(p[k * inner] - m) / s;
  }
}

extern "C" int cl1_op_softmax_dim(void *stream, const float *x, float *y, int64_t outer,
                                  int64_t n, int64_t inner) {
  if (outer < 0 || n < 0 || inner < 0) return 1;
  if (outer * n * inner == 0) return 0;
  if (!x || !y || x == y) return 1;
  if (inner == 1) return cl1_op_softmax(stream, x, y, outer, n);
  cudaStream_t st = (cudaStream_t)stream;
  softmax_cols<<<cl1_ops_grid(outer * inner, 256), 256, 0, st>>>(x, y, outer, n, inner);
  CL1_LAUNCH_CHECK();
  return 0;
}
