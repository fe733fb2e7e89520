/* test_ops_softmax_bcast.c — host ops (build/libcl1ops_host.so, loaded with dlopen):
 * cl1_op_logsumexp and cl1_op_softmax_dim (the softmax family over a middle dim), cl1_op_unary's
 * HardSwish / Mish / min-max-div-by-scalar kinds and cl1_op_binary_bcast over 3 dims, against naive references written here in other forms (unshifted sums in long
 * double, piecewise formulas, broadcasting by operand shape), on random data, the special
 * values (+-inf, NaN, branch points) and edge sizes (empty, 1, odd). */
#define OPS_SEED 0x2545F4914F6CDD1Dull
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"


static float *rnd(int64_t n, float scale) {
  float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) p[i] = scale * frand();
  return p;
}
static double *dbl(int64_t n) {
  double *p = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  assert_non_null(p);
  return p;
}

static void test_logsumexp(void **state) {
  (void)state;
  __typeof__(&cl1_op_logsumexp) f = OP(cl1_op_logsumexp);
  const int64_t shapes[][3] = {{1, 1, 1}, {3, 1, 5}, {2, 7, 1}, {4, 33, 3}, {1, 1000, 1},
                               {5, 16, 17}, {0, 4, 3}, {2, 3, 0}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t O = shapes[s][0], R = shapes[s][1], I = shapes[s][2], n = O * R * I;
    float *x = rnd(n, 8), *y = poisoned(O * I);
    double *w = dbl(O * I);
    for (int64_t o = 0; o < O; o++)
      for (int64_t i = 0; i < I; i++) {
        long double acc = 0;  // unshifted: |x| <= 8 cannot overflow
        for (int64_t r = 0; r < R; r++) acc += expl((long double)x[(o * R + r) * I + i]);
        w[o * I + i] = (double)logl(acc);
      }
    assert_int_equal(f(NULL, x, y, O, R, I), 0);
    close_all("logsumexp", y, w, O * I, 1e-6, 1e-6);
    free(x), free(y), free(w);
  }
  // large values (a naive sum would overflow), -inf rows, +inf and NaN
  float x[4 * 3] = {1000.f, 999.f, 1000.f, -INFINITY, -INFINITY, -INFINITY,
                    1.f, INFINITY, -2.f, 0.f, NAN, 5.f};
  float y[4];
  double w[4] = {1000.0 + log(2.0 + exp(-1.0)), -INFINITY, INFINITY, NAN};
  assert_int_equal(f(NULL, x, y, 4, 3, 1), 0);
  close_all("logsumexp special", y, w, 4, 1e-4, 1e-6);
  assert_int_not_equal(f(NULL, x, y, 4, 0, 1), 0);  // empty reduced dim: PyTorch raises
  assert_int_not_equal(f(NULL, x, y, -1, 3, 1), 0);
}

static void test_softmax_dim(void **state) {
  (void)state;
  __typeof__(&cl1_op_softmax_dim) f = OP(cl1_op_softmax_dim);
  const int64_t shapes[][3] = {{1, 1, 1}, {2, 1, 5}, {3, 7, 1}, {2, 16, 9}, {1, 5, 130},
                               {0, 3, 2}, {2, 0, 3}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t O = shapes[s][0], R = shapes[s][1], I = shapes[s][2], n = O * R * I;
    float *x = rnd(n, 6), *y = poisoned(n);
    double *w = dbl(n);
    for (int64_t o = 0; o < O; o++)
      for (int64_t i = 0; i < I; i++) {
        long double acc = 0;
        for (int64_t r = 0; r < R; r++) acc += expl((long double)x[(o * R + r) * I + i]);
        for (int64_t r = 0; r < R; r++)
          w[(o * R + r) * I + i] = (double)(expl((long double)x[(o * R + r) * I + i]) / acc);
      }
    assert_int_equal(f(NULL, x, y, O, R, I), 0);
    close_all("softmax_dim", y, w, n, 1e-7, 1e-6);
    if (n) assert_int_not_equal(f(NULL, x, x, O, R, I), 0);  // no in-place
    free(x), free(y), free(w);
  }
  float x[2 * 2] = {500.f, 0.f, 501.f, 0.f}, y[4];  // (1, 2, 2): shift needed in column 0
  double w[4] = {1.0 / (1.0 + exp(1.0)), 0.5, exp(1.0) / (1.0 + exp(1.0)), 0.5};
  assert_int_equal(f(NULL, x, y, 1, 2, 2), 0);
  close_all("softmax_dim shift", y, w, 4, 1e-7, 1e-6);
}

static double hardswish_ref(double v) {
  if (v <= -3) return 0;
  if (v >= 3) return v;
  return v * (v + 3) / 6;
}

static void test_unary_more_kinds(void **state) {
  (void)state;
  __typeof__(&cl1_op_unary) f = OP(cl1_op_unary);
  static const float special[] = {0.f, -3.f, 3.f, -2.999f, 2.999f, 25.f, -25.f, 100.f, 1.f,
                                  -1.f, 0.5f, -0.5f};
  int64_t sizes[] = {0, 1, 12, 1001};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int64_t n = sizes[s];
    float *x = rnd(n, 6);
    for (int64_t i = 0; i < n && i < (int64_t)(sizeof special / sizeof *special); i++)
      x[i] = special[i];
    float *y = poisoned(n);
    double *w = dbl(n);
    for (int kind = CL1_UNARY_HARDSWISH; kind <= CL1_UNARY_DIV_SCALAR; kind++) {
      double a = kind == CL1_UNARY_DIV_SCALAR ? 6.0 : 0.25;
      for (int64_t i = 0; i < n; i++) {
        double v = x[i];
        switch (kind) {
          case CL1_UNARY_HARDSWISH: w[i] = hardswish_ref(v); break;
          case CL1_UNARY_MISH: w[i] = v * tanh(log(1.0 + exp(v))); break;
          case CL1_UNARY_MIN_SCALAR: w[i] = fmin(v, a); break;
          case CL1_UNARY_MAX_SCALAR: w[i] = fmax(v, a); break;
          default: w[i] = v / a; break;
        }
      }
      assert_int_equal(f(NULL, (cl1_unary_kind)kind, x, y, n, a, 0), 0);
      close_all("unary_e", y, w, n, 1e-7, 1e-6);
    }
    free(x), free(y), free(w);
  }
  float x[3] = {NAN, 1.f, -1.f}, y[3];
  double wmin[3] = {NAN, 0.0, -1.0}, wmax[3] = {NAN, 1.0, 0.0};
  assert_int_equal(f(NULL, CL1_UNARY_MIN_SCALAR, x, y, 3, 0.0, 0), 0);
  close_all("min NaN", y, wmin, 3, 0, 0);
  assert_int_equal(f(NULL, CL1_UNARY_MAX_SCALAR, x, y, 3, 0.0, 0), 0);
  close_all("max NaN", y, wmax, 3, 0, 0);
  assert_int_equal(f(NULL, CL1_UNARY_MAX_SCALAR, x, x, 3, 0.0, 0), 0);  // in place
  close_all("max in place", x, wmax, 3, 0, 0);
  assert_int_not_equal(f(NULL, CL1_UNARY_N, x, y, 3, 0.0, 0), 0);
  assert_int_not_equal(f(NULL, (cl1_unary_kind)-1, x, y, 3, 0.0, 0), 0);
}

static double bc_ref(int kind, double u, double v) {
  switch (kind) {
    case CL1_BINARY_ADD: return u + v;
    case CL1_BINARY_SUB: return u - v;
    case CL1_BINARY_MUL: return u * v;
    case CL1_BINARY_DIV: return u / v;
    case CL1_BINARY_MIN: return isnan(u) || isnan(v) ? NAN : fmin(u, v);
    default: return isnan(u) || isnan(v) ? NAN : fmax(u, v);
  }
}

/* Operands given by their own shapes (1 = broadcast), broadcast against out (d0, d1, d2). */
static void check_bcast(__typeof__(&cl1_op_binary_bcast) f, const int64_t d[3],
                        const int64_t xshape[3], const int64_t zshape[3]) {
  int64_t nx = xshape[0] * xshape[1] * xshape[2], nz = zshape[0] * zshape[1] * zshape[2];
  int64_t n = d[0] * d[1] * d[2];
  float *x = rnd(nx, 3), *z = rnd(nz, 3), *y = poisoned(n);
  if (nz > 1) z[1] = NAN;
  double *w = dbl(n);
  int64_t xs[3] = {xshape[1] * xshape[2], xshape[2], 1}, zs[3] = {zshape[1] * zshape[2],
                                                                  zshape[2], 1};
  for (int k = 0; k < 3; k++) {
    if (xshape[k] == 1) xs[k] = 0;
    if (zshape[k] == 1) zs[k] = 0;
  }
  for (int kind = 0; kind < CL1_BINARY_N; kind++) {
    for (int64_t a = 0; a < d[0]; a++)
      for (int64_t b = 0; b < d[1]; b++)
        for (int64_t c = 0; c < d[2]; c++) {
          int64_t ix = ((xshape[0] == 1 ? 0 : a) * xshape[1] + (xshape[1] == 1 ? 0 : b)) *
                           xshape[2] + (xshape[2] == 1 ? 0 : c);
          int64_t iz = ((zshape[0] == 1 ? 0 : a) * zshape[1] + (zshape[1] == 1 ? 0 : b)) *
                           zshape[2] + (zshape[2] == 1 ? 0 : c);
          w[(a * d[1] + b) * d[2] + c] = bc_ref(kind, x[ix], z[iz]);
        }
    assert_int_equal(f(NULL, (cl1_binary_kind)kind, x, xs, z, zs, y, 3, d), 0);
    close_all("binary_bcast", y, w, n, 0, 1e-7);
  }
  free(x), free(z), free(y), free(w);
}

static void test_binary_bcast(void **state) {
  (void)state;
  __typeof__(&cl1_op_binary_bcast) f = OP(cl1_op_binary_bcast);
  const int64_t cases[][3][3] = {
      {{2, 3, 5}, {2, 3, 5}, {2, 3, 5}},     // same shapes
      {{2, 3, 5}, {2, 3, 5}, {1, 1, 1}},     // 0-dim parameter
      {{4, 7, 9}, {4, 7, 9}, {1, 7, 1}},     // per-channel (C, 1, 1)
      {{6, 5, 1}, {1, 5, 1}, {6, 1, 1}},     // outer sum: [B, 1] + [1, C]-like
      {{3, 11, 1}, {3, 1, 1}, {3, 11, 1}},   // [B, 1] + [B, N] residual
      {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}},
      {{0, 3, 2}, {1, 3, 2}, {1, 1, 1}}};
  for (size_t s = 0; s < sizeof cases / sizeof *cases; s++)
    check_bcast(f, cases[s][0], cases[s][1], cases[s][2]);
  // in place on the contiguous operand
  float x[6] = {1, 2, 3, 4, 5, 6}, z[2] = {10, 20};
  int64_t d[3] = {3, 2, 1}, xs[3] = {2, 1, 0}, zs[3] = {0, 1, 0};
  assert_int_equal(f(NULL, CL1_BINARY_SUB, x, xs, z, zs, x, 3, d), 0);
  double w[6] = {-9, -18, -7, -16, -5, -14};
  close_all("bcast in place", x, w, 6, 0, 0);
  int64_t bad[3] = {-1, 0, 0};
  assert_int_not_equal(f(NULL, CL1_BINARY_ADD, x, bad, z, zs, x, 3, d), 0);
  assert_int_not_equal(f(NULL, CL1_BINARY_N, x, xs, z, zs, x, 3, d), 0);
  assert_int_not_equal(f(NULL, CL1_BINARY_ADD, x, xs, z, zs, x, 0, d), 0);  // no dims
  assert_int_not_equal(f(NULL, CL1_BINARY_ADD, x, xs, z, zs, x, CL1_BCAST_MAX_DIMS + 1, d), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_logsumexp), cmocka_unit_test(test_softmax_dim),
      cmocka_unit_test(test_unary_more_kinds), cmocka_unit_test(test_binary_bcast)};
  return cmocka_run_group_tests(tests, setup_lib, NULL);
}
