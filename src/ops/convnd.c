/* convnd.c — host reference for cl1_op_convnd: direct N-d cross-correlation (1-3 spatial dims)
 * with zero padding, stride, dilation, groups and optional bias as nn.ConvNd, accumulated in
 * double. Fewer than 3 spatial dims are handled as 3 with leading size-1 dims. */
#include <assert.h>
#include "cudal1/ops.h"
#include "host_common.h"

int cl1_op_convnd(void *stream, const float *x, const float *w, const float *bias, float *y,
                  const cl1_convnd_desc *d) {
  (void)stream;
  if (!cl1_convnd_valid(d)) return 1;
  if (d->n == 0) return 0;
  if (!x || !w || !y) return 1;
  // Padded to 3 spatial dims: a leading dim of size 1 with kernel 1 adds nothing.
  int64_t in[3], ker[3], st[3], pad[3], dil[3], out[3];
  int off = 3 - d->nd;
  for (int i = 0; i < 3; i++) {
    int j = i - off;
    in[i] = j < 0 ? 1 : d->in[j];
    ker[i] = j < 0 ? 1 : d->ker[j];
    st[i] = j < 0 ? 1 : d->stride[j];
    pad[i] = j < 0 ? 0 : d->pad[j];
    dil[i] = j < 0 ? 1 : d->dil[j];
    out[i] = j < 0 ? 1 : cl1_convnd_out(d, j);
    assert(out[i] >= 1);
  }
  int64_t cg = d->c / d->groups, kg = d->k / d->groups;  // channels per group in / out
  int64_t in_sp = in[0] * in[1] * in[2], out_sp = out[0] * out[1] * out[2];
  int64_t ker_sp = ker[0] * ker[1] * ker[2];
  for (int64_t n = 0; n < d->n; n++)
    for (int64_t k = 0; k < d->k; k++) {
      int64_t g = k / kg;
      const float *wk = w + k * cg * ker_sp;    // (C/groups, *ker)
      float *yk = y + (n * d->k + k) * out_sp;  // (*out)
      for (int64_t o0 = 0; o0 < out[0]; o0++)
        for (int64_t o1 = 0; o1 < out[1]; o1++)
          for (int64_t o2 = 0; o2 < out[2]; o2++) {
            double s = bias ? (double)bias[k] : 0.0;
            for (int64_t c = 0; c < cg; c++) {
              const float *xc = x + (n * d->c + g * cg + c) * in_sp;  // (*in)
              const float *wc = wk + c * ker_sp;
              for (int64_t t0 = 0; t0 < ker[0]; t0++) {
                int64_t i0 = o0 * st[0] - pad[0] + t0 * dil[0];
                if (i0 < 0 || i0 >= in[0]) continue;
                for (int64_t t1 = 0; t1 < ker[1]; t1++) {
                  int64_t i1 = o1 * st[1] - pad[1] + t1 * dil[1];
                  if (i1 < 0 || i1 >= in[1]) continue;
                  const float *xr = xc + (i0 * in[1] + i1) * in[2];
                  const float *wr = wc + (t0 * ker[1] + t1) * ker[2];
                  for (int64_t t2 = 0; t2 < ker[2]; t2++) {
                    int64_t i2 = o2 * st[2] - pad[2] + t2 * dil[2];
                    if (i2 < 0 || i2 >= in[2]) continue;
                    s += (double)xr[i2] * wr[t2];
                  }
                }
              }
            }
            yk[(o0 * out[1] + o1) * out[2] + o2] = (float)s;
          }
    }
  return 0;
}
