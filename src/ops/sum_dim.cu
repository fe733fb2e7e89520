/* sum_dim.cu — CUDA cl1_op_sum_dim: (outer, red, inner) -> (outer, inner). With inner >= 32 a
 * block of 32 x 16 threads covers 32 adjacent outputs: lanes read consecutive addresses (one
 * coalesced row segment per step) and the 16 y-threads split the reduced dim, then combine in
 * shared memory. With a short inner dim (reduction over the last dims) a block per output walks
 * the reduced dim, whose elements are then (nearly) contiguous. Float accumulation, as PyTorch. */
#include "cudal1/ops.h"
#include "cuda_common.cuh"

#define TX 32
#define TY 16

// blockIdx.x: a 32-wide inner tile; blockIdx.y strides over outer.
__global__ static void sum_tiled(const float *__restrict__ x, float *__restrict__ y,
                                 int64_t outer, int64_t red, int64_t inner) {
  __shared__ float sh[TY][TX + 1];
  int64_t i = blockIdx.x * (int64_t)TX + threadIdx.x;
  for (int64_t o = blockIdx.y; o < outer; o += gridDim.y) {
    float acc = 0.f;
    if (i < inner) {
      const float *p = x + o * red * inner + i;
      for (int64_t r = threadIdx.y; r < red; r += TY) acc += p[r * inner];
    }
    sh[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && i < inner) {
      float s = 0.f;
      for (int k = 0; k < TY; k++) s += sh[k][threadIdx.x];
      y[o * inner + i] = s;
    }
    __syncthreads();
  }
}

// one block per output (o, i), threads over the reduced dim.
__global__ static void sum_rowwise(const float *__restrict__ x, float *__restrict__ y,
                                   int64_t outer, int64_t red, int64_t inner) {
  __shared__ float sh[32];
  for (int64_t out = blockIdx.x; out < outer * inner; out += gridDim.x) {
    int64_t o = out / inner, i = out % inner;
    const float *p = x + o * red * inner + i;
    float acc = 0.f;
    for (int64_t r = threadIdx.x; r < red; r += blockDim.x) acc += p[r * inner];
    for (int k = 16; k > 0; k >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, k);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
      float v = threadIdx.x < (blockDim.x >> 5) ? sh[threadIdx.x] : 0.f;
      for (int k = 16; k > 0; k >>= 1) v += __shfl_xor_sync(0xffffffffu, v, k);
      if (threadIdx.x == 0) y[out] = v;
    }
    __syncthreads();
  }
}

extern "C" int cl1_op_sum_dim(void *stream, const float *x, float *y, int64_t outer,
                              int64_t red, int64_t inner) {
  if (outer < 0 || red < 0 || inner < 0) return 1;
  if (outer * inner == 0) return 0;
  if (!y || (red > 0 && !x)) return 1;
  cudaStream_t st = (cudaStream_t)stream;
  if (inner >= TX) {
    int64_t tiles = (inner + TX - 1) / TX;
    if (tiles > (1LL << 31) - 1) return 1;
    unsigned gy = (unsigned)(outer < 65535 ? outer : 65535);
    sum_tiled<<<dim3((unsigned)tiles, gy), dim3(TX, TY), 0, st>>>(x, y, outer, red, inner);
  } else {
    int64_t n = outer * inner;
    unsigned grid = (unsigned)(n < (1LL << 30) ? n : (1LL << 30));
    int block = red >= 4096 ? 512 : red >= 512 ? 256 : 64;
    sum_rowwise<<<grid, block, 0, st>>>(x, y, outer, red, inner);
  }
  CL1_LAUNCH_CHECK();
  return 0;
}
