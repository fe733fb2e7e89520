/* test_ops_cat.c — torch.cat as the references write it: cl1_cat_part (ops_layout.h) over the
 * host library's strided copy (build/libcl1ops_host.so, loaded with dlopen), three parts along
 * dims 0, 1 and the last dim against index arithmetic written here, and the argument checks. */
#include "ops_host.h"
#include <dlfcn.h>
#include "cudal1/ops.h"


/* cl1_cat_part (ops_layout.h) is an inline helper over the library's one strided copy: this
 * test binary does not link the library, so the copy it calls is forwarded to the loaded one. */
int cl1_op_strided_copy(void *stream, int nd, const int64_t *shape, const float *x,
                        const int64_t *x_stride, float *y, const int64_t *y_stride) {
  return OP(cl1_op_strided_copy)(stream, nd, shape, x, x_stride, y, y_stride);
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
    assert_int_equal(cl1_cat_part(NULL, parts[k], y, N, C[k] * S, Ct * S, off), 0);
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
  assert_int_equal(cl1_cat_part(NULL, a, y, 1, 6, 9, 0), 0);
  assert_int_equal(cl1_cat_part(NULL, b, y, 1, 3, 9, 6), 0);
  for (int i = 0; i < 9; i++) assert_true(y[i] == (float)(i + 1));
  /* (3, 2) and (3, 1) along the last dim */
  float z[9];
  assert_int_equal(cl1_cat_part(NULL, a, z, 3, 2, 3, 0), 0);
  assert_int_equal(cl1_cat_part(NULL, b, z, 3, 1, 3, 2), 0);
  const float want[9] = {1, 2, 7, 3, 4, 8, 5, 6, 9};
  for (int i = 0; i < 9; i++) assert_true(z[i] == want[i]);
}

static void test_cat_checks(void **state) {
  (void)state;
  float x[4] = {0}, y[4] = {0};
  assert_int_not_equal(cl1_cat_part(NULL, x, y, 1, 3, 4, 2), 0);  /* past the row's end */
  assert_int_not_equal(cl1_cat_part(NULL, x, y, -1, 1, 4, 0), 0);
  assert_int_not_equal(cl1_cat_part(NULL, x, y, 1, 1, 4, -1), 0);
  assert_int_not_equal(cl1_cat_part(NULL, NULL, y, 1, 1, 4, 0), 0);
  assert_int_equal(cl1_cat_part(NULL, NULL, NULL, 0, 1, 4, 0), 0); /* empty: nothing to touch */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cat_dim1), cmocka_unit_test(test_cat_dim0_and_last),
      cmocka_unit_test(test_cat_checks),
  };
  return cmocka_run_group_tests_name("ops_cat", tests, setup_lib, NULL);
}
