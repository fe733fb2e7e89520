/* test_ops_layout.c — host ops (build/libcl1ops_host.so, loaded with dlopen): cl1_op_strided_copy
 * (permutes, slices into a larger tensor, broadcast reads, size-1 and mergeable dims),
 * cl1_op_tri_fill, cl1_op_unary's exp and cl1_op_fill, each against index arithmetic
 * or libm written here, plus the argument checks. */
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"


static __typeof__(&cl1_op_strided_copy) copy(void) { return OP(cl1_op_strided_copy); }
static __typeof__(&cl1_op_tri_fill) fill(void) { return OP(cl1_op_tri_fill); }

/* x (A, B, C, D) contiguous; y = x.permute(perm).contiguous() for every permutation of 4 dims,
 * with a size-1 dim among odd sizes so that the simplification paths are exercised. */
static void test_permute_all(void **state) {
  (void)state;
  const int64_t sh[4] = {3, 1, 5, 4};
  const int64_t st[4] = {1 * 5 * 4, 5 * 4, 4, 1};
  float x[60], y[60];
  for (int i = 0; i < 60; i++) x[i] = (float)i * 0.5f - 7.f;
  int perm[4];
  int count = 0;
  for (perm[0] = 0; perm[0] < 4; perm[0]++)
    for (perm[1] = 0; perm[1] < 4; perm[1]++)
      for (perm[2] = 0; perm[2] < 4; perm[2]++)
        for (perm[3] = 0; perm[3] < 4; perm[3]++) {
          if (perm[0] == perm[1] || perm[0] == perm[2] || perm[0] == perm[3] ||
              perm[1] == perm[2] || perm[1] == perm[3] || perm[2] == perm[3])
            continue;
          int64_t os[4], xs[4];
          for (int d = 0; d < 4; d++) os[d] = sh[perm[d]], xs[d] = st[perm[d]];
          for (int i = 0; i < 60; i++) y[i] = NAN;
          assert_int_equal(copy()(NULL, 4, os, x, xs, y, NULL), 0);
          for (int64_t a = 0; a < os[0]; a++)
            for (int64_t b = 0; b < os[1]; b++)
              for (int64_t c = 0; c < os[2]; c++)
                for (int64_t d = 0; d < os[3]; d++) {
                  int64_t yi = ((a * os[1] + b) * os[2] + c) * os[3] + d;
                  int64_t xi = a * xs[0] + b * xs[1] + c * xs[2] + d * xs[3];
                  assert_true(y[yi] == x[xi]);
                }
          count++;
        }
  assert_int_equal(count, 24);
}

/* A broadcast row (x stride 0) written into column 0 of a (B, T, E) tensor through y strides,
 * then a contiguous slab into the rest: torch.cat((cls.expand(B, 1, E), p), dim=1). Elements
 * outside the written region must stay untouched. */
static void test_slice_and_broadcast(void **state) {
  (void)state;
  enum { B = 3, T = 4, E = 5 };
  float cls[E], p[B * (T - 1) * E], y[B * T * E];
  for (int i = 0; i < E; i++) cls[i] = 100.f + (float)i;
  for (int i = 0; i < B * (T - 1) * E; i++) p[i] = (float)i;
  for (int i = 0; i < B * T * E; i++) y[i] = -1.f;
  const int64_t s1[2] = {B, E}, xs1[2] = {0, 1}, ys1[2] = {T * E, 1};
  assert_int_equal(copy()(NULL, 2, s1, cls, xs1, y, ys1), 0);
  for (int b = 0; b < B; b++)
    for (int t = 0; t < T; t++)
      for (int e = 0; e < E; e++)
        assert_true(y[(b * T + t) * E + e] == (t == 0 ? 100.f + (float)e : -1.f));
  const int64_t s2[3] = {B, T - 1, E}, xs2[3] = {(T - 1) * E, E, 1}, ys2[3] = {T * E, E, 1};
  assert_int_equal(copy()(NULL, 3, s2, p, xs2, y + E, ys2), 0);
  for (int b = 0; b < B; b++)
    for (int t = 1; t < T; t++)
      for (int e = 0; e < E; e++)
        assert_true(y[(b * T + t) * E + e] == p[(b * (T - 1) + t - 1) * E + e]);
  /* a slice x[:, 1] of (B, T, E) into a contiguous (B, E) */
  float z[B * E];
  const int64_t s3[2] = {B, E}, xs3[2] = {T * E, 1};
  assert_int_equal(copy()(NULL, 2, s3, y + E, xs3, z, NULL), 0);
  for (int b = 0; b < B; b++)
    for (int e = 0; e < E; e++) assert_true(z[b * E + e] == p[(b * (T - 1)) * E + e]);
}

/* Unfold into non-overlapping p x p patches: (N, C, H, W) -> (N, C, H/p, W/p, p, p). */
static void test_patches(void **state) {
  (void)state;
  enum { N = 2, C = 3, H = 6, W = 4, P = 2 };
  float x[N * C * H * W], y[N * C * H * W];
  for (int i = 0; i < N * C * H * W; i++) x[i] = (float)(i * 7 % 101);
  const int64_t sh[6] = {N, C, H / P, W / P, P, P};
  const int64_t xs[6] = {C * H * W, H * W, P * W, P, W, 1};
  assert_int_equal(copy()(NULL, 6, sh, x, xs, y, NULL), 0);
  int64_t o = 0;
  for (int n = 0; n < N; n++)
    for (int c = 0; c < C; c++)
      for (int i = 0; i < H / P; i++)
        for (int j = 0; j < W / P; j++)
          for (int a = 0; a < P; a++)
            for (int b = 0; b < P; b++)
              assert_true(y[o++] == x[((n * C + c) * H + i * P + a) * W + j * P + b]);
}

static void test_copy_checks(void **state) {
  (void)state;
  float x[4] = {1, 2, 3, 4}, y[4] = {0};
  const int64_t sh[2] = {2, 2}, st[2] = {2, 1}, neg[2] = {-2, 1}, bad[2] = {2, -1}, tr[2] = {1, 2};
  assert_int_not_equal(copy()(NULL, 0, sh, x, st, y, NULL), 0);
  assert_int_not_equal(copy()(NULL, 9, sh, x, st, y, NULL), 0);
  assert_int_not_equal(copy()(NULL, 2, sh, x, neg, y, NULL), 0);
  assert_int_not_equal(copy()(NULL, 2, bad, x, st, y, NULL), 0);
  assert_int_not_equal(copy()(NULL, 2, sh, NULL, st, y, NULL), 0);
  const int64_t empty[2] = {0, 2};
  assert_int_equal(copy()(NULL, 2, empty, NULL, st, NULL, NULL), 0);
  const int64_t one[1] = {4}, unit[1] = {1};
  assert_int_equal(copy()(NULL, 1, one, x, unit, y, NULL), 0);
  for (int i = 0; i < 4; i++) assert_true(y[i] == x[i]);
  /* NULL x strides: a contiguous source scattered through y strides (a 2x2 transpose) */
  assert_int_equal(copy()(NULL, 2, sh, x, NULL, y, tr), 0);
  const float want[4] = {1, 3, 2, 4};
  for (int i = 0; i < 4; i++) assert_true(y[i] == want[i]);
}

/* tril keep (minGPT's causal mask) and triu keep with offsets, on non-square matrices. */
static void test_tri_fill(void **state) {
  (void)state;
  enum { Bt = 2, R = 4, Cc = 6 };
  float x[Bt * R * Cc], y[Bt * R * Cc];
  for (int i = 0; i < Bt * R * Cc; i++) x[i] = (float)i - 20.f;
  x[3] = NAN; /* a kept NaN stays NaN (masked_fill only replaces masked positions) */
  for (int upper = 0; upper < 2; upper++)
    for (int64_t dg = -2; dg <= 3; dg++) {
      assert_int_equal(fill()(NULL, x, y, Bt, R, Cc, upper, dg, -INFINITY), 0);
      for (int b = 0; b < Bt; b++)
        for (int i = 0; i < R; i++)
          for (int j = 0; j < Cc; j++) {
            int o = (b * R + i) * Cc + j;
            int keep = upper ? j - i >= dg : j - i <= dg;
            if (!keep) assert_true(isinf(y[o]) && y[o] < 0);
            else if (o == 3) assert_true(isnan(y[o]));
            else assert_true(y[o] == x[o]);
          }
    }
  /* in place */
  float z[6] = {1, 2, 3, 4, 5, 6};
  assert_int_equal(fill()(NULL, z, z, 1, 2, 3, 0, 0, 9.f), 0);
  const float want[6] = {1, 9, 9, 4, 5, 9};
  for (int i = 0; i < 6; i++) assert_true(z[i] == want[i]);
  assert_int_not_equal(fill()(NULL, z, z, -1, 2, 3, 0, 0, 0.f), 0);
  assert_int_not_equal(fill()(NULL, NULL, z, 1, 2, 3, 0, 0, 0.f), 0);
}

/* exp against libm (within one float ulp of the double result), including -inf -> 0, in place;
 * fill with a constant and with zeros, and the argument checks. */
static void test_exp_kind_and_fill(void **state) {
  (void)state;
  __typeof__(&cl1_op_unary) ex = OP(cl1_op_unary);
  __typeof__(&cl1_op_fill) fl = OP(cl1_op_fill);
  enum { N = 37 };
  float x[N], y[N];
  for (int i = 0; i < N; i++) x[i] = (float)(i - 18) * 0.7f;
  x[0] = -INFINITY;
  assert_int_equal(ex(NULL, CL1_UNARY_EXP, x, y, N, 0, 0), 0);
  assert_true(y[0] == 0.f);
  for (int i = 1; i < N; i++) {
    double want = exp((double)x[i]);
    assert_true(fabs((double)y[i] - want) <= 1.2e-7 * want);
  }
  assert_int_equal(ex(NULL, CL1_UNARY_EXP, x, x, N, 0, 0), 0); /* in place */
  for (int i = 0; i < N; i++) assert_true(x[i] == y[i]);
  assert_int_equal(fl(NULL, y, N - 1, -2.5f), 0);
  for (int i = 0; i < N - 1; i++) assert_true(y[i] == -2.5f);
  assert_true(y[N - 1] == x[N - 1]); /* past n: untouched */
  assert_int_equal(fl(NULL, y, N, 0.f), 0);
  for (int i = 0; i < N; i++) assert_true(y[i] == 0.f);
  assert_int_not_equal(ex(NULL, CL1_UNARY_EXP, x, y, -1, 0, 0), 0);
  assert_int_not_equal(ex(NULL, CL1_UNARY_EXP, NULL, y, 2, 0, 0), 0);
  assert_int_not_equal(fl(NULL, y, -1, 0.f), 0);
  assert_int_not_equal(fl(NULL, NULL, 2, 0.f), 0);
  assert_int_equal(fl(NULL, NULL, 0, 0.f), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_permute_all), cmocka_unit_test(test_slice_and_broadcast),
      cmocka_unit_test(test_patches), cmocka_unit_test(test_copy_checks),
      cmocka_unit_test(test_tri_fill), cmocka_unit_test(test_exp_kind_and_fill),
  };
  return cmocka_run_group_tests_name("ops_layout", tests, setup_lib, NULL);
}
