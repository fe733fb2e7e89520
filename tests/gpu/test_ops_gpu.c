/* test_ops_gpu.c — every op of the library on both backends, as ggml's test-backend-ops: one
 * table (tests/ops_rows.h) with a row per exported cl1_op_*, each row a case that builds inputs
 * with a deterministic generator, runs the op through libcl1ops_host.so (float64 accumulation,
 * the reference) and libcl1ops_cuda.so (both loaded with dlopen, RTLD_LOCAL keeping their equal
 * names apart) on edge shapes — empty where the op allows it, 1, odd tails, lengths that are
 * not multiples of 4, pointers off 16-byte alignment, one large shape — and compares the CUDA
 * result with the host one under the row's tolerance (NaN where the host has NaN, equal
 * infinities). The first test asserts that the table covers exactly what both libraries export
 * (their ELF dynamic symbols), so an op added without a row fails. test_ops_gpu_paths holds
 * the per-kernel-path shapes. */
#include "../harness.h"
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"
#include "../ops_rows.h"
#include "../ops_syms.h"
#include "ops_libs.h"

static void *lib_sym(void *lib, const char *name) {
  void *f = dlsym(lib, name);
  if (!f) fail_msg("%s: %s missing", lib == g_cuda ? "cuda" : "host", name);
  return f;
}
/* cl1_op_<op> of each backend, typed as ops.h declares it */
#define HOST(op) ((__typeof__(&cl1_op_##op))lib_sym(g_host, "cl1_op_" #op))
#define CUDA(op) ((__typeof__(&cl1_op_##op))lib_sym(g_cuda, "cl1_op_" #op))

/* ---- the row being run, the generator, tensors on both sides ---- */

typedef struct op_row {
  const char *name;
  void (*run)(void);
  double atol, rtol;
} op_row;
static const op_row *g_row;

static uint64_t g_rng;
static float frand(void) {  // uniform in [-1, 1)
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (float)((g_rng >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0);
}

/* A float tensor with a host copy h and a device copy d, `skew` bytes past a 16-byte
 * boundary on the device (4: the float4 paths must fall back to scalar). */
typedef struct {
  float *h, *d;
  int64_t n;
  int skew;
} tens;

static tens t_make(int64_t n, int skew) {
  tens t = {malloc(sizeof(float) * (size_t)(n > 0 ? n : 1)), NULL, n, skew};
  char *d = NULL;
  assert_non_null(t.h);
  assert_int_equal(cudaMalloc((void **)&d, sizeof(float) * (size_t)n + 16), cudaSuccess);
  t.d = (float *)(d + skew);
  return t;
}
static void t_upload(tens *t) {
  assert_int_equal(cudaMemcpy(t->d, t->h, sizeof(float) * (size_t)t->n, cudaMemcpyHostToDevice),
                   cudaSuccess);
}
/* uniform in [off - scale, off + scale), the same on both sides */
static tens t_rand(int64_t n, float scale, float off, int skew) {
  tens t = t_make(n, skew);
  for (int64_t i = 0; i < n; i++) t.h[i] = off + scale * frand();
  t_upload(&t);
  return t;
}
/* an output: NaN on both sides, so that an element an op leaves unwritten fails */
static tens t_out(int64_t n, int skew) {
  tens t = t_make(n, skew);
  for (int64_t i = 0; i < n; i++) t.h[i] = NAN;
  t_upload(&t);
  return t;
}
static void t_free(tens *t) {
  free(t->h);
  cudaFree((char *)t->d - t->skew);
}

/* The CUDA result against the host one, under the row's tolerance scaled by `scale`. */
static void t_check_scaled(const char *what, const tens *t, double scale) {
  float *got = malloc(sizeof(float) * (size_t)(t->n > 0 ? t->n : 1));
  assert_non_null(got);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  assert_int_equal(cudaMemcpy(got, t->d, sizeof(float) * (size_t)t->n, cudaMemcpyDeviceToHost),
                   cudaSuccess);
  double atol = g_row->atol * scale, rtol = g_row->rtol * scale;
  for (int64_t i = 0; i < t->n; i++) {
    double g = got[i], w = t->h[i];
    int ok = isnan(w) ? isnan(g) : isinf(w) ? g == w : fabs(g - w) <= atol + rtol * fabs(w);
    if (!ok) {
      free(got);
      fail_msg("%s %s: element %lld of %lld: cuda %.9g host %.9g", g_row->name, what,
               (long long)i, (long long)t->n, g, w);
    }
  }
  free(got);
}
static void t_check(const char *what, const tens *t) { t_check_scaled(what, t, 1); }

/* int64 data on the device (indices, targets, argmax outputs) */
static int64_t *d_i64(const int64_t *h, int64_t n) {
  int64_t *d = NULL;
  assert_int_equal(cudaMalloc((void **)&d, sizeof(int64_t) * (size_t)(n > 0 ? n : 1)), cudaSuccess);
  if (h && n)
    assert_int_equal(cudaMemcpy(d, h, sizeof(int64_t) * (size_t)n, cudaMemcpyHostToDevice),
                     cudaSuccess);
  return d;
}

/* Both backends return `want_ok ? 0 : non-zero` for the same call. */
#define BOTH(call_h, call_c)                                                                \
  do {                                                                                      \
    int rh_ = (call_h), rc_ = (call_c);                                                     \
    if (rh_ || rc_) fail_msg("%s: host rc %d, cuda rc %d (line %d)", g_row->name, rh_, rc_, \
                             __LINE__);                                                     \
  } while (0)
#define BOTH_REJECT(call_h, call_c)                                                         \
  do {                                                                                      \
    int rh_ = (call_h), rc_ = (call_c);                                                     \
    if (!rh_ || !rc_) fail_msg("%s: invalid call accepted (host rc %d, cuda rc %d, line %d)", \
                               g_row->name, rh_, rc_, __LINE__);                            \
  } while (0)

/* Elementwise lengths: empty, tiny, n % 4 of 0..3, around a block, one large. */
static const int64_t EW_N[] = {0, 1, 2, 3, 4, 5, 7, 1023, 1025, (1 << 20) + 3};
#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

#include "ops_gpu_cases.h"

/* ---- the table ---- */

#define ROW(name, atol, rtol) {"cl1_op_" #name, case_##name, atol, rtol},
static const op_row g_rows[] = {CL1_OP_ROWS(ROW)};
#undef ROW

/* Both libraries export exactly the ops the table has rows for. */
static void test_table_covers_every_exported_op(void **state) {
  (void)state;
  const char *files[2] = {"libcl1ops_host.so", "libcl1ops_cuda.so"};
  for (int f = 0; f < 2; f++) {
    ops_syms s;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", th_build(), files[f]);
    if (ops_syms_read(path, "cl1_op_", &s)) fail_msg("cannot read the symbols of %s", path);
    for (int i = 0; i < s.n; i++) {
      size_t r = 0;
      while (r < N_OF(g_rows) && strcmp(g_rows[r].name, s.name[i])) r++;
      if (r == N_OF(g_rows)) fail_msg("%s exports %s, which has no table row", files[f], s.name[i]);
    }
    for (size_t r = 0; r < N_OF(g_rows); r++)
      if (!ops_syms_has(&s, g_rows[r].name)) fail_msg("%s lacks %s", files[f], g_rows[r].name);
  }
}

/* Every row, each from the same seed (a row's data does not depend on the rows before it). */
static void test_cuda_matches_host_on_every_op(void **state) {
  (void)state;
  for (size_t r = 0; r < N_OF(g_rows); r++) {
    g_row = &g_rows[r];
    g_rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)(r + 1) * 0x100000001B3ull;
    g_row->run();
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    print_message("ok %s\n", g_row->name);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_covers_every_exported_op),
      cmocka_unit_test(test_cuda_matches_host_on_every_op),
  };
  return cmocka_run_group_tests_name("ops_gpu", tests, setup_libs, NULL);
}
