/* strided_copy.cu — CUDA cl1_op_strided_copy over the simplified dims (copy_common.h): one
 * contiguous run is a device copy and rows of contiguous elements (a slice, a torch.cat part)
 * a pitched copy, both on the copy engines at full bandwidth; anything else one thread per
 * element in y's index order so that the innermost dim is coalesced on at least one side, as
 * ATen's copy kernel for permuted views; 32-bit index arithmetic when the offsets fit
 * (divisions are the cost), 64-bit otherwise. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"
#include "copy_common.h"

struct copy_geom {
  int nd;
  int64_t s[8], xs[8], ys[8];
};

template <typename I>
__global__ static void strided_copy_k(const float *__restrict__ x, float *__restrict__ y,
                                      copy_geom g, I n) {
  for (I e = blockIdx.x * (I)blockDim.x + threadIdx.x; e < n; e += (I)gridDim.x * blockDim.x) {
    I r = e, xo = 0, yo = 0;
    for (int d = g.nd - 1; d > 0; d--) {
      const I sd = (I)g.s[d];
      const I q = r / sd, i = r - q * sd;
      xo += i * (I)g.xs[d], yo += i * (I)g.ys[d];
      r = q;
    }
    xo += r * (I)g.xs[0], yo += r * (I)g.ys[0];
    y[yo] = x[xo];
  }
}

extern "C" int cl1_op_strided_copy(void *stream, int nd, const int64_t *shape, const float *x,
                                   const int64_t *x_stride, float *y, const int64_t *y_stride) {
  copy_geom g;
  int64_t n;
  if (cl1_copy_simplify(nd, shape, x_stride, y_stride, &g.nd, g.s, g.xs, g.ys, &n)) return 1;
  if (n == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  // fully contiguous on both sides: a plain device copy
  if (g.nd == 1 && g.xs[0] == 1 && g.ys[0] == 1) {
    CL1_CUDA_TRY(cudaMemcpyAsync(y, x, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, st));
    return 0;
  }
  // rows of contiguous elements with row pitches of at least a row on both sides
  if (g.nd == 2 && g.xs[1] == 1 && g.ys[1] == 1 && g.xs[0] >= g.s[1] && g.ys[0] >= g.s[1]) {
    const size_t w = (size_t)g.s[1] * sizeof(float);
    CL1_CUDA_TRY(cudaMemcpy2DAsync(y, (size_t)g.ys[0] * sizeof(float), x,
                                   (size_t)g.xs[0] * sizeof(float), w, (size_t)g.s[0],
                                   cudaMemcpyDeviceToDevice, st));
    return 0;
  }
  int64_t xmax = 0, ymax = 0;  // the largest offsets decide the index width
  for (int d = 0; d < g.nd; d++) xmax += (g.s[d] - 1) * g.xs[d], ymax += (g.s[d] - 1) * g.ys[d];
  const int block = 256;
  const unsigned grid = cl1_ops_grid(n, block);
  if (n < INT32_MAX && xmax < INT32_MAX && ymax < INT32_MAX && (int64_t)grid * block < INT32_MAX)
    strided_copy_k<uint32_t><<<grid, block, 0, st>>>(x, y, g, (uint32_t)n);
  else
    strided_copy_k<uint64_t><<<grid, block, 0, st>>>(x, y, g, (uint64_t)n);
  CL1_LAUNCH_CHECK();
  return 0;
}
