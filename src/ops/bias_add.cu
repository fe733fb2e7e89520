/* bias_add.cu — CUDA cl1_op_bias_add: y[o, c, i] = x[o, c, i] + bias[c]. Long inner runs (conv
 * feature maps) go row by row so the bias index is computed once per row; short ones (linear's
 * (M, N) with inner == 1) use a flat index. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

// x, y: (rows = outer * C, inner); blockIdx.y strides over rows, x over the row.
__global__ static void bias_rows(const float *x, const float *__restrict__ bias,
                                 float *y, int64_t rows, int64_t C, int64_t inner,
                                 bool vec4) {
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    float b = bias[row % C];
    int64_t base = row * inner;
    if (vec4) {
      const float4 *xv = (const float4 *)(x + base);
      float4 *yv = (float4 *)(y + base);
      for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < inner / 4;
           i += (int64_t)gridDim.x * blockDim.x) {
        float4 v = xv[i];
        v.x += b, v.y += b, v.z += b, v.w += b;
        yv[i] = v;
      }
    } else {
      for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < inner;
           i += (int64_t)gridDim.x * blockDim.x)
        y[base + i] = x[base + i] + b;
    }
  }
}

__global__ static void bias_flat(const float *x, const float *__restrict__ bias, float *y,
                                 int64_t n, int64_t C, int64_t inner) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] + bias[(i / inner) % C];
}

extern "C" int cl1_op_bias_add(void *stream, const float *x, const float *bias, float *y,
                               int64_t outer, int64_t C, int64_t inner) {
  if (outer < 0 || C < 0 || inner < 0) return 1;
  int64_t n = outer * C * inner;
  if (n == 0) return 0;
  if (!x || !bias || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  const int block = 256;
  if (inner >= 256) {
    bool vec4 = inner % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
    int64_t per_row = vec4 ? inner / 4 : inner;
    int64_t rows = outer * C;
    unsigned gx = (unsigned)((per_row + block - 1) / block);
    if (gx > 1024) gx = 1024;
    unsigned gy = (unsigned)(rows < 65535 ? rows : 65535);
    bias_rows<<<dim3(gx, gy), block, 0, st>>>(x, bias, y, rows, C, inner, vec4);
  } else {
    bias_flat<<<cl1_ops_grid(n, block), block, 0, st>>>(x, bias, y, n, C, inner);
  }
  CL1_LAUNCH_CHECK();
  return 0;
}
