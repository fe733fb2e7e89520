/* pool.c — host reference for cl1_op_pool: N-d max/average pooling as C loops over a 3-d
 * normal form (missing leading spatial dims are size 1 with a 1-wide window), average sums in
 * double. */
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

/* The window of output o along one dim: in-bounds [*lo, *hi) and the padded extent size
 * (PyTorch's avg divisor with count_include_pad: the window clipped to in + pad). */
static void window(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p, int64_t dil,
                   int64_t *lo, int64_t *hi, int64_t *padded) {
  int64_t start = o * s - p, end = start + (k - 1) * dil + 1;
  int64_t pend = end < in + p ? end : in + p;
  *padded = pend - start;
  *lo = start < 0 ? start + ((-start + dil - 1) / dil) * dil : start;  // first tap >= 0
  *hi = end < in ? end : in;
}

int cl1_op_pool(void *stream, int kind, const float *x, float *y, const cl1_pool_desc *d) {
  (void)stream;
  if (cl1_pool_desc_check(kind, d)) return 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1},
          p[3] = {0, 0, 0}, dl[3] = {1, 1, 1};
  int off = 3 - d->nsp;
  for (int i = 0; i < d->nsp; i++) {
    in[off + i] = d->in[i], out[off + i] = d->out[i], k[off + i] = d->k[i];
    s[off + i] = d->stride[i], p[off + i] = d->pad[i], dl[off + i] = d->dil[i];
  }
  int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  if (d->planes * out_plane == 0) return 0;
  if (!x || !y) return 1;
  for (int64_t pl = 0; pl < d->planes; pl++) {
    const float *xp = x + pl * in_plane;  // (in0, in1, in2)
    float *yp = y + pl * out_plane;       // (out0, out1, out2)
    for (int64_t a = 0; a < out[0]; a++) {
      int64_t lo0, hi0, n0;
      window(a, in[0], k[0], s[0], p[0], dl[0], &lo0, &hi0, &n0);
      for (int64_t b = 0; b < out[1]; b++) {
        int64_t lo1, hi1, n1;
        window(b, in[1], k[1], s[1], p[1], dl[1], &lo1, &hi1, &n1);
        for (int64_t c = 0; c < out[2]; c++) {
          int64_t lo2, hi2, n2;
          window(c, in[2], k[2], s[2], p[2], dl[2], &lo2, &hi2, &n2);
          double sum = 0.0, cnt = 0.0;
          float mx = -INFINITY;
          for (int64_t i0 = lo0; i0 < hi0; i0 += dl[0])
            for (int64_t i1 = lo1; i1 < hi1; i1 += dl[1])
              for (int64_t i2 = lo2; i2 < hi2; i2 += dl[2]) {
                float v = xp[(i0 * in[1] + i1) * in[2] + i2];
                if (v > mx || isnan(v)) mx = v;
                sum += v, cnt += 1.0;
                if (isnan(mx)) goto done;  // NaN wins: nothing can replace it
              }
        done:;
          float *o = &yp[(a * out[1] + b) * out[2] + c];
          if (kind == CL1_POOL_MAX) {
            *o = mx;
          } else {
            double div = d->count_include_pad ? (double)(n0 * n1 * n2) : cnt;
            *o = (float)(sum / div);
          }
        }
      }
    }
  }
  return 0;
}
