/* convtnd.c — host reference for cl1_op_convtnd: the direct scatter form of nn.ConvTranspose
 * over 1-3 spatial dims, accumulated in a double buffer and rounded to float once at the end. */
#include <stdlib.h>
#include "cudal1/ops.h"
#include "host_common.h"

/* d widened to exactly 3 spatial dims: leading unit dims (size 1, kernel 1) change nothing. */
static void widen3(const cl1_convt_desc *d, cl1_convt_desc *e) {
  *e = *d;
  e->nd = 3;
  int off = 3 - d->nd;
  for (int i = 0; i < 3; i++) {
    int j = i - off;
    e->in[i] = j >= 0 ? d->in[j] : 1;
    e->k[i] = j >= 0 ? d->k[j] : 1;
    e->stride[i] = j >= 0 ? d->stride[j] : 1;
    e->pad[i] = j >= 0 ? d->pad[j] : 0;
    e->out_pad[i] = j >= 0 ? d->out_pad[j] : 0;
    e->dil[i] = j >= 0 ? d->dil[j] : 1;
  }
}

int cl1_op_convtnd(void *stream, const float *x, const float *w, const float *bias, float *y,
                   const cl1_convt_desc *d) {
  (void)stream;
  if (cl1_convt_check(d)) return 1;
  if (d->n == 0) return 0;
  if (!x || !w || !y) return 1;
  cl1_convt_desc e;
  widen3(d, &e);
  int64_t od = cl1_convt_out(&e, 0), oh = cl1_convt_out(&e, 1), ow = cl1_convt_out(&e, 2);
  int64_t in_sp = e.in[0] * e.in[1] * e.in[2], out_sp = od * oh * ow;
  int64_t ktaps = e.k[0] * e.k[1] * e.k[2];
  int64_t cig = e.c_in / e.groups, cog = e.c_out / e.groups;  // channels per group in / out
  double *acc = malloc((size_t)(e.c_out * out_sp) * sizeof *acc);  // (C_out, out...) of one n
  if (!acc) return 1;
  for (int64_t n = 0; n < e.n; n++) {
    for (int64_t o = 0; o < e.c_out; o++)
      for (int64_t p = 0; p < out_sp; p++) acc[o * out_sp + p] = bias ? (double)bias[o] : 0.0;
    for (int64_t c = 0; c < e.c_in; c++) {
      int64_t g = c / cig;
      const float *xc = x + (n * e.c_in + c) * in_sp;  // (in...)
      for (int64_t i0 = 0; i0 < e.in[0]; i0++)
        for (int64_t i1 = 0; i1 < e.in[1]; i1++)
          for (int64_t i2 = 0; i2 < e.in[2]; i2++) {
            double xv = xc[(i0 * e.in[1] + i1) * e.in[2] + i2];
            for (int64_t o = 0; o < cog; o++) {
              const float *wt = w + (c * cog + o) * ktaps;  // (k...)
              double *yo = acc + (g * cog + o) * out_sp;    // (out...)
              for (int64_t t0 = 0; t0 < e.k[0]; t0++) {
                int64_t p0 = i0 * e.stride[0] - e.pad[0] + t0 * e.dil[0];
                if (p0 < 0 || p0 >= od) continue;
                for (int64_t t1 = 0; t1 < e.k[1]; t1++) {
                  int64_t p1 = i1 * e.stride[1] - e.pad[1] + t1 * e.dil[1];
                  if (p1 < 0 || p1 >= oh) continue;
                  for (int64_t t2 = 0; t2 < e.k[2]; t2++) {
                    int64_t p2 = i2 * e.stride[2] - e.pad[2] + t2 * e.dil[2];
                    if (p2 < 0 || p2 >= ow) continue;
                    yo[(p0 * oh + p1) * ow + p2] += xv * wt[(t0 * e.k[1] + t1) * e.k[2] + t2];
                  }
                }
              }
            }
          }
    }
    float *yn = y + n * e.c_out * out_sp;
    for (int64_t p = 0; p < e.c_out * out_sp; p++) yn[p] = (float)acc[p];
  }
  free(acc);
  return 0;
}
