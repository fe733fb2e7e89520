/* test_gen_cuda.c (GPU only) — cl1_gen_cuda against cl1_gen_host: for every dtype and
 * distribution the device fills the same bits as the host, past one grid's worth of elements.
 * Normal samples go through libm on one side and CUDA's log/cos on the other, so there a
 * difference in the last bit of a double is allowed, and it must stay rare after rounding. */
#include <cuda_runtime.h>
#include <math.h>
#include "../harness.h"
#include "base/rng.h"
#include "task/gen_cuda.h"
#include "task/task.h"

static void check(int dtype, int dist, double a, double b, int64_t n, uint64_t seed, uint32_t tid,
                  cudaStream_t st) {
  cl1_tinst t;
  memset(&t, 0, sizeof t);
  t.name = "t", t.dtype = dtype, t.ndim = 1, t.shape[0] = t.numel = n;
  t.bytes = (size_t)n * cl1_dtype_size(dtype);
  t.dist = dist, t.a = a, t.b = b;
  unsigned char *host = malloc(t.bytes), *dev_copy = malloc(t.bytes);
  void *dev = NULL;
  assert_non_null(host);
  assert_non_null(dev_copy);
  assert_int_equal(cudaMalloc(&dev, t.bytes), cudaSuccess);
  cl1_gen_host(&t, host, seed, tid);
  assert_int_equal(cl1_gen_cuda(&t, dev, seed, tid, st), 0);
  assert_int_equal(cudaStreamSynchronize(st), cudaSuccess);
  assert_int_equal(cudaMemcpy(dev_copy, dev, t.bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  size_t es = cl1_dtype_size(dtype);
  int64_t diff = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!memcmp(host + i * es, dev_copy + i * es, es)) continue;
    diff++;
    if (dist != CL1_DIST_NORMAL)
      fail_msg("dtype %s dist %d: element %lld differs", cl1_dtype_name(dtype), dist, (long long)i);
    if (dtype == CL1_F64) {
      double h, d;
      memcpy(&h, host + i * 8, 8), memcpy(&d, dev_copy + i * 8, 8);
      /* a + b*z cancels near zero, so the error scales with |a| + |b z|, not with the result */
      if (fabs(h - d) > 1e-14 * (fabs(a) + fabs(h - a)))
        fail_msg("f64 normal element %lld: %.17g vs %.17g", (long long)i, h, d);
    }
  }
  if (dist == CL1_DIST_NORMAL)
    print_message("%s normal: %lld of %lld elements differ in the last bit\n", cl1_dtype_name(dtype),
                  (long long)diff, (long long)n);
  if (dtype != CL1_F64) assert_true(diff <= n / 100000 + 1);
  cudaFree(dev);
  free(host), free(dev_copy);
}

static void test_gen_matches_host(void **state) {
  (void)state;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) skip();
  cudaStream_t st;
  assert_int_equal(cudaStreamCreate(&st), cudaSuccess);
  const int64_t n = 3000017; /* more than one grid (8192 x 256) and not a multiple of a block */
  for (int d = 0; d < 8; d++) {
    check(d, CL1_DIST_UNIFORM, -2, 3, n, 11, cl1_tensor_id_input(0), st);
    check(d, CL1_DIST_RANDINT, -5, 300, n, 12, cl1_tensor_id_param(1), NULL);
    check(d, CL1_DIST_CONST, 0.3, 0.3, 1000, 13, 0x100, st);
    check(d, CL1_DIST_BERNOULLI, 0.25, 0, n, 14, 0x101, st);
    check(d, CL1_DIST_NORMAL, 0.5, 2, n, (1ull << 40) + 15, 0x102, st);
  }
  cl1_tinst empty;
  memset(&empty, 0, sizeof empty);
  assert_int_equal(cl1_gen_cuda(&empty, NULL, 1, 1, st), 0);
  cudaStreamDestroy(st);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_gen_matches_host)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
