/* test_gen_cuda_variants.c (GPU only) — cl1_gen_cuda against cl1_gen_host for tensors under the
 * verification variants (task.h): the off-default uniform params, the shifted and widened
 * inputs and the extreme rule's per-element choice and scaling, for every float dtype, past one
 * grid's worth of elements. Uniform draws are bit-identical; normal ones may differ in the last
 * bit of a double (libm vs CUDA log/cos), rarely visible after rounding, as in test_gen_cuda. */
#include <cuda_runtime.h>
#include <math.h>
#include "../harness.h"
#include "base/rng.h"
#include "task/gen_cuda.h"
#include "task/task.h"

static void check(const cl1_tinst *t, uint64_t seed, uint32_t tid) {
  unsigned char *host = malloc(t->bytes), *dev_copy = malloc(t->bytes);
  void *dev = NULL;
  assert_non_null(host);
  assert_non_null(dev_copy);
  assert_int_equal(cudaMalloc(&dev, t->bytes), cudaSuccess);
  cl1_gen_host(t, host, seed, tid);
  assert_int_equal(cl1_gen_cuda(t, dev, seed, tid, NULL), 0);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  assert_int_equal(cudaMemcpy(dev_copy, dev, t->bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  size_t es = cl1_dtype_size(t->dtype);
  int64_t diff = 0;
  for (int64_t i = 0; i < t->numel; i++) {
    if (!memcmp(host + i * es, dev_copy + i * es, es)) continue;
    diff++;
    if (t->dist != CL1_DIST_NORMAL)
      fail_msg("dtype %s dist %d (%g, %g) extreme_p %g: element %lld differs",
               cl1_dtype_name(t->dtype), t->dist, t->a, t->b, t->extreme_p, (long long)i);
  }
  if (t->dtype != CL1_F64) assert_true(diff <= t->numel / 100000 + 1);
  cudaFree(dev);
  free(host), free(dev_copy);
}

static void test_variants_match_host(void **state) {
  (void)state;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) skip();
  const int64_t n = 3000017; /* more than one grid (8192 x 256) and not a multiple of a block */
  const int floats[] = {CL1_F32, CL1_F16, CL1_BF16, CL1_F64};
  for (int k = 0; k < 4; k++) {
    cl1_tinst base;
    memset(&base, 0, sizeof base);
    base.name = "t", base.dtype = floats[k], base.ndim = 1, base.shape[0] = base.numel = n;
    base.bytes = (size_t)n * cl1_dtype_size(floats[k]);
    const struct { int dist; double a, b; } dists[] = {
        {CL1_DIST_NORMAL, 0, 1}, {CL1_DIST_NORMAL, 0.5, 2}, {CL1_DIST_UNIFORM, 0, 1},
        {CL1_DIST_UNIFORM, -1, 3}};
    for (int d = 0; d < 4; d++) {
      cl1_tinst t = base, o;
      t.dist = dists[d].dist, t.a = dists[d].a, t.b = dists[d].b;
      for (int v = CL1_VARIANT_OFFSET; v <= CL1_VARIANT_EXTREME; v++) {
        assert_true(cl1_tinst_variant(&t, 0, (cl1_variant)v, &o));
        check(&o, 31 + (uint64_t)v, cl1_tensor_id_input(d));
      }
    }
    const double consts[] = {1, 0, -2.5};
    for (int c = 0; c < 3; c++) {
      cl1_tinst t = base, o;
      t.dist = CL1_DIST_CONST, t.a = t.b = consts[c];
      assert_true(cl1_tinst_variant(&t, 1, CL1_VARIANT_OFF_DEFAULT, &o));
      check(&o, 41, cl1_tensor_id_param(c));
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_variants_match_host)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
