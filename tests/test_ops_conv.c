/* test_ops_conv.c — the conv-group host op cl1_op_convnd (build/libcl1ops_host.so, loaded with
 * dlopen) against a naive N-d cross-correlation written here from the documented layouts, on tiny
 * random data: 1-d, 2-d and 3-d, groups, stride, padding, dilation, bias, size-1 outputs, an
 * empty batch; against the existing host cl1_op_conv2d for 2-d; and rejection of bad args. */
#define OPS_SEED 0x2545F4914F6CDD1Dull
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"


static float *rnd(int64_t n) {
  float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) p[i] = frand();
  return p;
}

static int64_t out_size(const cl1_convnd_desc *d, int i) {  // PyTorch's formula, written out
  int64_t span = d->dil[i] * (d->ker[i] - 1) + 1;
  return (d->in[i] + 2 * d->pad[i] - span) / d->stride[i] + 1;
}

/* The naive convolution: every output element by its multi-index, every tap by its multi-index,
 * indexed straight from y (N, K, *out), x (N, C, *in), w (K, C/groups, *ker). */
static void naive(const cl1_convnd_desc *d, const float *x, const float *w, const float *b,
                  double *y) {
  int nd = d->nd;
  int64_t osp = 1, ksp = 1, isp = 1;
  for (int i = 0; i < nd; i++) osp *= out_size(d, i), ksp *= d->ker[i], isp *= d->in[i];
  int64_t cg = d->c / d->groups, kg = d->k / d->groups;
  for (int64_t n = 0; n < d->n; n++)
    for (int64_t k = 0; k < d->k; k++)
      for (int64_t o = 0; o < osp; o++) {
        int64_t oi[3], rem = o;
        for (int i = nd - 1; i >= 0; i--) oi[i] = rem % out_size(d, i), rem /= out_size(d, i);
        double s = b ? b[k] : 0.0;
        for (int64_t c = 0; c < cg; c++)
          for (int64_t t = 0; t < ksp; t++) {
            int64_t ti[3], r2 = t, xoff = 0;
            for (int i = nd - 1; i >= 0; i--) ti[i] = r2 % d->ker[i], r2 /= d->ker[i];
            int inside = 1;
            for (int i = 0; i < nd; i++) {
              int64_t p = oi[i] * d->stride[i] - d->pad[i] + ti[i] * d->dil[i];
              if (p < 0 || p >= d->in[i]) inside = 0;
              xoff = xoff * d->in[i] + p;
            }
            if (!inside) continue;
            int64_t ci = (k / kg) * cg + c;
            s += (double)x[(n * d->c + ci) * isp + xoff] * w[(k * cg + c) * ksp + t];
          }
        y[(n * d->k + k) * osp + o] = s;
      }
}

/* Runs cl1_op_convnd on fresh random data and compares with naive(); returns nothing, fails. */
static void check(const cl1_convnd_desc *d, int with_bias) {
  __typeof__(&cl1_op_convnd) f = OP(cl1_op_convnd);
  int64_t isp = 1, ksp = 1, osp = 1;
  for (int i = 0; i < d->nd; i++) isp *= d->in[i], ksp *= d->ker[i], osp *= out_size(d, i);
  int64_t nx = d->n * d->c * isp, nw = d->k * (d->c / d->groups) * ksp, ny = d->n * d->k * osp;
  float *x = rnd(nx), *w = rnd(nw), *b = with_bias ? rnd(d->k) : NULL, *y = poisoned(ny);
  double *want = malloc(sizeof(double) * (size_t)(ny > 0 ? ny : 1));
  assert_non_null(want);
  naive(d, x, w, b, want);
  assert_int_equal(f(NULL, x, w, b, y, d), 0);
  for (int64_t i = 0; i < ny; i++) {
    double e = fabs((double)y[i] - want[i]);
    if (!(e <= 1e-5 + 1e-5 * fabs(want[i])))
      fail_msg("convnd nd=%d groups=%lld: element %lld: got %.9g want %.9g", d->nd,
               (long long)d->groups, (long long)i, y[i], want[i]);
  }
  free(x), free(w), free(b), free(y), free(want);
}

static cl1_convnd_desc desc(int nd, int64_t n, int64_t c, int64_t k, int64_t groups) {
  cl1_convnd_desc d;
  memset(&d, 0, sizeof d);
  d.nd = nd, d.n = n, d.c = c, d.k = k, d.groups = groups;
  for (int i = 0; i < 3; i++) d.stride[i] = 1, d.dil[i] = 1, d.in[i] = 1, d.ker[i] = 1;
  return d;
}

static void test_convnd_1d(void **state) {
  (void)state;
  cl1_convnd_desc d = desc(1, 2, 3, 4, 1);
  d.in[0] = 13, d.ker[0] = 3;
  check(&d, 0);
  d.stride[0] = 2, d.pad[0] = 1, d.dil[0] = 2;  // strided, dilated, padded, with a tail
  check(&d, 1);
  d = desc(1, 3, 6, 9, 3);  // groups, kernel 1
  d.in[0] = 7;
  check(&d, 1);
  d = desc(1, 1, 2, 2, 1);  // the kernel covers the whole padded input: one output
  d.in[0] = 3, d.ker[0] = 5, d.pad[0] = 1;
  check(&d, 1);
}

static void test_convnd_2d(void **state) {
  (void)state;
  cl1_convnd_desc d = desc(2, 2, 3, 5, 1);
  d.in[0] = 9, d.in[1] = 11, d.ker[0] = 3, d.ker[1] = 5;
  check(&d, 0);
  d = desc(2, 2, 4, 6, 2);  // groups, asymmetric stride / padding / dilation
  d.in[0] = 10, d.in[1] = 7, d.ker[0] = 3, d.ker[1] = 2;
  d.stride[0] = 2, d.stride[1] = 3, d.pad[0] = 2, d.pad[1] = 1, d.dil[0] = 3, d.dil[1] = 2;
  check(&d, 1);
  d = desc(2, 2, 5, 5, 5);  // depthwise, vertical kernel
  d.in[0] = 8, d.in[1] = 6, d.ker[0] = 3;
  check(&d, 0);
  d = desc(2, 1, 4, 8, 2);  // depthwise-style groups with channel multiplier 4 per group
  d.in[0] = 5, d.in[1] = 5, d.ker[0] = 2, d.ker[1] = 2, d.pad[0] = 1, d.pad[1] = 1;
  check(&d, 1);
}

static void test_convnd_3d(void **state) {
  (void)state;
  cl1_convnd_desc d = desc(3, 2, 3, 4, 1);
  d.in[0] = 5, d.in[1] = 6, d.in[2] = 7, d.ker[0] = 2, d.ker[1] = 3, d.ker[2] = 4;
  check(&d, 0);
  d = desc(3, 1, 4, 6, 2);  // groups, strides, padding, dilation per dim
  d.in[0] = 6, d.in[1] = 7, d.in[2] = 5, d.ker[0] = 3, d.ker[1] = 2, d.ker[2] = 1;
  d.stride[0] = 2, d.stride[1] = 1, d.stride[2] = 3, d.pad[0] = 1, d.pad[2] = 2;
  d.dil[0] = 2, d.dil[1] = 3;
  check(&d, 1);
}

/* For 2-d the generic op must agree with the existing cl1_op_conv2d. */
static void test_convnd_vs_conv2d(void **state) {
  (void)state;
  __typeof__(&cl1_op_convnd) f = OP(cl1_op_convnd);
  __typeof__(&cl1_op_conv2d) g = OP(cl1_op_conv2d);
  cl1_conv2d_desc c2 = {.n = 2, .c = 6, .h = 11, .w = 9, .k = 4, .r = 3, .s = 2,
                        .stride_h = 2, .stride_w = 1, .pad_h = 1, .pad_w = 2, .dil_h = 2,
                        .dil_w = 3, .groups = 2};
  cl1_convnd_desc d = desc(2, 2, 6, 4, 2);
  d.in[0] = 11, d.in[1] = 9, d.ker[0] = 3, d.ker[1] = 2, d.stride[0] = 2, d.pad[0] = 1;
  d.pad[1] = 2, d.dil[0] = 2, d.dil[1] = 3;
  int64_t oh = cl1_conv2d_out_h(&c2), ow = cl1_conv2d_out_w(&c2);
  assert_int_equal(oh, cl1_convnd_out(&d, 0));
  assert_int_equal(ow, cl1_convnd_out(&d, 1));
  int64_t ny = 2 * 4 * oh * ow;
  float *x = rnd(2 * 6 * 11 * 9), *w = rnd(4 * 3 * 3 * 2), *b = rnd(4);
  float *y1 = poisoned(ny), *y2 = poisoned(ny);
  assert_int_equal(f(NULL, x, w, b, y1, &d), 0);
  assert_int_equal(g(NULL, x, w, b, y2, &c2), 0);
  for (int64_t i = 0; i < ny; i++)
    if (!(fabsf(y1[i] - y2[i]) <= 1e-6f + 1e-6f * fabsf(y2[i])))
      fail_msg("element %lld: convnd %.9g conv2d %.9g", (long long)i, y1[i], y2[i]);
  free(x), free(w), free(b), free(y1), free(y2);
}

static void test_convnd_bad_args(void **state) {
  (void)state;
  __typeof__(&cl1_op_convnd) f = OP(cl1_op_convnd);
  float v[64] = {0};
  cl1_convnd_desc d = desc(2, 1, 2, 2, 1);
  d.in[0] = d.in[1] = 3, d.ker[0] = d.ker[1] = 2;
  assert_int_equal(f(NULL, v, v, NULL, v + 32, &d), 0);
  cl1_convnd_desc e = d;
  e.n = 0;  // an empty batch is a no-op, even without data
  assert_int_equal(f(NULL, NULL, NULL, NULL, NULL, &e), 0);
  assert_int_not_equal(f(NULL, NULL, v, NULL, v, &d), 0);
  assert_int_not_equal(f(NULL, v, v, NULL, v, NULL), 0);
  e = d, e.nd = 0;
  assert_int_not_equal(f(NULL, v, v, NULL, v, &e), 0);
  e = d, e.nd = 4;
  assert_int_not_equal(f(NULL, v, v, NULL, v, &e), 0);
  e = d, e.groups = 3;  // does not divide the channels
  assert_int_not_equal(f(NULL, v, v, NULL, v, &e), 0);
  e = d, e.ker[1] = 4;  // output size < 1
  assert_int_not_equal(f(NULL, v, v, NULL, v, &e), 0);
  e = d, e.stride[0] = 0;
  assert_int_not_equal(f(NULL, v, v, NULL, v, &e), 0);
  e = d, e.pad[1] = -1;
  assert_int_not_equal(f(NULL, v, v, NULL, v, &e), 0);
  e = d, e.dil[0] = 0;
  assert_int_not_equal(f(NULL, v, v, NULL, v, &e), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_convnd_1d),        cmocka_unit_test(test_convnd_2d),
      cmocka_unit_test(test_convnd_3d),        cmocka_unit_test(test_convnd_vs_conv2d),
      cmocka_unit_test(test_convnd_bad_args),
  };
  return cmocka_run_group_tests_name("ops_conv_host", tests, setup_lib, NULL);
}
