/* l1_39_l2norm_row_registers.cu — level1/39_L2Norm_: y = x / ||x||_2 per row (no epsilon).
 * Technique: one launch, one 1024-thread block per row, the row held in registers between the
 * reduction and the divide (16 floats per thread: 16384-wide rows, the small shape, are read
 * from DRAM exactly once), warp-shuffle sum-of-squares reduction (xor butterflies, then one
 * warp over the 32 warp sums). The reference runs three kernels (split partial sums, finish,
 * divide) and reads x twice. Rows longer than 16384 (65535 at large: odd, no float4) stream
 * twice through the same block; IEEE division x / norm as the reference. */
#include <cudal1/solution.h>
#include <math.h>

#define THREADS 1024
#define PER 16  // floats per thread kept in registers

// the block's sum, in every thread; sh is reusable on return
static __device__ float block_sum(float v, float *sh) {
#pragma unroll
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    float w = sh[threadIdx.x];
#pragma unroll
    for (int o = 16; o; o >>= 1) w += __shfl_xor_sync(~0u, w, o);
    if (threadIdx.x == 0) sh[32] = w;
  }
  __syncthreads();
  const float t = sh[32];
  __syncthreads();
  return t;
}

__global__ static void __launch_bounds__(THREADS)
l2_rows(const float *__restrict__ x, float *__restrict__ y, long long rows, long long cols,
        bool vec) {
  __shared__ float sh[33];
  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    if (vec && cols <= (long long)THREADS * PER) {
      const float4 *x4 = (const float4 *)xr;
      float4 *y4 = (float4 *)yr;
      const int n4 = (int)(cols / 4);
      float4 v[PER / 4];
      float ss = 0.f;
#pragma unroll
      for (int j = 0; j < PER / 4; j++) {
        const int i = threadIdx.x + j * THREADS;
        v[j] = i < n4 ? __ldcs(x4 + i) : make_float4(0.f, 0.f, 0.f, 0.f);
        ss += v[j].x * v[j].x + v[j].y * v[j].y + v[j].z * v[j].z + v[j].w * v[j].w;
      }
      const float nrm = sqrtf(block_sum(ss, sh));
#pragma unroll
      for (int j = 0; j < PER / 4; j++) {
        const int i = threadIdx.x + j * THREADS;
        if (i < n4) __stcs(y4 + i, make_float4(v[j].x / nrm, v[j].y / nrm, v[j].z / nrm, v[j].w / nrm));
      }
    } else if (cols <= (long long)THREADS * PER) {
      float v[PER];
      float ss = 0.f;
#pragma unroll
      for (int j = 0; j < PER; j++) {
        const int i = threadIdx.x + j * THREADS;
        v[j] = i < cols ? xr[i] : 0.f;
        ss += v[j] * v[j];
      }
      const float nrm = sqrtf(block_sum(ss, sh));
#pragma unroll
      for (int j = 0; j < PER; j++) {
        const int i = threadIdx.x + j * THREADS;
        if (i < cols) yr[i] = v[j] / nrm;
      }
    } else {
      float ss = 0.f;
      for (long long i = threadIdx.x; i < cols; i += THREADS) {
        const float v = xr[i];
        ss += v * v;
      }
      const float nrm = sqrtf(block_sum(ss, sh));
      for (long long i = threadIdx.x; i < cols; i += THREADS) yr[i] = xr[i] / nrm;
    }
  }
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *X = &c->inputs[0];
  if (X->ndim != 2) return 1;
  const long long rows = X->shape[0], cols = X->shape[1];
  if (rows == 0 || cols == 0) return 0;
  const float *x = (const float *)X->data;
  float *y = (float *)c->outputs[0].data;
  const bool vec = cols % 4 == 0 && (((unsigned long long)x | (unsigned long long)y) & 15) == 0;
  const unsigned grid = (unsigned)(rows < (1LL << 30) ? rows : (1LL << 30));
  l2_rows<<<grid, THREADS, 0, (cudaStream_t)c->stream>>>(x, y, rows, cols, vec);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
