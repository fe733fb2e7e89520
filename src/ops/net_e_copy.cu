/* net_e_copy.cu — CUDA cl1_op_strided_copy and cl1_op_tri_fill. The copy runs over the
 * simplified dims (net_e_common.h), one thread per element in y's index order so that the
 * innermost dim is coalesced on at least one side, as ATen's copy kernel for permuted views;
 * 32-bit index arithmetic when the offsets fit (divisions are the cost), 64-bit otherwise. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"
#include "net_e_common.h"

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

__global__ static void tri_fill_rows(const float *x, float *y, int64_t nrows, int64_t rows,
                                     int64_t cols, int upper, int64_t diagonal, float value) {
  for (int64_t r = blockIdx.y; r < nrows; r += gridDim.y) {
    const int64_t i = r % rows;  // row inside its matrix
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < cols;
         j += (int64_t)gridDim.x * blockDim.x) {
      const bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
      yr[j] = keep ? xr[j] : value;
    }
  }
}

extern "C" int cl1_op_tri_fill(void *stream, const float *x, float *y, int64_t batch,
                               int64_t rows, int64_t cols, int upper, int64_t diagonal,
                               float value) {
  if (batch < 0 || rows < 0 || cols < 0) return 1;
  if (batch * rows * cols == 0) return 0;
  if (!x || !y) return 1;
  const int block = 256;
  const int64_t nrows = batch * rows;
  int64_t gx = (cols + block - 1) / block;
  if (gx > 1024) gx = 1024;
  int64_t gy = nrows < 65535 ? nrows : 65535;
  tri_fill_rows<<<dim3((unsigned)gx, (unsigned)gy), block, 0, (cudaStream_t)stream>>>(
      x, y, nrows, rows, cols, upper, diagonal, value);
  CL1_LAUNCH_CHECK();
  return 0;
}
