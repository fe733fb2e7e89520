/* l2_67_conv_gelu_gap_fused.cu — level2/67_Conv2d_GELU_GlobalAvgPool:
 * y[n, k] = mean over (h, w) of gelu(conv2d(x, W, b))[n, k, h, w] (exact erf GELU).
 * Technique: conv, GELU and the global average fused into one kernel with a warp-shuffle
 * reduction; the (N, K, OH, OW) intermediate never exists. A block owns one sample and 16
 * output channels; each thread walks the sample's output pixels, computes the 16 conv values
 * of a pixel in registers (FP32, weights broadcast from shared memory as float4), applies GELU
 * and keeps 16 running sums; the block then reduces the 16 sums with xor shuffles and one
 * shared-memory pass over the 8 warps (fixed order: deterministic). The reference writes the
 * conv output, rewrites it through GELU and reads it again for the mean: three launches and
 * ~3x the intermediate's size in traffic. */
#include <cudal1/solution.h>

#define THREADS 256
#define KG 16

struct dims { int N, C, H, W, K, R, S, OH, OW; };

static __device__ __forceinline__ float gelu(float v) {
  return v * 0.5f * (1.f + erff(v * 0.70710678118654752440f));
}

// grid (ceil(K / KG), N)
__global__ static void __launch_bounds__(THREADS)
conv_gelu_mean(const float *__restrict__ x, const float *__restrict__ w,
               const float *__restrict__ cb, float *__restrict__ y, dims d) {
  extern __shared__ float4 smem4[];
  float *ws = (float *)smem4;  // [C*R*S][KG] for this block's channel group
  __shared__ float red[THREADS / 32][KG];
  const int CRS = d.C * d.R * d.S, k0 = blockIdx.x * KG, n = blockIdx.y;
  for (int i = threadIdx.x; i < CRS * KG; i += THREADS) {
    const int kk = i % KG, j = i / KG;
    ws[i] = k0 + kk < d.K ? w[(long long)(k0 + kk) * CRS + j] : 0.f;
  }
  __syncthreads();
  float bias[KG], sum[KG];
#pragma unroll
  for (int q = 0; q < KG; q++) bias[q] = k0 + q < d.K ? __ldg(cb + k0 + q) : 0.f, sum[q] = 0.f;
  const float *xn = x + (long long)n * d.C * d.H * d.W;
  const int P = d.OH * d.OW;
  for (int p = threadIdx.x; p < P; p += THREADS) {
    const int oh = p / d.OW, ow = p % d.OW;
    float acc[KG];
#pragma unroll
    for (int q = 0; q < KG; q++) acc[q] = bias[q];
    const float4 *wj = (const float4 *)ws;
    for (int c = 0; c < d.C; c++) {
      const float *xc = xn + (long long)c * d.H * d.W + (long long)oh * d.W + ow;
      for (int r = 0; r < d.R; r++)
        for (int s = 0; s < d.S; s++, wj += KG / 4) {
          const float v = __ldg(xc + r * d.W + s);
#pragma unroll
          for (int q = 0; q < KG / 4; q++) {
            const float4 f = wj[q];
            acc[4 * q] = fmaf(v, f.x, acc[4 * q]), acc[4 * q + 1] = fmaf(v, f.y, acc[4 * q + 1]);
            acc[4 * q + 2] = fmaf(v, f.z, acc[4 * q + 2]), acc[4 * q + 3] = fmaf(v, f.w, acc[4 * q + 3]);
          }
        }
    }
#pragma unroll
    for (int q = 0; q < KG; q++) sum[q] += gelu(acc[q]);
  }
#pragma unroll
  for (int q = 0; q < KG; q++) {
    float v = sum[q];
#pragma unroll
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
    sum[q] = v;
  }
  if ((threadIdx.x & 31) == 0)
#pragma unroll
    for (int q = 0; q < KG; q++) red[threadIdx.x >> 5][q] = sum[q];
  __syncthreads();
  if (threadIdx.x < KG && k0 + threadIdx.x < d.K) {
    float t = 0.f;
#pragma unroll
    for (int wi = 0; wi < THREADS / 32; wi++) t += red[wi][threadIdx.x];
    y[(long long)n * d.K + k0 + threadIdx.x] = t / (float)P;
  }
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *X = &c->inputs[0], *Wt = &c->params[0], *Y = &c->outputs[0];
  if (X->ndim != 4 || Wt->ndim != 4 || Y->ndim != 2 || Wt->shape[1] != X->shape[1]) return 1;
  dims d;
  d.N = (int)X->shape[0], d.C = (int)X->shape[1], d.H = (int)X->shape[2], d.W = (int)X->shape[3];
  d.K = (int)Wt->shape[0], d.R = (int)Wt->shape[2], d.S = (int)Wt->shape[3];
  d.OH = d.H - d.R + 1, d.OW = d.W - d.S + 1;
  if (Y->shape[0] != d.N || Y->shape[1] != d.K || d.OH < 1 || d.OW < 1) return 1;
  if (d.N == 0 || d.K == 0) return 0;
  if (d.N > 65535) return 1;
  const size_t sh = sizeof(float) * (size_t)d.C * d.R * d.S * KG;
  if (sh > 48 * 1024 &&
      cudaFuncSetAttribute(conv_gelu_mean, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh) != cudaSuccess)
    return 1;
  conv_gelu_mean<<<dim3((unsigned)((d.K + KG - 1) / KG), (unsigned)d.N), THREADS, sh,
                   (cudaStream_t)c->stream>>>((const float *)X->data, (const float *)Wt->data,
                                              (const float *)c->params[1].data,
                                              (float *)Y->data, d);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
