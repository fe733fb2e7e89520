/* test_ops_convt.c — the transposed-convolution group of the host op library (cl1_op_convtnd in
 * build/libcl1ops_host.so, loaded with dlopen) against a naive gather formulation written here
 * (each output element sums the taps whose scatter lands on it), on tiny random shapes covering
 * 1-d/2-d/3-d, groups, stride, padding, output_padding, dilation, bias and argument errors. */
#define OPS_SEED 0x9E3779B97F4A7C15ull
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"


static __typeof__(&cl1_op_convtnd) get_fn(void) { return OP(cl1_op_convtnd); }

static float *rnd(int64_t n) {
  float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) p[i] = frand();
  return p;
}

/* Output size by the definition: the last scatter target of the last input plus output_padding
 * (written independently of cl1_convt_out). */
static int64_t out_len(const cl1_convt_desc *d, int i) {
  int64_t last = (d->in[i] - 1) * d->stride[i] + (d->k[i] - 1) * d->dil[i];  // before cropping
  return last + 1 + d->out_pad[i] - 2 * d->pad[i];
}

/* Gather form: y[n, o, p] = bias[o] + sum over c in o's group, taps t with
 * p + pad - t*dil = i*stride, 0 <= i < in, of x[n, c, i] * w[c, o mod C_out/groups, t]. */
static void naive(const cl1_convt_desc *d, const float *x, const float *w, const float *b,
                  double *y) {
  int nd = d->nd;
  int64_t out[3], out_sp = 1, in_sp = 1, ktaps = 1;
  for (int i = 0; i < nd; i++)
    out[i] = out_len(d, i), out_sp *= out[i], in_sp *= d->in[i], ktaps *= d->k[i];
  int64_t cig = d->c_in / d->groups, cog = d->c_out / d->groups;
  for (int64_t n = 0; n < d->n; n++)
    for (int64_t o = 0; o < d->c_out; o++)
      for (int64_t p = 0; p < out_sp; p++) {
        int64_t pc[3], rem = p;
        for (int i = nd - 1; i >= 0; i--) pc[i] = rem % out[i], rem /= out[i];
        double s = b ? b[o] : 0.0;
        int64_t g = o / cog;
        for (int64_t t = 0; t < ktaps; t++) {
          int64_t tc[3], tr = t, xi = 0, ok = 1;
          for (int i = nd - 1; i >= 0; i--) tc[i] = tr % d->k[i], tr /= d->k[i];
          for (int i = 0; i < nd && ok; i++) {
            int64_t q = pc[i] + d->pad[i] - tc[i] * d->dil[i];
            if (q < 0 || q % d->stride[i] || q / d->stride[i] >= d->in[i]) ok = 0;
            else xi = xi * d->in[i] + q / d->stride[i];
          }
          if (!ok) continue;
          for (int64_t c = g * cig; c < (g + 1) * cig; c++)
            s += (double)x[(n * d->c_in + c) * in_sp + xi] *
                 w[(c * cog + (o - g * cog)) * ktaps + t];
        }
        y[(n * d->c_out + o) * out_sp + p] = s;
      }
}

static void check_case(const char *what, cl1_convt_desc d, int with_bias) {
  __typeof__(&cl1_op_convtnd) f = get_fn();
  int64_t in_sp = 1, out_sp = 1, ktaps = 1;
  for (int i = 0; i < d.nd; i++) {
    assert_int_equal(cl1_convt_out(&d, i), out_len(&d, i));
    in_sp *= d.in[i], out_sp *= out_len(&d, i), ktaps *= d.k[i];
  }
  int64_t nx = d.n * d.c_in * in_sp, nw = d.c_in * (d.c_out / d.groups) * ktaps;
  int64_t ny = d.n * d.c_out * out_sp;
  float *x = rnd(nx), *w = rnd(nw), *b = with_bias ? rnd(d.c_out) : NULL, *y = rnd(ny);
  double *want = malloc(sizeof(double) * (size_t)ny);
  assert_non_null(want);
  naive(&d, x, w, b, want);
  assert_int_equal(f(NULL, x, w, b, y, &d), 0);
  for (int64_t i = 0; i < ny; i++) {
    if (!(fabs((double)y[i] - want[i]) <= 1e-5 + 1e-5 * fabs(want[i])))
      fail_msg("%s: element %lld: got %.9g want %.9g", what, (long long)i, y[i], want[i]);
  }
  free(x), free(w), free(b), free(y), free(want);
}

static cl1_convt_desc mk(int nd, int64_t n, int64_t ci, int64_t co, int64_t g) {
  cl1_convt_desc d;
  memset(&d, 0, sizeof d);
  d.nd = nd, d.n = n, d.c_in = ci, d.c_out = co, d.groups = g;
  for (int i = 0; i < 3; i++) d.in[i] = 1, d.k[i] = 1, d.stride[i] = 1, d.dil[i] = 1;
  return d;
}

static void test_convt_1d(void **state) {
  (void)state;
  cl1_convt_desc d = mk(1, 2, 3, 4, 1);
  d.in[0] = 7, d.k[0] = 3;
  check_case("1d plain", d, 0);
  d.stride[0] = 2, d.pad[0] = 1, d.dil[0] = 2;  // KernelBench 79's configuration
  check_case("1d strided padded dilated", d, 0);
  d.out_pad[0] = 1;
  check_case("1d output_padding", d, 1);
  d = mk(1, 1, 4, 6, 2);
  d.in[0] = 1, d.k[0] = 5, d.dil[0] = 3;  // a single input position
  check_case("1d grouped single position", d, 1);
  d = mk(1, 3, 2, 1, 1);
  d.in[0] = 5, d.k[0] = 1;
  check_case("1d 1x1 kernel", d, 0);
}

static void test_convt_2d(void **state) {
  (void)state;
  cl1_convt_desc d = mk(2, 2, 4, 6, 2);
  d.in[0] = 5, d.in[1] = 6, d.k[0] = 3, d.k[1] = 5;
  d.stride[0] = 2, d.stride[1] = 3, d.pad[0] = 1, d.pad[1] = 2, d.dil[0] = 2;  // like 75
  check_case("2d grouped strided padded dilated", d, 0);
  d = mk(2, 1, 3, 5, 1);
  d.in[0] = 4, d.in[1] = 3, d.k[0] = 3, d.k[1] = 3;
  d.stride[0] = d.stride[1] = 5, d.pad[0] = d.pad[1] = 1, d.dil[0] = d.dil[1] = 2;  // like 81
  check_case("2d stride beyond the kernel", d, 1);
  d.out_pad[0] = 4, d.out_pad[1] = 2;  // output_padding up to max(stride, dilation) - 1
  check_case("2d output_padding", d, 0);
  d = mk(2, 2, 3, 3, 3);  // depthwise
  d.in[0] = 4, d.in[1] = 4, d.k[0] = 3, d.k[1] = 7, d.pad[0] = 1, d.pad[1] = 3;
  check_case("2d depthwise same-size", d, 1);
}

static void test_convt_3d(void **state) {
  (void)state;
  cl1_convt_desc d = mk(3, 2, 4, 8, 4);  // like 72
  d.in[0] = 3, d.in[1] = 4, d.in[2] = 5, d.k[0] = 3, d.k[1] = 5, d.k[2] = 3;
  for (int i = 0; i < 3; i++) d.stride[i] = 2, d.out_pad[i] = 1;
  d.pad[0] = 1, d.pad[1] = 2, d.pad[2] = 1;
  check_case("3d grouped strided padded output_padding", d, 0);
  d = mk(3, 1, 2, 3, 1);  // like 77
  for (int i = 0; i < 3; i++) d.in[i] = 3 + i, d.k[i] = 3, d.stride[i] = 2, d.pad[i] = 1,
                              d.dil[i] = 2;
  check_case("3d strided padded dilated", d, 1);
  d = mk(3, 1, 2, 2, 1);  // padding past the dilated kernel extent crops more (73 small)
  for (int i = 0; i < 3; i++) d.in[i] = 4, d.k[i] = 3, d.stride[i] = 2, d.pad[i] = 3;
  check_case("3d heavy padding", d, 0);
}

static void test_convt_args(void **state) {
  (void)state;
  __typeof__(&cl1_op_convtnd) f = get_fn();
  float buf[64] = {0};
  cl1_convt_desc d = mk(1, 1, 2, 2, 1);
  d.in[0] = 3, d.k[0] = 2;
  assert_int_equal(f(NULL, buf, buf, NULL, buf, &d), 0);
  assert_int_not_equal(f(NULL, buf, buf, NULL, buf, NULL), 0);
  assert_int_not_equal(f(NULL, NULL, buf, NULL, buf, &d), 0);
  cl1_convt_desc e = d;
  e.nd = 4;
  assert_int_not_equal(f(NULL, buf, buf, NULL, buf, &e), 0);
  e = d, e.groups = 3;  // channels not divisible
  assert_int_not_equal(f(NULL, buf, buf, NULL, buf, &e), 0);
  e = d, e.out_pad[0] = 1;  // output_padding must be < max(stride, dilation) = 1
  assert_int_not_equal(f(NULL, buf, buf, NULL, buf, &e), 0);
  e = d, e.pad[0] = 3;  // output size 4 - 6 < 1
  assert_int_not_equal(f(NULL, buf, buf, NULL, buf, &e), 0);
  e = d, e.stride[0] = 0;
  assert_int_not_equal(f(NULL, buf, buf, NULL, buf, &e), 0);
  e = d, e.n = 0;  // empty batch: nothing to touch
  assert_int_equal(f(NULL, NULL, NULL, NULL, NULL, &e), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_convt_1d), cmocka_unit_test(test_convt_2d),
      cmocka_unit_test(test_convt_3d), cmocka_unit_test(test_convt_args),
  };
  return cmocka_run_group_tests(tests, setup_lib, NULL);
}
