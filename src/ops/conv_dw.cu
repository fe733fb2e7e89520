/* conv_dw.cu — direct depthwise convolution (groups == in channels), the path PyTorch's
 * _select_conv_backend takes for FP32 contiguous depthwise 2-d convs (CudaDepthwise2d; cuDNN
 * only for half or channels-last; 1-d convs are viewed as 2-d first): one thread per output
 * element, the bias as the accumulator's start, the kernel window read through the read-only
 * cache. cuDNN's depthwise algorithms ran KernelBench 83 (3 x 1 kernel) 4-6x slower than
 * PyTorch's kernel, so a reference through cuDNN inflated every speedup on such tasks. */
#include "conv_dw.cuh"

// x: (N, C, H, W); w: (K, 1, KH, KW) with K = C * mult; y: (N, K, OH, OW)
template <typename IT>
__global__ static void dw_fwd(const float *__restrict__ x, const float *__restrict__ w,
                              const float *__restrict__ bias, float *__restrict__ y, IT total,
                              IT C, IT H, IT W, IT K, IT OH, IT OW, int KH, int KW, int sh,
                              int sw, int ph, int pw, int dh, int dw, IT mult) {
  for (IT i = blockIdx.x * (IT)blockDim.x + threadIdx.x; i < total;
       i += (IT)gridDim.x * blockDim.x) {
    IT ow = i % OW, t = i / OW;
    IT oh = t % OH;
    t /= OH;
    IT k = t % K, n = t / K, c = k / mult;
    const float *xp = x + (n * C + c) * H * W;  // (H, W)
    const float *wp = w + k * (IT)(KH * KW);     // (KH, KW)
    float acc = bias ? __ldg(bias + k) : 0.f;
    int ih0 = (int)oh * sh - ph, iw0 = (int)ow * sw - pw;
    for (int a = 0; a < KH; a++) {
      int ih = ih0 + a * dh;
      if ((unsigned)ih >= (unsigned)H) continue;
      for (int b = 0; b < KW; b++) {
        int iw = iw0 + b * dw;
        if ((unsigned)iw < (unsigned)W)
          acc = fmaf(__ldg(xp + (IT)ih * W + iw), __ldg(wp + a * KW + b), acc);
      }
    }
    y[i] = acc;
  }
}

int cl1_conv_dw(cudaStream_t st, const float *x, const float *w, const float *bias, float *y,
                const cl1_convnd_desc *d) {
  if (!cl1_conv_dw_applies(d)) return 1;
  bool one = d->nd == 1;  // 1-d as 2-d with H = 1
  int64_t H = one ? 1 : d->in[0], W = d->in[one ? 0 : 1];
  int64_t KH = one ? 1 : d->ker[0], KW = d->ker[one ? 0 : 1];
  int64_t OH = one ? 1 : cl1_convnd_out(d, 0), OW = cl1_convnd_out(d, one ? 0 : 1);
  int sh = one ? 1 : (int)d->stride[0], sw = (int)d->stride[one ? 0 : 1];
  int ph = one ? 0 : (int)d->pad[0], pw = (int)d->pad[one ? 0 : 1];
  int dh = one ? 1 : (int)d->dil[0], dw = (int)d->dil[one ? 0 : 1];
  if (H > INT32_MAX / 2 || W > INT32_MAX / 2 || KH * KW > INT32_MAX) return 1;
  int64_t total = d->n * d->k * OH * OW, mult = d->k / d->c;
  unsigned grid = cl1_ops_grid(total, 256);
  if (total < (1LL << 31) && d->n * d->c * H * W < (1LL << 31))
    dw_fwd<uint32_t><<<grid, 256, 0, st>>>(x, w, bias, y, (uint32_t)total, (uint32_t)d->c,
                                           (uint32_t)H, (uint32_t)W, (uint32_t)d->k,
                                           (uint32_t)OH, (uint32_t)OW, (int)KH, (int)KW, sh, sw,
                                           ph, pw, dh, dw, (uint32_t)mult);
  else
    dw_fwd<int64_t><<<grid, 256, 0, st>>>(x, w, bias, y, total, d->c, H, W, d->k, OH, OW,
                                          (int)KH, (int)KW, sh, sw, ph, pw, dh, dw, mult);
  CL1_LAUNCH_CHECK();
  return 0;
}
