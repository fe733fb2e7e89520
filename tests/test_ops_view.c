/* test_ops_view.c — strided views in the host op library (build/libcl1ops_host.so, loaded with
 * dlopen): cl1_op_strided_copy into a contiguous y (channel shuffle, slice, transpose, broadcast)
 * and cl1_op_binary_bcast over 1..3-d views (transposed minus broadcast product) against index
 * arithmetic written here, plus empty views and the argument checks. */
#include "ops_host.h"
#include <dlfcn.h>
#include "cudal1/ops.h"


#define VCOPY OP(cl1_op_strided_copy)
#define VBIN OP(cl1_op_binary_bcast)

/* ShuffleNet's channel shuffle: view (N, g, C/g, HW), transpose(1, 2), flatten. */
static void test_copy_channel_shuffle(void **state) {
  (void)state;
  enum { N = 2, G = 3, CPG = 4, C = G * CPG, HW = 5 };
  float x[N * C * HW], y[N * C * HW];
  for (int i = 0; i < N * C * HW; i++) x[i] = (float)i, y[i] = -1.f;
  const int64_t shape[4] = {N, CPG, G, HW}, st[4] = {C * HW, HW, CPG * HW, 1};
  assert_int_equal(VCOPY(NULL, 4, shape, x, st, y, NULL), 0);
  for (int n = 0; n < N; n++)
    for (int c = 0; c < C; c++)  // out channel c = j*G + g reads in channel g*CPG + j
      for (int s = 0; s < HW; s++) {
        int j = c / G, g = c % G;
        assert_true(y[(n * C + c) * HW + s] == x[(n * C + g * CPG + j) * HW + s]);
      }
}

/* x[:, :k] of a (rows, cols) matrix, a slice starting at an offset, and an odd transpose. */
static void test_copy_slice_transpose(void **state) {
  (void)state;
  enum { R = 7, CO = 5, K = 3 };
  float x[R * CO], y[R * CO];
  for (int i = 0; i < R * CO; i++) x[i] = (float)(i * 3 + 1);
  const int64_t sh[2] = {R, K}, st[2] = {CO, 1};
  assert_int_equal(VCOPY(NULL, 2, sh, x + 1, st, y, NULL), 0);  // x[:, 1:4]
  for (int r = 0; r < R; r++)
    for (int c = 0; c < K; c++) assert_true(y[r * K + c] == x[r * CO + 1 + c]);
  const int64_t sh2[2] = {CO, R}, st2[2] = {1, CO};      // x.t().contiguous()
  assert_int_equal(VCOPY(NULL, 2, sh2, x, st2, y, NULL), 0);
  for (int c = 0; c < CO; c++)
    for (int r = 0; r < R; r++) assert_true(y[c * R + r] == x[r * CO + c]);
  const int64_t sh3[3] = {2, 1, 3}, st3[3] = {0, 7, 1};  // broadcast (expand) of a row
  assert_int_equal(VCOPY(NULL, 3, sh3, x, st3, y, NULL), 0);
  for (int i = 0; i < 6; i++) assert_true(y[i] == x[i % 3]);
}

/* NetVLAD: vlad (B, K, D) viewed as (B, D, K) minus a_sum (B, 1, K) * c2 (1, D, K). */
static void test_binary_netvlad(void **state) {
  (void)state;
  enum { B = 3, K = 4, D = 5 };
  float vlad[B * K * D], as[B * K], c2[D * K], a[B * D * K], y[B * D * K];
  for (int i = 0; i < B * K * D; i++) vlad[i] = (float)(i % 11) * 0.25f - 1.f;
  for (int i = 0; i < B * K; i++) as[i] = (float)i * 0.5f + 0.125f;
  for (int i = 0; i < D * K; i++) c2[i] = (float)(i % 7) - 3.f;
  const int64_t sh[3] = {B, D, K};
  const int64_t sa[3] = {K, 0, 1}, sc[3] = {0, K, 1}, sv[3] = {K * D, 1, D},
                sy[3] = {D * K, K, 1};
  assert_int_equal(VBIN(NULL, CL1_BINARY_MUL, as, sa, c2, sc, a, 3, sh), 0);
  assert_int_equal(VBIN(NULL, CL1_BINARY_SUB, vlad, sv, a, sy, y, 3, sh), 0);
  for (int b = 0; b < B; b++)
    for (int d = 0; d < D; d++)
      for (int k = 0; k < K; k++) {
        float ak = as[b * K + k] * c2[d * K + k];
        assert_true(a[(b * D + d) * K + k] == ak);
        assert_true(y[(b * D + d) * K + k] == vlad[(b * K + k) * D + d] - ak);
      }
  /* ADD and DIV on a 1-d view with a scalar (stride-0) operand, in place on x */
  float x[6] = {1, 2, 3, 4, 5, 6}, s = 4.f;
  const int64_t n6[1] = {6}, one[1] = {1}, zero[1] = {0};
  assert_int_equal(VBIN(NULL, CL1_BINARY_ADD, x, one, &s, zero, x, 1, n6), 0);
  assert_int_equal(VBIN(NULL, CL1_BINARY_DIV, x, one, &s, zero, x, 1, n6), 0);
  for (int i = 0; i < 6; i++) assert_true(x[i] == (float)(i + 5) / 4.f);
}

static void test_checks(void **state) {
  (void)state;
  float x[4] = {0}, y[4] = {0};
  const int64_t sh[2] = {2, 2}, st[2] = {2, 1}, neg[2] = {-1, 2}, empty[2] = {0, 3};
  assert_int_not_equal(VCOPY(NULL, 0, sh, x, st, y, NULL), 0);
  assert_int_not_equal(VCOPY(NULL, 9, sh, x, st, y, NULL), 0);
  assert_int_not_equal(VCOPY(NULL, 2, neg, x, st, y, NULL), 0);
  assert_int_not_equal(VCOPY(NULL, 2, sh, NULL, st, y, NULL), 0);
  assert_int_equal(VCOPY(NULL, 2, empty, NULL, st, NULL, NULL), 0);
  assert_int_not_equal(VBIN(NULL, CL1_BINARY_N, x, st, x, st, y, 2, sh), 0);
  assert_int_not_equal(VBIN(NULL, CL1_BINARY_ADD, x, st, NULL, st, y, 2, sh), 0);
  assert_int_not_equal(VBIN(NULL, CL1_BINARY_ADD, x, st, x, NULL, y, 2, sh), 0);
  assert_int_equal(VBIN(NULL, CL1_BINARY_ADD, NULL, st, NULL, st, NULL, 2, empty), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_copy_channel_shuffle), cmocka_unit_test(test_copy_slice_transpose),
      cmocka_unit_test(test_binary_netvlad), cmocka_unit_test(test_checks),
  };
  return cmocka_run_group_tests(tests, setup_lib, NULL);
}
