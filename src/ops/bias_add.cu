/* bias_add.cu — CUDA cl1_op_bias_add: y[o, c, i] = x[o, c, i] + bias[c]. Long inner runs (conv
 * feature maps, float4-aligned) go row by row so the bias index is computed once per row; the
 * rest (linear's (M, N) with inner == 1, odd planes) use a flat index. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

// x, y: (rows = outer * C, inner), inner % 4 == 0, 16-byte aligned; blockIdx.y strides over
// rows, x over the row's float4s.
__global__ static void bias_rows(const float *x, const float *__restrict__ bias,
                                 float *y, int64_t rows, int64_t C, int64_t inner) {
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    float b = bias[row % C];
    const float4 *xv = (const float4 *)(x + row * inner);
    float4 *yv = (float4 *)(y + row * inner);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < inner / 4;
         i += (int64_t)gridDim.x * blockDim.x) {
      float4 v = xv[i];
      v.x += b, v.y += b, v.z += b, v.w += b;
      yv[i] = v;
    }
  }
}

/* Any layout, one element per thread; 32-bit index math where it fits (a 64-bit division per
 * element, and a block per 1089-element row at ConvTranspose2d's odd output planes, ran at half
 * PyTorch's speed). */
template <typename IT>
__global__ static void bias_flat(const float *x, const float *__restrict__ bias, float *y, IT n,
                                 IT C, IT inner) {
  for (IT i = blockIdx.x * (IT)blockDim.x + threadIdx.x; i < n; i += (IT)gridDim.x * blockDim.x)
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
  bool vec4 = inner % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
  if (inner >= 256 && vec4) {
    int64_t per_row = inner / 4;
    int64_t rows = outer * C;
    unsigned gx = (unsigned)((per_row + block - 1) / block);
    if (gx > 1024) gx = 1024;
    unsigned gy = (unsigned)(rows < 65535 ? rows : 65535);
    bias_rows<<<dim3(gx, gy), block, 0, st>>>(x, bias, y, rows, C, inner);
  } else if (n < (1LL << 31)) {
    bias_flat<uint32_t><<<cl1_ops_grid(n, block), block, 0, st>>>(x, bias, y, (uint32_t)n,
                                                                  (uint32_t)C, (uint32_t)inner);
  } else {
    bias_flat<int64_t><<<cl1_ops_grid(n, block), block, 0, st>>>(x, bias, y, n, C, inner);
  }
  CL1_LAUNCH_CHECK();
  return 0;
}
