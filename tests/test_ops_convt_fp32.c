/* test_ops_convt_fp32.c — cl1_op_convtnd with cl1_convt_desc.no_tf32 = 1 (the full-FP32 transposed
 * conv of level3/45, build/libcl1ops_host.so via dlopen) against the scatter formula written here
 * in double, for U-Net's kernel 2 / stride 2 with bias, an odd 1-d case with padding, output
 * padding, dilation and groups, plus an empty batch and the argument checks: the flag must not
 * change what is accepted or computed on the host (it only selects cuDNN's FMA math). */
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include "cudal1/ops.h"


#define CONVT OP(cl1_op_convtnd)

static float frand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (float)((*s >> 8) & 0xffff) / 32768.f - 1.f;
}

/* y[n, g*og + o, i*s - p + t*dl] += x[n, g*ig + c, i] * w[g*ig + c, o, t], over 1 or 2 spatial
 * dims (nd 1: h sizes are 1), then + bias. */
static void naive(const float *x, const float *w, const float *b, double *y,
                  const cl1_convt_desc *d) {
  int two = d->nd == 2;
  int64_t ih = two ? d->in[0] : 1, iw = d->in[two], kh = two ? d->k[0] : 1, kw = d->k[two];
  int64_t oh = two ? cl1_convt_out(d, 0) : 1, ow = cl1_convt_out(d, two);
  int64_t ig = d->c_in / d->groups, og = d->c_out / d->groups;
  for (int64_t i = 0; i < d->n * d->c_out * oh * ow; i++)
    y[i] = b ? b[(i / (oh * ow)) % d->c_out] : 0;
  for (int64_t n = 0; n < d->n; n++)
    for (int64_t ci = 0; ci < d->c_in; ci++)
      for (int64_t o = 0; o < og; o++)
        for (int64_t a = 0; a < ih; a++)
          for (int64_t e = 0; e < iw; e++)
            for (int64_t r = 0; r < kh; r++)
              for (int64_t q = 0; q < kw; q++) {
                int64_t yh = two ? a * d->stride[0] - d->pad[0] + r * d->dil[0] : 0;
                int64_t yw = e * d->stride[two] - d->pad[two] + q * d->dil[two];
                if (yh < 0 || yh >= oh || yw < 0 || yw >= ow) continue;
                int64_t co = (ci / ig) * og + o;
                y[((n * d->c_out + co) * oh + yh) * ow + yw] +=
                    (double)x[((n * d->c_in + ci) * ih + a) * iw + e] *
                    w[((ci * og + o) * kh + r) * kw + q];
              }
}

static void check(const cl1_convt_desc *d, int with_bias) {
  int two = d->nd == 2;
  int64_t ih = two ? d->in[0] : 1, iw = d->in[two];
  int64_t oh = two ? cl1_convt_out(d, 0) : 1, ow = cl1_convt_out(d, two);
  int64_t kk = (two ? d->k[0] : 1) * d->k[two];
  int64_t nx = d->n * d->c_in * ih * iw, nw = d->c_in * (d->c_out / d->groups) * kk;
  int64_t ny = d->n * d->c_out * oh * ow;
  float *x = malloc(nx * sizeof *x), *w = malloc(nw * sizeof *w), *b = malloc(d->c_out * 4);
  float *y = malloc(ny * sizeof *y);
  double *r = malloc(ny * sizeof *r);
  assert_non_null(x), assert_non_null(w), assert_non_null(b), assert_non_null(y);
  assert_non_null(r);
  unsigned s = 7;
  for (int64_t i = 0; i < nx; i++) x[i] = frand(&s);
  for (int64_t i = 0; i < nw; i++) w[i] = frand(&s);
  for (int64_t i = 0; i < d->c_out; i++) b[i] = frand(&s);
  for (int64_t i = 0; i < ny; i++) y[i] = NAN;
  assert_int_equal(CONVT(NULL, x, w, with_bias ? b : NULL, y, d), 0);
  naive(x, w, with_bias ? b : NULL, r, d);
  for (int64_t i = 0; i < ny; i++) assert_true(fabs(y[i] - r[i]) <= 1e-5 * (1 + fabs(r[i])));
  free(x), free(w), free(b), free(y), free(r);
}

/* U-Net's upconv: kernel 2, stride 2, bias, odd sizes. */
static void test_unet_upconv(void **state) {
  (void)state;
  cl1_convt_desc d = {.nd = 2, .n = 2, .c_in = 5, .c_out = 3, .in = {3, 7}, .k = {2, 2},
                      .stride = {2, 2}, .dil = {1, 1}, .groups = 1, .no_tf32 = 1};
  check(&d, 1);
}

/* Overlapping taps, padding, output padding, dilation and groups; 1-d and 2-d. */
static void test_general(void **state) {
  (void)state;
  cl1_convt_desc d1 = {.nd = 1, .n = 3, .c_in = 4, .c_out = 6, .in = {9}, .k = {3},
                       .stride = {2}, .pad = {1}, .out_pad = {1}, .dil = {2}, .groups = 2,
                       .no_tf32 = 1};
  check(&d1, 1);
  cl1_convt_desc d2 = {.nd = 2, .n = 1, .c_in = 3, .c_out = 2, .in = {4, 5}, .k = {3, 2},
                       .stride = {1, 3}, .pad = {1, 0}, .dil = {1, 1}, .groups = 1, .no_tf32 = 1};
  check(&d2, 0);
}

static void test_checks(void **state) {
  (void)state;
  float x[8] = {0}, w[8] = {0}, y[32] = {0};
  cl1_convt_desc d = {.nd = 2, .n = 1, .c_in = 2, .c_out = 1, .in = {1, 2}, .k = {2, 2},
                      .stride = {2, 2}, .dil = {1, 1}, .groups = 1, .no_tf32 = 1};
  assert_int_equal(CONVT(NULL, x, w, NULL, y, &d), 0);
  assert_int_not_equal(CONVT(NULL, NULL, w, NULL, y, &d), 0);
  cl1_convt_desc bad = d;
  bad.out_pad[0] = 2;  // must be < max(stride, dilation)
  assert_int_not_equal(CONVT(NULL, x, w, NULL, y, &bad), 0);
  bad = d, bad.groups = 3;
  assert_int_not_equal(CONVT(NULL, x, w, NULL, y, &bad), 0);
  bad = d, bad.n = 0;  // an empty batch is a no-op
  assert_int_equal(CONVT(NULL, NULL, NULL, NULL, NULL, &bad), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unet_upconv),
      cmocka_unit_test(test_general),
      cmocka_unit_test(test_checks),
  };
  return cmocka_run_group_tests(tests, setup_lib, NULL);
}
