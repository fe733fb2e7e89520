/* mul_channel.cu — CUDA cl1_op_mul_channel: y[o, c, i] = x[o, c, i] * s[c]. Rows (o, c) go to
 * blockIdx.y (grid-stride), the inner dim to x-threads, so no per-element 64-bit division;
 * float4 along the row when inner % 4 == 0 and both pointers are 16-byte aligned. x and y may
 * alias (in place), so they are not __restrict__. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

template <typename V>
__global__ static void mul_rows(const V *x, const float *__restrict__ s,
                                V *y, int64_t rows, int64_t C, int64_t inner) {
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const float sc = s[r % C];
    const V *xr = x + r * inner;
    V *yr = y + r * inner;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < inner;
         i += (int64_t)gridDim.x * blockDim.x) {
      V v = xr[i];
      if constexpr (sizeof(V) == sizeof(float4)) {
        v.x *= sc, v.y *= sc, v.z *= sc, v.w *= sc;
      } else {
        v *= sc;
      }
      yr[i] = v;
    }
  }
}

// y: (n) flat, for short rows (inner < a warp) where one row per block would idle most threads
__global__ static void mul_flat(const float *x, const float *__restrict__ s,
                                float *y, int64_t n, int64_t C, int64_t inner) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    y[i] = x[i] * s[(i / inner) % C];
}

extern "C" int cl1_op_mul_channel(void *stream, const float *x, const float *s, float *y,
                                  int64_t outer, int64_t C, int64_t inner) {
  if (outer < 0 || C < 0 || inner < 0) return 1;
  const int64_t rows = outer * C;
  if (rows * inner == 0) return 0;
  if (!x || !s || !y) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  const int block = 256;
  if (inner < 32) {
    mul_flat<<<cl1_ops_grid(rows * inner, block), block, 0, st>>>(x, s, y, rows * inner, C,
                                                                  inner);
    CL1_LAUNCH_CHECK();
    return 0;
  }
  const bool vec = inner % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
  const int64_t per_row = vec ? inner / 4 : inner;
  int64_t gx = (per_row + block - 1) / block;
  if (gx > 1024) gx = 1024;
  // enough blocks in y to fill the GPU; the grid-stride loops cover the rest
  int64_t gy = rows < 65535 ? rows : 65535;
  dim3 grid((unsigned)gx, (unsigned)gy);
  if (vec)
    mul_rows<float4><<<grid, block, 0, st>>>((const float4 *)x, s, (float4 *)y, rows, C,
                                             per_row);
  else
    mul_rows<float><<<grid, block, 0, st>>>(x, s, y, rows, C, per_row);
  CL1_LAUNCH_CHECK();
  return 0;
}
