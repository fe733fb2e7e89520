/* layout.cu — CUDA data movement besides the strided copy: cl1_op_gather_rows (one thread per
 * output element, as ATen's index_select kernel), cl1_op_roll2 (one thread per output element,
 * reading the rolled source, as ATen's roll kernel) and cl1_op_fill (a memset for +0.0, else a
 * grid-stride kernel). */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

__global__ static void gather_rows_k(const float *__restrict__ table,
                                     const int64_t *__restrict__ index, float *__restrict__ y,
                                     int64_t total, int64_t rows, int64_t cols) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
       e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = e / cols, c = e - i * cols, r = index[i];
    y[e] = (r >= 0 && r < rows) ? table[r * cols + c] : __int_as_float(0x7fc00000);
  }
}

extern "C" int cl1_op_gather_rows(void *stream, const float *table, const int64_t *index,
                                  float *y, int64_t n, int64_t rows, int64_t cols) {
  if (n < 0 || rows < 0 || cols < 0) return 1;
  if (n == 0 || cols == 0) return 0;
  if (!table || !index || !y) return 1;
  const int block = 256;
  const int64_t total = n * cols;
  gather_rows_k<<<cl1_ops_grid(total, block), block, 0, (cudaStream_t)stream>>>(
      table, index, y, total, rows, cols);
  CL1_LAUNCH_CHECK();
  return 0;
}

__global__ static void roll2_k(const float *__restrict__ x, float *__restrict__ y, int64_t total,
                               int64_t d1, int64_t d2, int64_t inner, int64_t a, int64_t b) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
       e += (int64_t)gridDim.x * blockDim.x) {
    int64_t r = e / inner;
    const int64_t k = e - r * inner;
    const int64_t j = r % d2;
    r /= d2;
    const int64_t i = r % d1, o = r / d1;
    // y[o, i, j] comes from x[o, i - a, j - b] (mod)
    const int64_t xi = i >= a ? i - a : i - a + d1, xj = j >= b ? j - b : j - b + d2;
    y[e] = x[((o * d1 + xi) * d2 + xj) * inner + k];
  }
}

extern "C" int cl1_op_roll2(void *stream, const float *x, float *y, int64_t outer, int64_t d1,
                            int64_t d2, int64_t inner, int64_t s1, int64_t s2) {
  if (outer < 0 || d1 < 0 || d2 < 0 || inner < 0) return 1;
  const int64_t total = outer * d1 * d2 * inner;
  if (total == 0) return 0;
  if (!x || !y) return 1;
  int64_t a = s1 % d1, b = s2 % d2;
  if (a < 0) a += d1;
  if (b < 0) b += d2;
  const int block = 256;
  roll2_k<<<cl1_ops_grid(total, block), block, 0, (cudaStream_t)stream>>>(x, y, total, d1, d2,
                                                                            inner, a, b);
  CL1_LAUNCH_CHECK();
  return 0;
}

__global__ static void fill_k(float *y, int64_t n, float v) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = v;
}

extern "C" int cl1_op_fill(void *stream, float *y, int64_t n, float value) {
  if (n < 0) return 1;
  if (n == 0) return 0;
  if (!y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  if (value == 0.f && !signbit(value)) {  // +0.0 is all-zero bytes
    CL1_CUDA_TRY(cudaMemsetAsync(y, 0, (size_t)n * sizeof(float), st));
    return 0;
  }
  const int block = 256;
  fill_k<<<cl1_ops_grid(n, block), block, 0, st>>>(y, n, value);
  CL1_LAUNCH_CHECK();
  return 0;
}
