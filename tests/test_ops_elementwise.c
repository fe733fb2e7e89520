/* test_ops_elementwise.c — the elementwise family of the host op library (cl1_op_unary, cl1_op_binary,
 * cl1_op_log_softmax in build/libcl1ops_host.so, loaded with dlopen) against naive references
 * written here in other forms (sigmoid via tanh, GELU via erfc, ...), on random data plus the
 * branch points (0, +-3, the softplus threshold, NaN) and edge sizes (0, 1, odd lengths). */
#define OPS_SEED 0x9E3779B97F4A7C15ull
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"


/* n values: the branch points first (as many as fit), then uniform in [-scale, scale). */
static float *rnd(int64_t n, float scale) {
  static const float special[] = {0.f, -0.f, 3.f, -3.f, 20.f, 20.5f, 19.5f, -30.f, 1.f, -1.f,
                                  40.f, -40.f, 1e-3f, -1e-3f, 2.5f, -2.5f};
  float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++)
    p[i] = i < (int64_t)(sizeof special / sizeof *special) ? special[i] : scale * frand();
  return p;
}

/* The naive references: PyTorch's documented definitions, written differently from unary.c. */
static double naive(cl1_unary_kind k, double x, double a, double b) {
  switch (k) {
    case CL1_UNARY_LEAKY_RELU: return x >= 0 ? x : a * x;
    case CL1_UNARY_SIGMOID: return 0.5 * (1.0 + tanh(0.5 * x));
    case CL1_UNARY_TANH: return 1.0 - 2.0 / (exp(2.0 * x) + 1.0);
    case CL1_UNARY_GELU: return 0.5 * x * erfc(-x / sqrt(2.0));
    case CL1_UNARY_SELU:
      return 1.0507009873554804934193349852946 *
             (x > 0 ? x : 1.6732632423543772848170429916717 * (exp(x) - 1.0));
    case CL1_UNARY_HARDSIGMOID: return fmin(fmax(x + 3.0, 0.0), 6.0) / 6.0;
    case CL1_UNARY_SOFTPLUS: return x * a > b ? x : log(1.0 + exp(a * x)) / a;
    case CL1_UNARY_ELU: return x > 0 ? x : a * (exp(x) - 1.0);
    case CL1_UNARY_HARDTANH: return fmin(fmax(x, a), b);
    case CL1_UNARY_ABS: return x < 0 ? -x : x;
    case CL1_UNARY_ADD_SCALAR: return x + a;
    case CL1_UNARY_MUL_SCALAR: return x * a;
    default: fail_msg("no naive reference for kind %d", (int)k);
  }
  return NAN;
}

static void test_unary(void **state) {
  (void)state;
  __typeof__(&cl1_op_unary) f = OP(cl1_op_unary);
  struct { cl1_unary_kind k; double a, b; const char *name; } cases[] = {
      {CL1_UNARY_LEAKY_RELU, 0.01, 0, "leaky_relu 0.01"}, {CL1_UNARY_LEAKY_RELU, 0.3, 0, "leaky_relu 0.3"},
      {CL1_UNARY_SIGMOID, 0, 0, "sigmoid"},             {CL1_UNARY_TANH, 0, 0, "tanh"},
      {CL1_UNARY_GELU, 0, 0, "gelu"},                   {CL1_UNARY_SELU, 0, 0, "selu"},
      {CL1_UNARY_HARDSIGMOID, 0, 0, "hardsigmoid"},     {CL1_UNARY_SOFTPLUS, 1, 20, "softplus 1 20"},
      {CL1_UNARY_SOFTPLUS, 2, 5, "softplus 2 5"},       {CL1_UNARY_ELU, 1, 0, "elu 1"},
      {CL1_UNARY_ELU, 0.5, 0, "elu 0.5"},               {CL1_UNARY_HARDTANH, -1, 1, "hardtanh -1 1"},
      {CL1_UNARY_HARDTANH, -0.5, 2, "hardtanh -0.5 2"}, {CL1_UNARY_ABS, 0, 0, "abs"},
      {CL1_UNARY_ADD_SCALAR, 1, 0, "add 1"},            {CL1_UNARY_MUL_SCALAR, -2.5, 0, "mul -2.5"},
  };
  int64_t sizes[] = {0, 1, 3, 16, 1001, 4099};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      int64_t n = sizes[s];
      float *x = rnd(n, 8), *y = poisoned(n);
      double *w = malloc(sizeof(double) * (size_t)(n + 1));
      for (int64_t i = 0; i < n; i++) w[i] = naive(cases[c].k, x[i], cases[c].a, cases[c].b);
      assert_int_equal(f(NULL, cases[c].k, x, y, n, cases[c].a, cases[c].b), 0);
      close_all(cases[c].name, y, w, n, 1e-7, 1e-6);
      assert_int_equal(f(NULL, cases[c].k, x, x, n, cases[c].a, cases[c].b), 0);  // in place
      close_all(cases[c].name, x, w, n, 1e-7, 1e-6);
      free(x), free(y), free(w);
    }
  /* the exact branch values: identities where PyTorch's formula is one */
  float v[] = {0.25f, 3.f, -3.f, 21.f, -1.f}, o[5];
  assert_int_equal(f(NULL, CL1_UNARY_LEAKY_RELU, v, o, 1, 0.01, 0), 0);
  assert_true(o[0] == 0.25f);
  assert_int_equal(f(NULL, CL1_UNARY_HARDSIGMOID, v, o, 3, 0, 0), 0);
  assert_true(o[0] == (float)(0.25 / 6 + 0.5) && o[1] == 1.f && o[2] == 0.f);
  assert_int_equal(f(NULL, CL1_UNARY_SOFTPLUS, v, o, 4, 1, 20), 0);
  assert_true(o[3] == 21.f);  // above the threshold: x itself
  assert_int_equal(f(NULL, CL1_UNARY_HARDTANH, v, o, 5, -1, 1), 0);
  assert_true(o[0] == 0.25f && o[1] == 1.f && o[2] == -1.f && o[4] == -1.f);
  /* NaN stays NaN through the clamping kinds, as in PyTorch */
  cl1_unary_kind nan_kinds[] = {CL1_UNARY_LEAKY_RELU, CL1_UNARY_HARDSIGMOID, CL1_UNARY_HARDTANH,
                                CL1_UNARY_ELU, CL1_UNARY_SELU, CL1_UNARY_SIGMOID};
  for (size_t k = 0; k < sizeof nan_kinds / sizeof *nan_kinds; k++) {
    float nv[1] = {NAN}, no[1] = {0};
    assert_int_equal(f(NULL, nan_kinds[k], nv, no, 1, -1, 1), 0);
    if (!isnan(no[0])) fail_msg("kind %d maps NaN to %g", (int)nan_kinds[k], no[0]);
  }
  float one[1] = {1}, out[1];
  assert_int_not_equal(f(NULL, CL1_UNARY_N, one, out, 1, 0, 0), 0);
  assert_int_not_equal(f(NULL, (cl1_unary_kind)-1, one, out, 1, 0, 0), 0);
  assert_int_not_equal(f(NULL, CL1_UNARY_TANH, one, out, -1, 0, 0), 0);
  assert_int_not_equal(f(NULL, CL1_UNARY_TANH, NULL, out, 1, 0, 0), 0);
  assert_int_equal(f(NULL, CL1_UNARY_TANH, NULL, NULL, 0, 0, 0), 0);
}

static void test_binary(void **state) {
  (void)state;
  __typeof__(&cl1_op_binary) f = OP(cl1_op_binary);
  int64_t sizes[] = {0, 1, 5, 1001, 4099};
  for (int k = 0; k < CL1_BINARY_N; k++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      int64_t n = sizes[s];
      float *x = rnd(n, 4), *z = rnd(n, 4), *y = poisoned(n);
      for (int64_t i = 0; i < n; i++) z[i] = z[i] + (z[i] < 0 ? -0.5f : 0.5f);  // |z| >= 0.5 for div
      double *w = malloc(sizeof(double) * (size_t)(n + 1));
      for (int64_t i = 0; i < n; i++) {
        double u = x[i], v = z[i];
        w[i] = k == CL1_BINARY_ADD ? u + v : k == CL1_BINARY_SUB ? u - v
             : k == CL1_BINARY_MUL ? u * v : k == CL1_BINARY_DIV ? u / v
             : k == CL1_BINARY_MIN ? fmin(u, v) : fmax(u, v);
      }
      assert_int_equal(f(NULL, (cl1_binary_kind)k, x, z, y, n), 0);
      close_all("binary", y, w, n, 1e-7, 1e-6);
      assert_int_equal(f(NULL, (cl1_binary_kind)k, x, z, z, n), 0);  // in place on the 2nd operand
      close_all("binary in place", z, w, n, 1e-7, 1e-6);
      free(x), free(z), free(y), free(w);
    }
  float a[1] = {1}, b[1] = {0}, o[1];
  assert_int_equal(f(NULL, CL1_BINARY_DIV, a, b, o, 1), 0);
  assert_true(isinf(o[0]) && o[0] > 0);  // true division, as torch
  float nan1[1] = {NAN};
  assert_int_equal(f(NULL, CL1_BINARY_MIN, a, nan1, o, 1), 0);
  assert_true(isnan(o[0]));  // torch.minimum propagates NaN from either operand
  assert_int_equal(f(NULL, CL1_BINARY_MAX, nan1, a, o, 1), 0);
  assert_true(isnan(o[0]));
  assert_int_not_equal(f(NULL, CL1_BINARY_N, a, b, o, 1), 0);
  assert_int_not_equal(f(NULL, CL1_BINARY_ADD, a, b, o, -1), 0);
  assert_int_not_equal(f(NULL, CL1_BINARY_ADD, a, NULL, o, 1), 0);
}

static void test_log_softmax(void **state) {
  (void)state;
  __typeof__(&cl1_op_log_softmax) f = OP(cl1_op_log_softmax);
  int64_t shapes[][2] = {{1, 1}, {3, 5}, {4, 1001}, {2, 4096}, {7, 2}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t R = shapes[s][0], C = shapes[s][1];
    float *x = rnd(R * C, 20), *y = poisoned(R * C);
    if (s == 3)  // a large offset: an unshifted exp would overflow
      for (int64_t i = 0; i < R * C; i++) x[i] += 500.f;
    double *w = malloc(sizeof(double) * (size_t)(R * C));
    for (int64_t r = 0; r < R; r++) {
      double m = -INFINITY, z = 0;
      for (int64_t j = 0; j < C; j++) m = fmax(m, x[r * C + j]);
      for (int64_t j = 0; j < C; j++) z += exp(x[r * C + j] - m);
      for (int64_t j = 0; j < C; j++) w[r * C + j] = log(exp(x[r * C + j] - m) / z);
    }
    assert_int_equal(f(NULL, x, y, R, C), 0);
    close_all("log_softmax", y, w, R * C, 1e-6, 1e-6);
    for (int64_t r = 0; r < R; r++) {  // each row's probabilities sum to 1
      double t = 0;
      for (int64_t j = 0; j < C; j++) t += exp((double)y[r * C + j]);
      assert_true(fabs(t - 1.0) < 1e-4);
    }
    assert_int_equal(f(NULL, x, x, R, C), 0);  // in place
    close_all("log_softmax in place", x, w, R * C, 1e-6, 1e-6);
    free(x), free(y), free(w);
  }
  assert_int_equal(f(NULL, NULL, NULL, 0, 5), 0);
  assert_int_not_equal(f(NULL, NULL, NULL, -1, 5), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unary), cmocka_unit_test(test_binary),
      cmocka_unit_test(test_log_softmax),
  };
  return cmocka_run_group_tests(tests, setup_lib, NULL);
}
