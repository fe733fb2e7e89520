/* l2_46_conv_tanh_avgpool_fused.cu — level2/46_Conv2d_Subtract_Tanh_Subtract_AvgPool:
 * y = avg_pool2d(tanh(conv2d(x, W, b) - s1) - s2, p) (pool kernel = stride = p, floor mode).
 * Technique: the chain fused into one kernel. A thread owns one pooled output pixel and a
 * group of 16 output channels: it evaluates the p x p conv outputs under its window one after
 * another (16 channels at a time in registers, FP32 FMAs against shared-memory weights read as
 * broadcast float4), applies the subtract / tanh / subtract epilogue to each and averages them
 * in the reference's order, then writes 16 pooled values. The reference materialises the full
 * conv output and passes over it four more times (two subtractions, tanh, the pool). */
#include <cudal1/solution.h>
#include <math.h>
#include <string.h>

#define THREADS 256
#define KG 16

struct dims { int N, C, H, W, K, R, S, PH, PW, P; float s1, s2; };

// grid (ceil(N*PH*PW / THREADS), ceil(K / KG))
__global__ static void __launch_bounds__(THREADS)
conv_tanh_pool(const float *__restrict__ x, const float *__restrict__ w,
               const float *__restrict__ cb, float *__restrict__ y, dims d) {
  extern __shared__ float4 smem4[];
  float *ws = (float *)smem4;  // [C*R*S][KG]
  const int CRS = d.C * d.R * d.S, k0 = blockIdx.y * KG;
  for (int i = threadIdx.x; i < CRS * KG; i += THREADS) {
    const int kk = i % KG, j = i / KG;
    ws[i] = k0 + kk < d.K ? w[(long long)(k0 + kk) * CRS + j] : 0.f;
  }
  __syncthreads();
  const long long q = blockIdx.x * (long long)THREADS + threadIdx.x;
  if (q >= (long long)d.N * d.PH * d.PW) return;
  const int pw = (int)(q % d.PW);
  const long long t = q / d.PW;
  const int ph = (int)(t % d.PH), n = (int)(t / d.PH);
  float bias[KG], pool[KG];
#pragma unroll
  for (int k = 0; k < KG; k++) bias[k] = k0 + k < d.K ? __ldg(cb + k0 + k) : 0.f, pool[k] = 0.f;
  const float *xn = x + (long long)n * d.C * d.H * d.W;
  for (int a = 0; a < d.P; a++)
    for (int b = 0; b < d.P; b++) {
      const int oh = ph * d.P + a, ow = pw * d.P + b;
      float acc[KG];
#pragma unroll
      for (int k = 0; k < KG; k++) acc[k] = bias[k];
      const float4 *wj = (const float4 *)ws;
      for (int c = 0; c < d.C; c++) {
        const float *xc = xn + (long long)c * d.H * d.W + (long long)oh * d.W + ow;
        for (int r = 0; r < d.R; r++)
          for (int s = 0; s < d.S; s++, wj += KG / 4) {
            const float v = __ldg(xc + r * d.W + s);
#pragma unroll
            for (int k = 0; k < KG / 4; k++) {
              const float4 f = wj[k];
              acc[4 * k] = fmaf(v, f.x, acc[4 * k]), acc[4 * k + 1] = fmaf(v, f.y, acc[4 * k + 1]);
              acc[4 * k + 2] = fmaf(v, f.z, acc[4 * k + 2]), acc[4 * k + 3] = fmaf(v, f.w, acc[4 * k + 3]);
            }
          }
      }
#pragma unroll
      for (int k = 0; k < KG; k++) pool[k] += tanhf(acc[k] + -d.s1) + -d.s2;
    }
  const float div = (float)(d.P * d.P);
  const long long plane = (long long)d.PH * d.PW;
  float *yp = y + ((long long)n * d.K + k0) * plane + (long long)ph * d.PW + pw;
#pragma unroll
  for (int k = 0; k < KG; k++)
    if (k0 + k < d.K) yp[k * plane] = pool[k] / div;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *X = &c->inputs[0], *Wt = &c->params[0], *Y = &c->outputs[0];
  if (X->ndim != 4 || Wt->ndim != 4 || Y->ndim != 4 || Wt->shape[1] != X->shape[1]) return 1;
  double s1 = 0, s2 = 0, pk = 0;
  int got = 0;
  for (int i = 0; i < c->n_attrs; i++) {
    if (!strcmp(c->attrs[i].name, "subtract1_value")) s1 = c->attrs[i].value, got |= 1;
    if (!strcmp(c->attrs[i].name, "subtract2_value")) s2 = c->attrs[i].value, got |= 2;
    if (!strcmp(c->attrs[i].name, "kernel_size_pool")) pk = c->attrs[i].value, got |= 4;
  }
  if (got != 7 || pk < 1) return 1;
  dims d;
  d.N = (int)X->shape[0], d.C = (int)X->shape[1], d.H = (int)X->shape[2], d.W = (int)X->shape[3];
  d.K = (int)Wt->shape[0], d.R = (int)Wt->shape[2], d.S = (int)Wt->shape[3];
  d.P = (int)pk, d.s1 = (float)s1, d.s2 = (float)s2;
  d.PH = (d.H - d.R + 1) / d.P, d.PW = (d.W - d.S + 1) / d.P;
  if (Y->shape[0] != d.N || Y->shape[1] != d.K || Y->shape[2] != d.PH || Y->shape[3] != d.PW)
    return 1;
  const long long Q = (long long)d.N * d.PH * d.PW;
  if (Q == 0 || d.K == 0) return 0;
  const size_t sh = sizeof(float) * (size_t)d.C * d.R * d.S * KG;
  if (sh > 48 * 1024 &&
      cudaFuncSetAttribute(conv_tanh_pool, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh) != cudaSuccess)
    return 1;
  const dim3 grid((unsigned)((Q + THREADS - 1) / THREADS), (unsigned)((d.K + KG - 1) / KG));
  conv_tanh_pool<<<grid, THREADS, sh, (cudaStream_t)c->stream>>>(
      (const float *)X->data, (const float *)Wt->data, (const float *)c->params[1].data,
      (float *)Y->data, d);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
