/* l2_2_convt_clamp_fused.cu — level2/2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide:
 * t = conv_transpose2d(x, W, cb, stride, padding, output_padding) + bias[k];
 * y = clamp(clamp(t, 0, 1) * s, 0, 1) / s.
 * Technique: a gather-form transposed convolution with the whole epilogue fused into its store,
 * one launch. A thread owns one output pixel and 16 output channels; for each kernel tap it
 * derives the contributing input pixel (oh + pad - r must be a non-negative multiple of the
 * stride: with stride 2 only a quarter of the taps contribute), reads it once and feeds 16 FMAs
 * from shared-memory weights (pre-arranged [c][r][s][k] per block, broadcast float4 reads),
 * then applies bias, clamp, scale, clamp, scale and writes. The reference runs the cuDNN
 * transposed conv, a bias add and four elementwise passes over the 33 MB output. Same float
 * epilogue as the reference (clamps as comparisons, divide as multiply by 1/s). */
#include <cudal1/solution.h>
#include <string.h>

#define THREADS 256
#define KG 16

struct dims { int N, C, H, W, K, R, S, OH, OW, stride, pad; float scale, inv; };

static __device__ __forceinline__ float clamp01(float v) { return v < 0.f ? 0.f : v > 1.f ? 1.f : v; }

// x (N, C, H, W), w (C, K, R, S), y (N, K, OH, OW); grid (ceil(N*OH*OW / THREADS), ceil(K / KG))
__global__ static void __launch_bounds__(THREADS)
convt_fused(const float *__restrict__ x, const float *__restrict__ w,
            const float *__restrict__ cb, const float *__restrict__ bias, float *__restrict__ y,
            dims d) {
  extern __shared__ float4 smem4[];
  float *ws = (float *)smem4;  // [C][R][S][KG]
  const int RS = d.R * d.S, k0 = blockIdx.y * KG;
  for (int i = threadIdx.x; i < d.C * RS * KG; i += THREADS) {
    const int kk = i % KG, j = i / KG, c = j / RS, rs = j % RS;
    ws[i] = k0 + kk < d.K ? w[((long long)c * d.K + k0 + kk) * RS + rs] : 0.f;
  }
  __syncthreads();
  const long long p = blockIdx.x * (long long)THREADS + threadIdx.x;
  if (p >= (long long)d.N * d.OH * d.OW) return;
  const int ow = (int)(p % d.OW);
  const long long t = p / d.OW;
  const int oh = (int)(t % d.OH), n = (int)(t / d.OH);
  float acc[KG];
#pragma unroll
  for (int k = 0; k < KG; k++) acc[k] = 0.f;
  const float *xn = x + (long long)n * d.C * d.H * d.W;
  for (int r = 0; r < d.R; r++) {
    const int hn = oh + d.pad - r;
    if (hn < 0 || hn % d.stride) continue;
    const int ih = hn / d.stride;
    if (ih >= d.H) continue;
    for (int s = 0; s < d.S; s++) {
      const int wn = ow + d.pad - s;
      if (wn < 0 || wn % d.stride) continue;
      const int iw = wn / d.stride;
      if (iw >= d.W) continue;
      const float *xp = xn + (long long)ih * d.W + iw;
      const float4 *wj = (const float4 *)(ws + (r * d.S + s) * KG);
      for (int c = 0; c < d.C; c++, wj += RS * KG / 4) {
        const float v = __ldg(xp + (long long)c * d.H * d.W);
#pragma unroll
        for (int k = 0; k < KG / 4; k++) {
          const float4 f = wj[k];
          acc[4 * k] = fmaf(v, f.x, acc[4 * k]), acc[4 * k + 1] = fmaf(v, f.y, acc[4 * k + 1]);
          acc[4 * k + 2] = fmaf(v, f.z, acc[4 * k + 2]), acc[4 * k + 3] = fmaf(v, f.w, acc[4 * k + 3]);
        }
      }
    }
  }
  const long long plane = (long long)d.OH * d.OW;
  float *yp = y + ((long long)n * d.K + k0) * plane + (long long)oh * d.OW + ow;
#pragma unroll
  for (int k = 0; k < KG; k++)
    if (k0 + k < d.K) {
      float v = (acc[k] + __ldg(cb + k0 + k)) + __ldg(bias + k0 + k);
      v = clamp01(v) * d.scale;
      yp[k * plane] = clamp01(v) * d.inv;
    }
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *X = &c->inputs[0], *Wt = &c->params[0], *Y = &c->outputs[0];
  if (X->ndim != 4 || Wt->ndim != 4 || Y->ndim != 4 || Wt->shape[0] != X->shape[1]) return 1;
  double scale = 0, stride = 0, pad = -1;
  for (int i = 0; i < c->n_attrs; i++) {
    if (!strcmp(c->attrs[i].name, "scaling_factor")) scale = c->attrs[i].value;
    if (!strcmp(c->attrs[i].name, "stride")) stride = c->attrs[i].value;
    if (!strcmp(c->attrs[i].name, "padding")) pad = c->attrs[i].value;
  }
  if (scale == 0 || stride < 1 || pad < 0) return 1;
  dims d;
  d.N = (int)X->shape[0], d.C = (int)X->shape[1], d.H = (int)X->shape[2], d.W = (int)X->shape[3];
  d.K = (int)Wt->shape[1], d.R = (int)Wt->shape[2], d.S = (int)Wt->shape[3];
  d.OH = (int)Y->shape[2], d.OW = (int)Y->shape[3], d.stride = (int)stride, d.pad = (int)pad;
  d.scale = (float)scale, d.inv = (float)(1.0 / scale);
  if (Y->shape[0] != d.N || Y->shape[1] != d.K) return 1;
  // output_padding only widens the output; it must stay below the stride
  const int extra_h = d.OH - ((d.H - 1) * d.stride - 2 * d.pad + d.R);
  const int extra_w = d.OW - ((d.W - 1) * d.stride - 2 * d.pad + d.S);
  if (extra_h < 0 || extra_h >= d.stride || extra_w < 0 || extra_w >= d.stride) return 1;
  const long long P = (long long)d.N * d.OH * d.OW;
  if (P == 0 || d.K == 0) return 0;
  const size_t sh = sizeof(float) * (size_t)d.C * d.R * d.S * KG;
  if (sh > 48 * 1024 &&
      cudaFuncSetAttribute(convt_fused, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh) != cudaSuccess)
    return 1;
  const dim3 grid((unsigned)((P + THREADS - 1) / THREADS), (unsigned)((d.K + KG - 1) / KG));
  convt_fused<<<grid, THREADS, sh, (cudaStream_t)c->stream>>>(
      (const float *)X->data, (const float *)Wt->data, (const float *)c->params[1].data,
      (const float *)c->params[2].data, (float *)Y->data, d);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
