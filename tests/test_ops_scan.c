/* test_ops_scan.c — the scan/loss/attention group of the host op library (cl1_op_scan,
 * cl1_op_loss, cl1_op_cross_entropy, cl1_op_gelu_tanh, cl1_op_sdpa in build/libcl1ops_host.so,
 * loaded with dlopen) against naive references written here in other forms (scans by explicit
 * sums over index ranges, softmax via log-sum-exp, GELU via the sigmoid identity), on random data
 * with edge sizes (n = 1, odd lengths, inner > 1) and the argument errors. */
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"


static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static double urand(void) {  // xorshift64, uniform in [0, 1)
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (double)(g_rng >> 11) * (1.0 / 9007199254740992.0);
}
static float *rnd(int64_t n, double lo, double hi) {
  float *p = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) p[i] = (float)(lo + (hi - lo) * urand());
  return p;
}
static void close1(const char *what, double got, double want, double tol) {
  if (!(fabs(got - want) <= tol * (1.0 + fabs(want))))
    fail_msg("%s: got %.9g want %.9g", what, got, want);
}

static void test_scan(void **state) {
  (void)state;
  __typeof__(&cl1_op_scan) f = OP(cl1_op_scan);
  static const int64_t shapes[][3] = {{3, 1, 1}, {2, 37, 1}, {1, 129, 3}, {4, 5, 7}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t O = shapes[s][0], N = shapes[s][1], I = shapes[s][2], n = O * N * I;
    float *x = rnd(n, 0.5, 1.5), *y = malloc(sizeof(float) * (size_t)n);
    uint8_t *m = malloc((size_t)n);
    assert_non_null(y), assert_non_null(m);
    for (int64_t i = 0; i < n; i++) m[i] = urand() < 0.5;
    for (int kind = 0; kind < CL1_SCAN_N; kind++)
      for (int flags = 0; flags < 8; flags++) {
        int rev = flags & 1, excl = (flags >> 1) & 1;
        const uint8_t *mk = flags & 4 ? m : NULL;
        assert_int_equal(f(NULL, kind, x, mk, y, O, N, I, rev, excl), 0);
        for (int64_t o = 0; o < O; o++)
          for (int64_t j = 0; j < N; j++)
            for (int64_t i = 0; i < I; i++) {
              // the range of k that y[o, j, i] covers, from its definition
              int64_t lo = rev ? j + excl : 0, hi = rev ? N - 1 : j - excl;
              double want = kind == CL1_SCAN_PROD ? 1.0 : 0.0;
              for (int64_t k = lo; k <= hi; k++) {
                int64_t at = (o * N + k) * I + i;
                double v = x[at] * (mk ? mk[at] : 1);
                want = kind == CL1_SCAN_PROD ? want * v : want + v;
              }
              char what[96];
              snprintf(what, sizeof what, "scan kind %d flags %d shape %zu at (%lld,%lld,%lld)",
                       kind, flags, s, (long long)o, (long long)j, (long long)i);
              close1(what, y[(o * N + j) * I + i], want, 1e-6);
            }
      }
    free(x), free(y), free(m);
  }
  assert_int_equal(f(NULL, CL1_SCAN_SUM, NULL, NULL, NULL, 0, 5, 1, 0, 0), 0);
  assert_int_not_equal(f(NULL, CL1_SCAN_N, NULL, NULL, NULL, 1, 5, 1, 0, 0), 0);
  assert_int_not_equal(f(NULL, CL1_SCAN_SUM, NULL, NULL, NULL, 1, -5, 1, 0, 0), 0);
}

static void test_loss(void **state) {
  (void)state;
  __typeof__(&cl1_op_loss) f = OP(cl1_op_loss);
  static const int64_t shapes[][2] = {{1, 1}, {3, 17}, {8, 255}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t R = shapes[s][0], C = shapes[s][1], n = R * C;
    float *a = rnd(n, -2, 2), *b = rnd(n, -2, 2), *c = rnd(n, -2, 2), y = NAN;
    float *pa = rnd(n, 0.01, 1), *pb = rnd(n, 0.01, 1), *sg = rnd(C, 0, 1);
    pb[0] = 0.f;  // KL: a zero target contributes 0
    for (int64_t j = 0; j < C; j++) sg[j] = sg[j] < 0.5f ? -1.f : 1.f;
    double mse = 0, hub = 0, kl = 0, hin = 0, tri = 0, beta = 0.7, margin = 1.5;
    for (int64_t i = 0; i < n; i++) {
      double d = (double)a[i] - b[i];
      mse += d * d;
      hub += fabs(d) >= beta ? fabs(d) - beta / 2 : d * d / (2 * beta);
      if (pb[i] > 0) kl += pb[i] * log((double)pb[i] / pa[i]);
      hin += fmax(0.0, 1.0 - (double)a[i] * sg[i % C]);
    }
    for (int64_t r = 0; r < R; r++) {
      double dp = 0, dn = 0;
      for (int64_t j = 0; j < C; j++) {
        int64_t i = r * C + j;
        dp += pow((double)a[i] - b[i] + 1e-6, 2), dn += pow((double)a[i] - c[i] + 1e-6, 2);
      }
      tri += fmax(0.0, sqrt(dp) - sqrt(dn) + margin);
    }
    assert_int_equal(f(NULL, CL1_LOSS_MSE, a, b, NULL, &y, R, C, 0), 0);
    close1("mse", y, mse / n, 1e-6);
    assert_int_equal(f(NULL, CL1_LOSS_HUBER, a, b, NULL, &y, R, C, beta), 0);
    close1("huber", y, hub / n, 1e-6);
    assert_int_equal(f(NULL, CL1_LOSS_KL_DIV, pa, pb, NULL, &y, R, C, 0), 0);
    close1("kl_div", y, kl / R, 1e-6);
    assert_int_equal(f(NULL, CL1_LOSS_HINGE, a, sg, NULL, &y, R, C, 0), 0);
    close1("hinge", y, hin / n, 1e-6);
    assert_int_equal(f(NULL, CL1_LOSS_TRIPLET, a, b, c, &y, R, C, margin), 0);
    close1("triplet", y, tri / R, 1e-6);
    free(a), free(b), free(c), free(pa), free(pb), free(sg);
  }
  float y, x = 1.f;
  assert_int_not_equal(f(NULL, CL1_LOSS_N, &x, &x, NULL, &y, 1, 1, 0), 0);
  assert_int_not_equal(f(NULL, CL1_LOSS_MSE, &x, &x, NULL, &y, 0, 1, 0), 0);
  assert_int_not_equal(f(NULL, CL1_LOSS_TRIPLET, &x, &x, NULL, &y, 1, 1, 1), 0);
  assert_int_not_equal(f(NULL, CL1_LOSS_HUBER, &x, &x, NULL, &y, 1, 1, 0), 0);
}

static void test_cross_entropy(void **state) {
  (void)state;
  __typeof__(&cl1_op_cross_entropy) f = OP(cl1_op_cross_entropy);
  int64_t R = 13, C = 7;
  float *x = rnd(R * C, -30, 30), y = NAN;
  int64_t t[13];
  double want = 0;
  for (int64_t r = 0; r < R; r++) {
    t[r] = (int64_t)(urand() * C);
    double z = 0;  // -log softmax[target] = -log(exp(x_t) / sum exp(x)), without a max shift
    for (int64_t j = 0; j < C; j++) z += exp((double)x[r * C + j]);
    want += -log(exp((double)x[r * C + t[r]]) / z);
  }
  assert_int_equal(f(NULL, x, t, &y, R, C), 0);
  close1("cross_entropy", y, want / R, 1e-6);
  t[3] = C;
  assert_int_not_equal(f(NULL, x, t, &y, R, C), 0);
  t[3] = -1;
  assert_int_not_equal(f(NULL, x, t, &y, R, C), 0);
  free(x);
}

static void test_gelu_tanh(void **state) {
  (void)state;
  __typeof__(&cl1_op_gelu_tanh) f = OP(cl1_op_gelu_tanh);
  int64_t n = 1001;
  float *x = rnd(n, -6, 6), *y = malloc(sizeof(float) * (size_t)n);
  assert_non_null(y);
  x[0] = 0.f;
  assert_int_equal(f(NULL, x, y, n), 0);
  for (int64_t i = 0; i < n; i++) {
    double v = x[i], u = 2 * sqrt(2 / M_PI) * (v + 0.044715 * v * v * v);
    close1("gelu_tanh", y[i], v / (1 + exp(-u)), 1e-6);  // 0.5(1 + tanh(u/2)) = sigmoid(u)
  }
  assert_int_not_equal(f(NULL, x, y, -1), 0);
  free(x), free(y);
}

static void test_sdpa(void **state) {
  (void)state;
  __typeof__(&cl1_op_sdpa) f = OP(cl1_op_sdpa);
  int64_t B = 2, L = 5, S = 7, E = 3, Ev = 4;
  float *q = rnd(B * L * E, -2, 2), *k = rnd(B * S * E, -2, 2), *v = rnd(B * S * Ev, -2, 2);
  float *o = malloc(sizeof(float) * (size_t)(B * L * Ev));
  assert_non_null(o);
  double sc = 0.37;
  assert_int_equal(f(NULL, q, k, v, o, B, L, S, E, Ev, sc), 0);
  for (int64_t b = 0; b < B; b++)
    for (int64_t l = 0; l < L; l++) {
      double s[7], lse = 0;
      for (int64_t j = 0; j < S; j++) {
        s[j] = 0;
        for (int64_t e = 0; e < E; e++) s[j] += sc * q[(b * L + l) * E + e] * k[(b * S + j) * E + e];
        lse += exp(s[j]);
      }
      lse = log(lse);
      for (int64_t e = 0; e < Ev; e++) {
        double w = 0;
        for (int64_t j = 0; j < S; j++) w += exp(s[j] - lse) * v[(b * S + j) * Ev + e];
        close1("sdpa", o[(b * L + l) * Ev + e], w, 1e-6);
      }
    }
  assert_int_not_equal(f(NULL, q, k, v, o, B, L, 0, E, Ev, sc), 0);
  free(q), free(k), free(v), free(o);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scan), cmocka_unit_test(test_loss),
      cmocka_unit_test(test_cross_entropy), cmocka_unit_test(test_gelu_tanh),
      cmocka_unit_test(test_sdpa),
  };
  return cmocka_run_group_tests(tests, setup_lib, NULL);
}
