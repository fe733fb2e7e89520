/* test_ops_norm.c — the host normalisation/reduction ops (ops_norm.h, from
 * build/libcl1ops_host.so via dlopen) against naive references written here, on small random
 * data with edge sizes (single elements, odd lengths, inner = 1, reduced dim 0), large means for
 * the variance, exact ties and NaN for the arg/extreme reductions, and invalid arguments. */
#define OPS_SEED 0x9E3779B97F4A7C15ull
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"


static float *rnd(int64_t n, float scale, float offset) {
  float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) p[i] = offset + scale * frand();
  return p;
}
static double *dbuf(int64_t n) {
  double *p = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
  assert_non_null(p);
  return p;
}

static const int64_t g_shapes[][3] = {{1, 1, 1}, {3, 37, 41}, {1, 100, 1}, {5, 1, 7},
                                      {4, 9, 1}, {2, 33, 32}, {1, 1000, 3}};
#define N_SHAPES (sizeof g_shapes / sizeof *g_shapes)

static void test_reduce_sum_mean(void **state) {
  (void)state;
  __typeof__(&cl1_op_reduce) f = OP(cl1_op_reduce);
  for (size_t s = 0; s < N_SHAPES; s++) {
    int64_t O = g_shapes[s][0], R = g_shapes[s][1], I = g_shapes[s][2];
    float *x = rnd(O * R * I, 1, 0.25f), *y = poisoned(O * I), *m = poisoned(O * I);
    double *w = dbuf(O * I), *wm = dbuf(O * I);
    for (int64_t o = 0; o < O; o++)
      for (int64_t i = 0; i < I; i++) {
        for (int64_t r = 0; r < R; r++) w[o * I + i] += x[(o * R + r) * I + i];
        wm[o * I + i] = w[o * I + i] / (double)R;
      }
    assert_int_equal(f(NULL, CL1_REDUCE_SUM, x, y, O, R, I), 0);
    close_all("reduce sum", y, w, O * I, 1e-6, 1e-6);
    assert_int_equal(f(NULL, CL1_REDUCE_MEAN, x, m, O, R, I), 0);
    close_all("reduce mean", m, wm, O * I, 1e-7, 1e-6);
    free(x), free(y), free(m), free(w), free(wm);
  }
  // an empty reduced dim: sum 0, mean NaN (0/0), as PyTorch
  float y[6], m[6];
  assert_int_equal(f(NULL, CL1_REDUCE_SUM, NULL, y, 2, 0, 3), 0);
  assert_int_equal(f(NULL, CL1_REDUCE_MEAN, NULL, m, 2, 0, 3), 0);
  for (int i = 0; i < 6; i++) assert_true(y[i] == 0.f && isnan(m[i]));
}

/* Naive extreme over r of column (o, i): first index wins ties, NaN (the first) beats all. */
static void naive_ext(const float *x, int64_t O, int64_t R, int64_t I, int is_max, float *val,
                      int64_t *idx) {
  for (int64_t o = 0; o < O; o++)
    for (int64_t i = 0; i < I; i++) {
      int64_t b = -1;
      for (int64_t r = 0; r < R; r++) {
        float v = x[(o * R + r) * I + i];
        if (b >= 0 && isnan(x[(o * R + b) * I + i])) break;
        if (b < 0 || isnan(v)) { b = r; continue; }
        float cur = x[(o * R + b) * I + i];
        if (is_max ? v > cur : v < cur) b = r;
      }
      idx[o * I + i] = b;
      val[o * I + i] = x[(o * R + b) * I + i];
    }
}

static void check_ext(__typeof__(&cl1_op_reduce) f, const float *x, int64_t O, int64_t R, int64_t I,
                      const char *what) {
  float *wv = malloc(sizeof(float) * (size_t)(O * I)), *y = poisoned(O * I);
  int64_t *wi = malloc(sizeof(int64_t) * (size_t)(O * I)), *yi = malloc(sizeof(int64_t) * (size_t)(O * I));
  assert_non_null(wv), assert_non_null(wi), assert_non_null(yi);
  for (int is_max = 0; is_max < 2; is_max++) {
    naive_ext(x, O, R, I, is_max, wv, wi);
    for (int64_t k = 0; k < O * I; k++) yi[k] = -7;
    assert_int_equal(f(NULL, is_max ? CL1_REDUCE_ARGMAX : CL1_REDUCE_ARGMIN, x, yi, O, R, I), 0);
    assert_int_equal(f(NULL, is_max ? CL1_REDUCE_MAX : CL1_REDUCE_MIN, x, y, O, R, I), 0);
    for (int64_t k = 0; k < O * I; k++) {
      if (yi[k] != wi[k])
        fail_msg("%s arg%s: output %lld: got index %lld want %lld", what, is_max ? "max" : "min",
                 (long long)k, (long long)yi[k], (long long)wi[k]);
      if (!(isnan(wv[k]) ? isnan(y[k]) : y[k] == wv[k]))
        fail_msg("%s %s: output %lld: got %.9g want %.9g", what, is_max ? "max" : "min",
                 (long long)k, y[k], wv[k]);
    }
  }
  free(wv), free(y), free(wi), free(yi);
}

static void test_reduce_extremes(void **state) {
  (void)state;
  __typeof__(&cl1_op_reduce) f = OP(cl1_op_reduce);
  for (size_t s = 0; s < N_SHAPES; s++) {
    int64_t O = g_shapes[s][0], R = g_shapes[s][1], I = g_shapes[s][2];
    float *x = rnd(O * R * I, 1, 0);
    check_ext(f, x, O, R, I, "random");
    // coarse values: many exact ties, which must resolve to the first index
    for (int64_t k = 0; k < O * R * I; k++) x[k] = roundf(x[k] * 2.f);
    check_ext(f, x, O, R, I, "ties");
    free(x);
  }
  // NaN propagates through max/min and is the extreme (its first index) for arg*
  float x[] = {1, 5, 5, NAN, 2, NAN, -3, -3};  // (1, 8, 1)
  check_ext(f, x, 1, 8, 1, "nan");
  float t[] = {0, 3, 3, 3, -1, -1};  // (1, 6, 1): ties at both ends
  int64_t i1 = -1;
  assert_int_equal(f(NULL, CL1_REDUCE_ARGMAX, t, &i1, 1, 6, 1), 0);
  assert_int_equal(i1, 1);
  assert_int_equal(f(NULL, CL1_REDUCE_ARGMIN, t, &i1, 1, 6, 1), 0);
  assert_int_equal(i1, 4);
  // errors: empty reduced dim for extremes, unknown kind, negative size
  float one = 1;
  assert_int_not_equal(f(NULL, CL1_REDUCE_MAX, &one, &one, 1, 0, 1), 0);
  assert_int_not_equal(f(NULL, CL1_REDUCE_ARGMIN, &one, &i1, 1, 0, 1), 0);
  assert_int_not_equal(f(NULL, CL1_REDUCE_N, &one, &one, 1, 1, 1), 0);
  assert_int_not_equal(f(NULL, CL1_REDUCE_SUM, &one, &one, -1, 1, 1), 0);
  assert_int_equal(f(NULL, CL1_REDUCE_MAX, NULL, NULL, 0, 5, 3), 0);  // nothing to write
}

/* Naive (N, C, HW) normalisation with `groups` groups (0: batchnorm, stats per channel). */
static void naive_norm(const float *x, const float *g, const float *b, int64_t N, int64_t C,
                       int64_t HW, int64_t groups, double eps, double *out) {
  int64_t sets = groups ? N * groups : C, cg = groups ? C / groups : 1;
  for (int64_t st = 0; st < sets; st++) {
    double sum = 0, sq = 0, cnt = 0;
    for (int64_t n = 0; n < N; n++)
      for (int64_t c = 0; c < C; c++) {
        int in = groups ? (n == st / groups && c / cg == st % groups) : c == st;
        if (!in) continue;
        for (int64_t j = 0; j < HW; j++) sum += x[(n * C + c) * HW + j], cnt++;
      }
    double mean = sum / cnt;
    for (int64_t n = 0; n < N; n++)
      for (int64_t c = 0; c < C; c++) {
        int in = groups ? (n == st / groups && c / cg == st % groups) : c == st;
        if (!in) continue;
        for (int64_t j = 0; j < HW; j++) {
          double d = x[(n * C + c) * HW + j] - mean;
          sq += d * d;
        }
      }
    double rstd = 1 / sqrt(sq / cnt + eps);
    for (int64_t n = 0; n < N; n++)
      for (int64_t c = 0; c < C; c++) {
        int in = groups ? (n == st / groups && c / cg == st % groups) : c == st;
        if (!in) continue;
        for (int64_t j = 0; j < HW; j++) {
          int64_t k = (n * C + c) * HW + j;
          out[k] = (x[k] - mean) * rstd * (g ? g[c] : 1) + (b ? b[c] : 0);
        }
      }
  }
}

static void test_batchnorm(void **state) {
  (void)state;
  __typeof__(&cl1_op_batchnorm_train) f = OP(cl1_op_batchnorm_train);
  int64_t shapes[][3] = {{1, 1, 2}, {3, 5, 63}, {2, 1, 1}, {4, 3, 1}, {2, 16, 64}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t N = shapes[s][0], C = shapes[s][1], HW = shapes[s][2], n = N * C * HW;
    // the last shape sits on a large mean: a naive E[x^2] - E[x]^2 in float would lose it
    float *x = rnd(n, 1, s == 4 ? 1e4f : 0.5f), *g = rnd(C, 0.5f, 1), *b = rnd(C, 1, 0);
    float *y = poisoned(n), *y2 = poisoned(n);
    double *w = dbuf(n), *w2 = dbuf(n);
    naive_norm(x, g, b, N, C, HW, 0, 1e-5, w);
    naive_norm(x, NULL, NULL, N, C, HW, 0, 1e-5, w2);
    assert_int_equal(f(NULL, x, g, b, y, N, C, HW, 1e-5), 0);
    close_all("batchnorm", y, w, n, 1e-5, 1e-5);
    assert_int_equal(f(NULL, x, NULL, NULL, y2, N, C, HW, 1e-5), 0);
    close_all("batchnorm (no affine)", y2, w2, n, 1e-5, 1e-5);
    free(x), free(g), free(b), free(y), free(y2), free(w), free(w2);
  }
  float one = 1;
  assert_int_not_equal(f(NULL, &one, NULL, NULL, &one, 1, -1, 1, 1e-5), 0);
  assert_int_not_equal(f(NULL, &one, NULL, NULL, &one, 1, 1, 1, -1), 0);
  assert_int_equal(f(NULL, NULL, NULL, NULL, NULL, 0, 3, 4, 1e-5), 0);
}

static void test_groupnorm(void **state) {
  (void)state;
  __typeof__(&cl1_op_groupnorm) f = OP(cl1_op_groupnorm);
  // {N, C, HW, groups}: groups == C is InstanceNorm, groups == 1 normalises whole samples
  int64_t shapes[][4] = {{1, 1, 1, 1}, {3, 6, 63, 3}, {2, 5, 99, 5}, {2, 4, 1, 2},
                         {1, 8, 7, 1}, {2, 16, 64, 4}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t N = shapes[s][0], C = shapes[s][1], HW = shapes[s][2], G = shapes[s][3];
    int64_t n = N * C * HW;
    float *x = rnd(n, 1, s == 5 ? -3e3f : 0.f), *g = rnd(C, 0.5f, 1), *b = rnd(C, 1, 0);
    float *y = poisoned(n), *y2 = poisoned(n);
    double *w = dbuf(n), *w2 = dbuf(n);
    naive_norm(x, g, b, N, C, HW, G, 1e-5, w);
    naive_norm(x, NULL, NULL, N, C, HW, G, 1e-5, w2);
    assert_int_equal(f(NULL, x, g, b, y, N, C, HW, G, 1e-5), 0);
    close_all("groupnorm", y, w, n, 1e-5, 1e-5);
    assert_int_equal(f(NULL, x, NULL, NULL, y2, N, C, HW, G, 1e-5), 0);
    close_all("groupnorm (no affine)", y2, w2, n, 1e-5, 1e-5);
    free(x), free(g), free(b), free(y), free(y2), free(w), free(w2);
  }
  float one = 1;
  assert_int_not_equal(f(NULL, &one, NULL, NULL, &one, 1, 6, 1, 4, 1e-5), 0);  // 4 does not divide 6
  assert_int_not_equal(f(NULL, &one, NULL, NULL, &one, 1, 1, 1, 0, 1e-5), 0);
}

static void test_normalize(void **state) {
  (void)state;
  __typeof__(&cl1_op_normalize) f = OP(cl1_op_normalize);
  double epss[] = {0.0, 1e-5};
  for (int kind = 0; kind < CL1_NORM_N; kind++)
    for (size_t s = 0; s < N_SHAPES; s++)
      for (int e = 0; e < 2; e++) {
        int64_t O = g_shapes[s][0], R = g_shapes[s][1], I = g_shapes[s][2], n = O * R * I;
        float *x = rnd(n, 1, 0.1f), *y = poisoned(n);
        double *w = dbuf(n), eps = epss[e];
        for (int64_t o = 0; o < O; o++)
          for (int64_t i = 0; i < I; i++) {
            double acc = 0;
            for (int64_t r = 0; r < R; r++) {
              double v = x[(o * R + r) * I + i];
              acc += kind == CL1_NORM_L2 || kind == CL1_NORM_RMS ? v * v : fabs(v);
            }
            double d = kind == CL1_NORM_L1 ? acc + eps
                     : kind == CL1_NORM_MEAN_ABS ? acc / (double)R + eps
                     : kind == CL1_NORM_L2 ? sqrt(acc + eps) : sqrt(acc / (double)R + eps);
            for (int64_t r = 0; r < R; r++)
              w[(o * R + r) * I + i] = x[(o * R + r) * I + i] / d;
          }
        assert_int_equal(f(NULL, kind, x, y, O, R, I, eps), 0);
        char what[64];
        snprintf(what, sizeof what, "normalize kind %d shape %zu eps %g", kind, s, eps);
        close_all(what, y, w, n, 1e-6, 1e-6);
        free(x), free(y), free(w);
      }
  float one = 1;
  assert_int_not_equal(f(NULL, CL1_NORM_N, &one, &one, 1, 1, 1, 0), 0);
  assert_int_not_equal(f(NULL, CL1_NORM_L2, &one, &one, 1, 1, 1, -1), 0);
  assert_int_equal(f(NULL, CL1_NORM_L2, NULL, NULL, 3, 0, 2, 0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reduce_sum_mean), cmocka_unit_test(test_reduce_extremes),
      cmocka_unit_test(test_batchnorm),       cmocka_unit_test(test_groupnorm),
      cmocka_unit_test(test_normalize),
  };
  return cmocka_run_group_tests_name("ops_norm_host", tests, setup_lib, NULL);
}
