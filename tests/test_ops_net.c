/* test_ops_net.c — the level-3 data-movement ops of the host op library (cl1_op_cat_part in
 * build/libcl1ops_host.so, loaded with dlopen): torch.cat of three parts along dims 0, 1 and
 * the last dim against index arithmetic written here, and the argument checks. */
#include "ops_host.h"
#include <dlfcn.h>
#include "cudal1/ops.h"

typedef int (*cat_fn)(void *, const float *, float *, int64_t, int64_t, int64_t, int64_t);

static cat_fn cat(void) {
  cat_fn f = (cat_fn)dlsym(g_lib, "cl1_op_cat_part");
  if (!f) fail_msg("cl1_op_cat_part: %s", dlerror());
  return f;
}

/* (N, C_k, S) parts concatenated along dim 1 into (N, sum C_k, S); value = part*1000 + index. */
static void test_cat_dim1(void **state) {
  (void)state;
  enum { N = 3, S = 5 };
  const int64_t C[3] = {2, 1, 4};
  const int64_t Ct = 7;
  float parts[3][N * 4 * S], y[N * Ct * S];
  for (int k = 0; k < 3; k++)
    for (int64_t i = 0; i < N * C[k] * S; i++) parts[k][i] = (float)(k * 1000 + i);
  for (int64_t i = 0; i < N * Ct * S; i++) y[i] = -1.f;
  int64_t off = 0;
  for (int k = 0; k < 3; k++) {
    assert_int_equal(cat()(NULL, parts[k], y, N, C[k] * S, Ct * S, off), 0);
    off += C[k] * S;
  }
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < Ct; c++)
      for (int64_t s = 0; s < S; s++) {
        int k = c < 2 ? 0 : c < 3 ? 1 : 2;
        int64_t cl = c - (k == 0 ? 0 : k == 1 ? 2 : 3);
        float want = (float)(k * 1000 + (n * C[k] + cl) * S + s);
        assert_true(y[(n * Ct + c) * S + s] == want);
      }
}

/* dim 0 (outer 1) and the last dim (inner 1 per row element) are the same call shape. */
static void test_cat_dim0_and_last(void **state) {
  (void)state;
  float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {7, 8, 9}, y[9];
  assert_int_equal(cat()(NULL, a, y, 1, 6, 9, 0), 0);
  assert_int_equal(cat()(NULL, b, y, 1, 3, 9, 6), 0);
  for (int i = 0; i < 9; i++) assert_true(y[i] == (float)(i + 1));
  /* (3, 2) and (3, 1) along the last dim */
  float z[9];
  assert_int_equal(cat()(NULL, a, z, 3, 2, 3, 0), 0);
  assert_int_equal(cat()(NULL, b, z, 3, 1, 3, 2), 0);
  const float want[9] = {1, 2, 7, 3, 4, 8, 5, 6, 9};
  for (int i = 0; i < 9; i++) assert_true(z[i] == want[i]);
}

static void test_cat_checks(void **state) {
  (void)state;
  float x[4] = {0}, y[4] = {0};
  assert_int_not_equal(cat()(NULL, x, y, 1, 3, 4, 2), 0);  /* past the row's end */
  assert_int_not_equal(cat()(NULL, x, y, -1, 1, 4, 0), 0);
  assert_int_not_equal(cat()(NULL, x, y, 1, 1, 4, -1), 0);
  assert_int_not_equal(cat()(NULL, NULL, y, 1, 1, 4, 0), 0);
  assert_int_equal(cat()(NULL, NULL, NULL, 0, 1, 4, 0), 0); /* empty: nothing to touch */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cat_dim1), cmocka_unit_test(test_cat_dim0_and_last),
      cmocka_unit_test(test_cat_checks),
  };
  return cmocka_run_group_tests_name("ops_net", tests, setup_lib, NULL);
}
