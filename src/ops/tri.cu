/* tri.cu — CUDA cl1_op_tri (torch.triu / torch.tril over the last two dims) and cl1_op_tri_fill
 * (the same mask filled with a value). Rows go to blockIdx.y (grid-stride), columns to
 * x-threads, so the row index needs no division; the masked part is written as 0 (or the
 * value) whatever x holds (NaN included), as PyTorch does. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

__global__ static void tri_rows(const float *x, float *y,
                                int64_t nrows, int64_t rows, int64_t cols, int upper,
                                int64_t diagonal) {
  for (int64_t r = blockIdx.y; r < nrows; r += gridDim.y) {
    const int64_t i = r % rows;  // row inside its matrix
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < cols;
         j += (int64_t)gridDim.x * blockDim.x) {
      const bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
      yr[j] = keep ? xr[j] : 0.f;
    }
  }
}

extern "C" int cl1_op_tri(void *stream, const float *x, float *y, int64_t batch, int64_t rows,
                          int64_t cols, int upper, int64_t diagonal) {
  if (batch < 0 || rows < 0 || cols < 0) return 1;
  if (batch * rows * cols == 0) return 0;
  if (!x || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  const int block = 256;
  const int64_t nrows = batch * rows;
  int64_t gx = (cols + block - 1) / block;
  if (gx > 1024) gx = 1024;
  int64_t gy = nrows < 65535 ? nrows : 65535;
  tri_rows<<<dim3((unsigned)gx, (unsigned)gy), block, 0, st>>>(x, y, nrows, rows, cols, upper,
                                                              diagonal);
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
