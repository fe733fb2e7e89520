/* test_ops_matmul.c — the matmul-group host ops (cl1_op_gemm_ex, cl1_op_mul_channel, cl1_op_tri
 * in build/libcl1ops_host.so, loaded with dlopen) against naive references written here, on
 * small random data: every transpose combination, batches with and without broadcasting,
 * empty and single-element sizes, K = 0, in-place use, NaN under the triangle mask, bad args. */
#define OPS_SEED 0x9E3779B97F4A7C15ull
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

/* The naive product, indexed straight from the layout the header documents. */
static void naive_gemm(int ta, int tb, const float *A, const float *B, double *C, int64_t M,
                       int64_t N, int64_t K, int64_t batch, int64_t sa, int64_t sb, int64_t sc) {
  for (int64_t b = 0; b < batch; b++)
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        double s = 0;
        for (int64_t k = 0; k < K; k++) {
          double a = ta ? A[b * sa + k * M + i] : A[b * sa + i * K + k];
          double v = tb ? B[b * sb + j * K + k] : B[b * sb + k * N + j];
          s += a * v;
        }
        C[b * sc + i * N + j] = s;
      }
}

static void test_gemm_ex(void **state) {
  (void)state;
  __typeof__(&cl1_op_gemm_ex) f = OP(cl1_op_gemm_ex);
  // M, N, K, batch: edge sizes (1x1x1, K = 0, vector shapes) and odd ones
  int64_t shapes[][4] = {{1, 1, 1, 1}, {5, 7, 3, 1}, {29, 31, 37, 1}, {1, 13, 9, 3},
                         {11, 1, 17, 2}, {4, 3, 0, 2}, {6, 5, 4, 4}, {67, 3, 129, 1}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], nb = shapes[s][3];
    for (int ta = 0; ta < 2; ta++)
      for (int tb = 0; tb < 2; tb++)
        for (int bcast = 0; bcast < 3; bcast++) {  // 0: both batched, 1: A shared, 2: B shared
          int64_t sa = bcast == 1 ? 0 : M * K, sb = bcast == 2 ? 0 : K * N;
          int64_t sc = M * N + (nb > 1 ? 3 : 0);  // a gap between outputs: stride_c is honoured
          float *A = rnd(M * K * nb), *B = rnd(K * N * nb);
          float *C = poisoned(sc * nb);
          double *want = malloc(sizeof(double) * (size_t)(sc * nb));
          assert_non_null(want);
          naive_gemm(ta, tb, A, B, want, M, N, K, nb, sa, sb, sc);
          assert_int_equal(f(NULL, ta, tb, A, B, C, M, N, K, nb, sa, sb, sc), 0);
          char what[96];
          for (int64_t b = 0; b < nb; b++) {
            snprintf(what, sizeof what, "gemm_ex %lldx%lldx%lld ta=%d tb=%d bcast=%d batch %lld",
                     (long long)M, (long long)N, (long long)K, ta, tb, bcast, (long long)b);
            close_all(what, C + b * sc, want + b * sc, M * N, 1e-5, 1e-6);
            for (int64_t g = b * sc + M * N; g < (b + 1) * sc && b + 1 < nb; g++)
              assert_true(isnan(C[g]));  // the gap stays untouched
          }
          free(A), free(B), free(C), free(want);
        }
  }
  // a square transposed case where the wrong layout would still fit the sizes
  float A[4] = {1, 2, 3, 4}, B[4] = {5, 6, 7, 8}, C[4];
  assert_int_equal(f(NULL, 1, 0, A, B, C, 2, 2, 2, 1, 0, 0, 0), 0);  // A^T B
  assert_true(C[0] == 1 * 5 + 3 * 7 && C[1] == 1 * 6 + 3 * 8);
  assert_true(C[2] == 2 * 5 + 4 * 7 && C[3] == 2 * 6 + 4 * 8);
  // empty problems succeed without touching anything; bad arguments fail
  assert_int_equal(f(NULL, 0, 0, NULL, NULL, NULL, 0, 5, 3, 1, 0, 0, 0), 0);
  assert_int_equal(f(NULL, 0, 0, NULL, NULL, NULL, 2, 5, 3, 0, 0, 0, 10), 0);
  assert_int_not_equal(f(NULL, 0, 0, A, B, C, -1, 2, 2, 1, 0, 0, 0), 0);
  assert_int_not_equal(f(NULL, 0, 0, A, B, C, 2, 2, 2, -1, 0, 0, 0), 0);
  assert_int_not_equal(f(NULL, 0, 0, A, B, C, 1, 1, 1, 2, 1, 1, 0), 0);  // outputs overlap
  assert_int_not_equal(f(NULL, 0, 0, NULL, B, C, 2, 2, 2, 1, 0, 0, 0), 0);
}

static void test_mul_channel(void **state) {
  (void)state;
  __typeof__(&cl1_op_mul_channel) f = OP(cl1_op_mul_channel);
  int64_t shapes[][3] = {{1, 1, 1}, {1, 37, 53}, {3, 5, 7}, {2, 9, 1}, {4, 1, 33}, {3, 0, 4}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int64_t O = shapes[s][0], Cn = shapes[s][1], I = shapes[s][2], n = O * Cn * I;
    float *x = rnd(n), *sc = rnd(Cn), *y = poisoned(n);
    double *want = malloc(sizeof(double) * (size_t)(n + 1));
    assert_non_null(want);
    for (int64_t o = 0; o < O; o++)
      for (int64_t c = 0; c < Cn; c++)
        for (int64_t i = 0; i < I; i++) {
          int64_t k = (o * Cn + c) * I + i;
          want[k] = (double)(x[k] * sc[c]);  // one fp32 product, as PyTorch
        }
    assert_int_equal(f(NULL, x, sc, y, O, Cn, I), 0);
    close_all("mul_channel", y, want, n, 0, 0);
    assert_int_equal(f(NULL, x, sc, x, O, Cn, I), 0);  // in place
    close_all("mul_channel in place", x, want, n, 0, 0);
    free(x), free(sc), free(y), free(want);
  }
  float one = 1;
  assert_int_not_equal(f(NULL, &one, &one, &one, 1, -1, 1), 0);
  assert_int_not_equal(f(NULL, &one, NULL, &one, 1, 1, 1), 0);
}

static void test_tri(void **state) {
  (void)state;
  __typeof__(&cl1_op_tri) f = OP(cl1_op_tri);
  int64_t shapes[][3] = {{1, 1, 1}, {1, 47, 47}, {2, 5, 9}, {3, 9, 4}, {1, 1, 6}, {2, 0, 3}};
  int64_t diags[] = {0, 1, -2, 7, -9};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int upper = 0; upper < 2; upper++)
      for (size_t d = 0; d < sizeof diags / sizeof *diags; d++) {
        int64_t nb = shapes[s][0], R = shapes[s][1], Cn = shapes[s][2], n = nb * R * Cn;
        int64_t dg = diags[d];
        float *x = rnd(n), *y = poisoned(n);
        double *want = malloc(sizeof(double) * (size_t)(n + 1));
        assert_non_null(want);
        for (int64_t b = 0; b < nb; b++)
          for (int64_t i = 0; i < R; i++)
            for (int64_t j = 0; j < Cn; j++) {
              int64_t k = (b * R + i) * Cn + j;
              int keep = upper ? j >= i + dg : j <= i + dg;
              if (!keep && (k % 3 == 0)) x[k] = NAN;  // masked NaN must become 0
              want[k] = keep ? x[k] : 0.0;
            }
        assert_int_equal(f(NULL, x, y, nb, R, Cn, upper, dg), 0);
        char what[64];
        snprintf(what, sizeof what, "tri upper=%d diagonal=%lld", upper, (long long)dg);
        close_all(what, y, want, n, 0, 0);
        assert_int_equal(f(NULL, x, x, nb, R, Cn, upper, dg), 0);  // in place
        close_all(what, x, want, n, 0, 0);
        free(x), free(y), free(want);
      }
  float one = 1;
  assert_int_not_equal(f(NULL, &one, &one, 1, -1, 1, 1, 0), 0);
  assert_int_not_equal(f(NULL, NULL, &one, 1, 1, 1, 1, 0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gemm_ex),
      cmocka_unit_test(test_mul_channel),
      cmocka_unit_test(test_tri),
  };
  return cmocka_run_group_tests_name("ops_matmul_host", tests, setup_lib, NULL);
}
