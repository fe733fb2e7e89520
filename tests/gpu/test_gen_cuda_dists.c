/* test_gen_cuda_dists.c (GPU only) — cl1_gen_cuda against cl1_gen_host for the rademacher and
 * row-softmax dists: rademacher bit-identical for every dtype; softmax_normal/softmax_uniform
 * (f32, f64) within a few ulp, rows long enough that the device's block reduction and the
 * host's serial sum really differ in order, and more rows than one grid. */
#include <cuda_runtime.h>
#include <math.h>
#include "../harness.h"
#include "base/rng.h"
#include "task/gen_cuda.h"
#include "task/task.h"

static void check(int dtype, int dist, double a, double b, int64_t rows, int64_t cols,
                  uint64_t seed, uint32_t tid) {
  cl1_tinst t;
  memset(&t, 0, sizeof t);
  t.name = "t", t.dtype = dtype, t.ndim = 2, t.shape[0] = rows, t.shape[1] = cols;
  t.numel = rows * cols;
  t.bytes = (size_t)t.numel * cl1_dtype_size(dtype);
  t.dist = dist, t.a = a, t.b = b;
  unsigned char *host = malloc(t.bytes), *dev_copy = malloc(t.bytes);
  void *dev = NULL;
  assert_non_null(host);
  assert_non_null(dev_copy);
  assert_int_equal(cudaMalloc(&dev, t.bytes), cudaSuccess);
  cl1_gen_host(&t, host, seed, tid);
  assert_int_equal(cl1_gen_cuda(&t, dev, seed, tid, NULL), 0);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  assert_int_equal(cudaMemcpy(dev_copy, dev, t.bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  size_t es = cl1_dtype_size(dtype);
  for (int64_t i = 0; i < t.numel; i++) {
    if (!memcmp(host + i * es, dev_copy + i * es, es)) continue;
    if (dist == CL1_DIST_RADEMACHER)
      fail_msg("rademacher %s: element %lld differs", cl1_dtype_name(dtype), (long long)i);
    double h, d;
    if (dtype == CL1_F64) memcpy(&h, host + i * 8, 8), memcpy(&d, dev_copy + i * 8, 8);
    else {
      float hf, df;
      memcpy(&hf, host + i * 4, 4), memcpy(&df, dev_copy + i * 4, 4);
      h = hf, d = df;
    }
    /* f32: a few ulp. f64: the normal samples may differ in their last bit (libm vs CUDA
     * log/cos), which exp turns into a relative error of ~|v| ulps, plus the sum's order */
    double tol = dtype == CL1_F64 ? 1e-13 : 4 * 1.2e-7;
    if (!(fabs(h - d) <= tol * fabs(h)))
      fail_msg("dist %d %s element %lld: host %.17g device %.17g", dist, cl1_dtype_name(dtype),
               (long long)i, h, d);
  }
  cudaFree(dev);
  free(host), free(dev_copy);
}

static void test_new_dists_match_host(void **state) {
  (void)state;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) skip();
  for (int d = 0; d < 8; d++) check(d, CL1_DIST_RADEMACHER, 0, 0, 1001, 3001, 21, 0x100);
  check(CL1_F32, CL1_DIST_SOFTMAX_NORMAL, 0, 1, 70001, 37, 22, 0x101);
  check(CL1_F32, CL1_DIST_SOFTMAX_NORMAL, 0, 1, 64, 16384, 23, 0x102);
  check(CL1_F64, CL1_DIST_SOFTMAX_NORMAL, 0.5, 2, 33, 4099, 24, 0x103);
  check(CL1_F32, CL1_DIST_SOFTMAX_UNIFORM, 0, 0.5, 129, 16384, 25, 0x104);
  check(CL1_F32, CL1_DIST_SOFTMAX_UNIFORM, 0, 1, 5, 1, 26, 0x105);  // rows of one: all 1
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_new_dists_match_host)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
