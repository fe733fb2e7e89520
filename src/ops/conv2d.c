/* conv2d.c — host reference for cl1_op_conv2d: direct cross-correlation with zero padding,
 * stride, dilation and groups as nn.Conv2d, accumulated in double. */
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_conv2d(void *stream, const float *x, const float *w, const float *bias, float *y,
                  const cl1_conv2d_desc *d) {
  (void)stream;
  if (!d || d->n < 0 || d->c < 1 || d->h < 1 || d->w < 1 || d->k < 1 || d->r < 1 || d->s < 1 ||
      d->stride_h < 1 || d->stride_w < 1 || d->pad_h < 0 || d->pad_w < 0 || d->dil_h < 1 ||
      d->dil_w < 1 || d->groups < 1 || d->c % d->groups || d->k % d->groups)
    return 1;
  int64_t oh = cl1_conv2d_out_h(d), ow = cl1_conv2d_out_w(d);
  if (oh < 1 || ow < 1) return 1;
  if (d->n == 0) return 0;
  if (!x || !w || !y) return 1;
  int64_t cg = d->c / d->groups, kg = d->k / d->groups;  // channels per group in / out
  for (int64_t n = 0; n < d->n; n++)
    for (int64_t k = 0; k < d->k; k++) {
      int64_t g = k / kg;
      const float *wk = w + k * cg * d->r * d->s;  // (C/groups, R, S)
      float *yk = y + (n * d->k + k) * oh * ow;    // (OH, OW)
      for (int64_t p = 0; p < oh; p++)
        for (int64_t q = 0; q < ow; q++) {
          double s = bias ? (double)bias[k] : 0.0;
          for (int64_t c = 0; c < cg; c++) {
            const float *xc = x + (n * d->c + g * cg + c) * d->h * d->w;  // (H, W)
            for (int64_t r = 0; r < d->r; r++) {
              int64_t ih = p * d->stride_h - d->pad_h + r * d->dil_h;
              if (ih < 0 || ih >= d->h) continue;
              for (int64_t t = 0; t < d->s; t++) {
                int64_t iw = q * d->stride_w - d->pad_w + t * d->dil_w;
                if (iw < 0 || iw >= d->w) continue;
                s += (double)xc[ih * d->w + iw] * wk[(c * d->r + r) * d->s + t];
              }
            }
          }
          yk[p * ow + q] = (float)s;
        }
    }
  return 0;
}
