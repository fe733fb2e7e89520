/* test_ops_gather_roll.c — table and shift ops of the host op library (build/libcl1ops_host.so, loaded with
 * dlopen): cl1_op_upload, cl1_op_gather_rows and cl1_op_roll2 against index arithmetic written
 * here (torch.roll's definition: y[(i + s) mod d] = x[i]), edge sizes and argument checks. */
#include "ops_host.h"
#include <dlfcn.h>
#include <string.h>
#include "cudal1/ops.h"


static void test_upload(void **state) {
  (void)state;
  __typeof__(&cl1_op_upload) up = OP(cl1_op_upload);
  const int64_t src[5] = {7, -3, 0, 1LL << 40, 9};
  int64_t dst[6] = {0, 0, 0, 0, 0, 42};
  assert_int_equal(up(NULL, dst, src, sizeof src), 0);
  assert_memory_equal(dst, src, sizeof src);
  assert_true(dst[5] == 42); /* past bytes: untouched */
  assert_int_equal(up(NULL, NULL, NULL, 0), 0);
  assert_int_not_equal(up(NULL, NULL, src, 8), 0);
  assert_int_not_equal(up(NULL, dst, NULL, 8), 0);
}

static void test_gather(void **state) {
  (void)state;
  __typeof__(&cl1_op_gather_rows) g = OP(cl1_op_gather_rows);
  enum { R = 7, C = 3, N = 11 };
  float t[R * C], y[N * C + 1];
  for (int i = 0; i < R * C; i++) t[i] = (float)i * 0.25f - 2.f;
  const int64_t idx[N] = {6, 0, 3, 3, 1, 6, 2, 5, 4, 0, 6}; /* repeats, both ends */
  y[N * C] = 99.f;
  assert_int_equal(g(NULL, t, idx, y, N, R, C), 0);
  for (int i = 0; i < N; i++)
    for (int c = 0; c < C; c++) assert_true(y[i * C + c] == t[idx[i] * C + c]);
  assert_true(y[N * C] == 99.f);
  /* a single column (the cpb table of one head) */
  assert_int_equal(g(NULL, t, idx, y, N, R * C, 1), 0);
  for (int i = 0; i < N; i++) assert_true(y[i] == t[idx[i]]);
  const int64_t bad_hi[2] = {0, R}, bad_lo[2] = {-1, 0};
  assert_int_not_equal(g(NULL, t, bad_hi, y, 2, R, C), 0);
  assert_int_not_equal(g(NULL, t, bad_lo, y, 2, R, C), 0);
  assert_int_not_equal(g(NULL, t, idx, y, -1, R, C), 0);
  assert_int_not_equal(g(NULL, NULL, idx, y, N, R, C), 0);
  assert_int_equal(g(NULL, NULL, NULL, NULL, 0, R, C), 0);
}

static int64_t wrapm(int64_t s, int64_t d) { return ((s % d) + d) % d; }

static void test_roll(void **state) {
  (void)state;
  __typeof__(&cl1_op_roll2) r = OP(cl1_op_roll2);
  enum { O = 2, D1 = 5, D2 = 4, K = 3, NE = O * D1 * D2 * K };
  float x[NE], y[NE];
  for (int i = 0; i < NE; i++) x[i] = (float)i - 50.f;
  const int64_t shifts[][2] = {{0, 0}, {-2, -2}, {2, 2}, {1, -3}, {7, 9}, {-11, 4}, {5, 4}};
  for (size_t t = 0; t < sizeof shifts / sizeof *shifts; t++) {
    const int64_t s1 = shifts[t][0], s2 = shifts[t][1];
    memset(y, 0, sizeof y);
    assert_int_equal(r(NULL, x, y, O, D1, D2, K, s1, s2), 0);
    for (int o = 0; o < O; o++)
      for (int i = 0; i < D1; i++)
        for (int j = 0; j < D2; j++)
          for (int k = 0; k < K; k++) {
            const int64_t yi = wrapm(i + s1, D1), yj = wrapm(j + s2, D2);
            assert_true(y[((o * D1 + yi) * D2 + yj) * K + k] == x[((o * D1 + i) * D2 + j) * K + k]);
          }
  }
  /* roll by -s then +s is the identity (Swin's shift and its reverse) */
  float z[NE];
  assert_int_equal(r(NULL, x, y, O, D1, D2, K, -2, -1), 0);
  assert_int_equal(r(NULL, y, z, O, D1, D2, K, 2, 1), 0);
  assert_memory_equal(z, x, sizeof x);
  /* inner 1, size-1 dims */
  assert_int_equal(r(NULL, x, y, 1, 1, NE, 1, 3, 5), 0);
  for (int i = 0; i < NE; i++) assert_true(y[(i + 5) % NE] == x[i]);
  assert_int_not_equal(r(NULL, x, y, -1, D1, D2, K, 0, 0), 0);
  assert_int_not_equal(r(NULL, NULL, y, O, D1, D2, K, 0, 0), 0);
  assert_int_equal(r(NULL, NULL, NULL, O, 0, D2, K, 1, 1), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_upload),
      cmocka_unit_test(test_gather),
      cmocka_unit_test(test_roll),
  };
  return cmocka_run_group_tests_name("ops_gather_roll", tests, setup_lib, NULL);
}
