/* test_rng.c — the generator behind every input and param: Philox4x32-10 against Random123's
 * known answers, reproducibility per (seed, tensor id, index), the distributions' moments and
 * ranges, PyTorch's default init bounds, and half/bfloat16 rounding (round to nearest even). */
#include <math.h>
#include "harness.h"
#include "base/rng.h"
#include "task/gen_cuda.h"
#include "task/task.h"

static void test_philox_kat(void **state) {
  (void)state;
  static const uint32_t kat[3][10] = {
      {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
       0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
      {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
       0x94fdcceb, 0x5001e420, 0x24126ea1},
  };
  for (int i = 0; i < 3; i++) {
    const uint32_t *k = kat[i];
    cl1_philox_out o = cl1_philox4x32(k[0], k[1], k[2], k[3], k[4], k[5]);
    for (int j = 0; j < 4; j++)
      if (o.v[j] != k[6 + j]) fail_msg("vector %d word %d: %08x, want %08x", i, j, o.v[j], k[6 + j]);
  }
}

static cl1_tinst mk(int dtype, int dist, double a, double b, int64_t n) {
  cl1_tinst t;
  memset(&t, 0, sizeof t);
  t.name = "t";
  t.dtype = dtype;
  t.ndim = 1;
  t.shape[0] = t.numel = n;
  t.bytes = (size_t)n * cl1_dtype_size(dtype);
  t.dist = dist;
  t.a = a;
  t.b = b;
  return t;
}

static void test_same_seed_and_tensor_id_reproduce_values(void **state) {
  (void)state;
  const int n = 4096;
  cl1_tinst t = mk(CL1_F32, CL1_DIST_NORMAL, 0, 1, n);
  float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4), *d = malloc(n * 4);
  cl1_gen_host(&t, a, 42, cl1_tensor_id_input(0));
  cl1_gen_host(&t, b, 42, cl1_tensor_id_input(0));
  cl1_gen_host(&t, c, 43, cl1_tensor_id_input(0));
  cl1_gen_host(&t, d, 42, cl1_tensor_id_input(1));
  assert_memory_equal(a, b, n * 4);
  int same_c = 0, same_d = 0;
  for (int i = 0; i < n; i++) {
    same_c += a[i] == c[i];
    same_d += a[i] == d[i];
    /* the generator is exactly the sample rounded to float: element i depends on i alone */
    assert_true(a[i] == (float)cl1_rng_sample(CL1_DIST_NORMAL, 0, 1, 42, 0x100, (uint64_t)i));
  }
  assert_true(same_c < 4 && same_d < 4);
  /* inputs and params never share a counter stream, and the seed's high half matters */
  assert_int_not_equal(cl1_tensor_id_input(3), cl1_tensor_id_param(3));
  cl1_philox_out w1 = cl1_rng_words(1, 7, 5), w2 = cl1_rng_words(1 | (1ull << 32), 7, 5);
  assert_memory_not_equal(&w1, &w2, sizeof w1);
  cl1_philox_out w3 = cl1_rng_words(1, 7, 5 | (1ull << 32));
  assert_memory_not_equal(&w1, &w3, sizeof w1);
  free(a), free(b), free(c), free(d);
}

enum { NS = 100000 };

static void moments(const double *v, int n, double *mean, double *sd) {
  double s = 0, s2 = 0;
  for (int i = 0; i < n; i++) s += v[i];
  *mean = s / n;
  for (int i = 0; i < n; i++) s2 += (v[i] - *mean) * (v[i] - *mean);
  *sd = sqrt(s2 / (n - 1));
}

static void test_distribution_moments_match(void **state) {
  (void)state;
  double *v = malloc(NS * sizeof *v), mean, sd;
  cl1_tinst t = mk(CL1_F64, CL1_DIST_UNIFORM, -2, 6, NS);
  cl1_gen_host(&t, v, 7, 0x100);
  for (int i = 0; i < NS; i++) assert_true(v[i] >= -2 && v[i] < 6);
  moments(v, NS, &mean, &sd);
  double usd = 8 / sqrt(12.0);
  assert_true(fabs(mean - 2) < 5 * usd / sqrt(NS));
  assert_true(fabs(sd - usd) < 0.01 * usd);

  t = mk(CL1_F64, CL1_DIST_NORMAL, 1.5, 3, NS);
  cl1_gen_host(&t, v, 8, 0x200);
  moments(v, NS, &mean, &sd);
  assert_true(fabs(mean - 1.5) < 5 * 3 / sqrt(NS));
  assert_true(fabs(sd - 3) < 0.02 * 3);
  int tail = 0; /* P(|z| > 2) = 4.55% */
  for (int i = 0; i < NS; i++) tail += fabs(v[i] - 1.5) > 6;
  assert_true(fabs(tail / (double)NS - 0.0455) < 0.004);

  t = mk(CL1_I64, CL1_DIST_RANDINT, -3, 5, NS);
  int64_t *iv = malloc(NS * sizeof *iv);
  cl1_gen_host(&t, iv, 9, 0x101);
  int hist[8] = {0};
  for (int i = 0; i < NS; i++) {
    assert_true(iv[i] >= -3 && iv[i] < 5);
    hist[iv[i] + 3]++;
  }
  for (int k = 0; k < 8; k++) assert_true(fabs(hist[k] - NS / 8.0) < 5 * sqrt(NS / 8.0));

  t = mk(CL1_BOOL, CL1_DIST_BERNOULLI, 0.3, 0, NS);
  uint8_t *bv = malloc(NS);
  cl1_gen_host(&t, bv, 10, 0x102);
  int ones = 0;
  for (int i = 0; i < NS; i++) {
    assert_true(bv[i] <= 1);
    ones += bv[i];
  }
  assert_true(fabs(ones / (double)NS - 0.3) < 5 * sqrt(0.3 * 0.7 / NS));

  t = mk(CL1_F32, CL1_DIST_CONST, 0.25, 0.25, 100);
  float *fv = malloc(100 * sizeof *fv);
  cl1_gen_host(&t, fv, 11, 0x103);
  for (int i = 0; i < 100; i++) assert_true(fv[i] == 0.25f);
  free(v), free(iv), free(bv), free(fv);
}

static void test_int_conversions(void **state) {
  (void)state;
  assert_int_equal(cl1_gen_to_i32(3.9), 3);
  assert_int_equal(cl1_gen_to_i32(-3.9), -3);
  assert_int_equal(cl1_gen_to_i32(1e12), INT32_MAX);
  assert_int_equal(cl1_gen_to_i32(-1e12), INT32_MIN);
  assert_int_equal(cl1_gen_to_i32(NAN), 0);
  assert_true(cl1_gen_to_i64(1e30) == INT64_MAX && cl1_gen_to_i64(-1e30) == INT64_MIN);
  assert_true(cl1_gen_to_i64(-7.5) == -7);
  assert_int_equal(cl1_gen_to_u8(-1), 0);
  assert_int_equal(cl1_gen_to_u8(254.7), 254);
  assert_int_equal(cl1_gen_to_u8(300), 255);
  assert_int_equal(cl1_gen_to_bool(0.0), 0);
  assert_int_equal(cl1_gen_to_bool(-0.5), 1);
  /* a uniform into i32 truncates each sample */
  cl1_tinst t = mk(CL1_I32, CL1_DIST_UNIFORM, -10, 10, 1000);
  int32_t v[1000];
  cl1_gen_host(&t, v, 3, 0x100);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(v[i], (int32_t)trunc(cl1_rng_sample(CL1_DIST_UNIFORM, -10, 10, 3, 0x100, i)));
}

/* PyTorch's default Linear weight/bias init, through the loader. */
static void test_init_bounds(void **state) {
  (void)state;
  const char *dir = th_tmpdir();
  char path[300];
  snprintf(path, sizeof path, "%s/task.json", dir);
  assert_int_equal(
      th_write(path,
               "{\"name\": \"1_Lin\", \"level\": 2, \"number\": 1, \"description\": \"linear\",\n"
               " \"dims\": {\"test\": {\"F\": 27, \"O\": 64}, \"small\": {\"F\": 1024, \"O\": 64},"
               " \"large\": {\"F\": 8192, \"O\": 64}},\n"
               " \"inputs\": [],\n"
               " \"params\": [{\"name\": \"w\", \"dtype\": \"f32\", \"shape\": [\"O\", \"F\"],"
               "   \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": \"F\"}},\n"
               "  {\"name\": \"w0\", \"dtype\": \"f32\", \"shape\": [\"O\", \"F\"],"
               "   \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": \"F\", \"a\": 0}},\n"
               "  {\"name\": \"b\", \"dtype\": \"f32\", \"shape\": [\"O\"],"
               "   \"init\": {\"dist\": \"fan_in_uniform\", \"fan_in\": 4}}],\n"
               " \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"O\"]}]}\n"),
      0);
  cl1_task *t;
  cl1_err err;
  if (cl1_task_load(path, &t, &err)) fail_msg("%s", err.msg);
  cl1_inst in;
  if (cl1_task_instance(t, CL1_SHAPES_TEST, &in, &err)) fail_msg("%s", err.msg);
  const cl1_tinst *w = &in.params[0], *w0 = &in.params[1], *b = &in.params[2];
  assert_int_equal(w->dist, CL1_DIST_UNIFORM);
  assert_true(fabs(w->b - 1 / sqrt(27.0)) < 1e-15 && w->a == -w->b); /* a = sqrt 5 */
  assert_true(fabs(w0->b - sqrt(6 / 27.0)) < 1e-15 && w0->a == -w0->b);
  assert_true(b->b == 0.5 && b->a == -0.5);
  float *v = malloc(w->bytes);
  cl1_gen_host(w, v, 1, cl1_tensor_id_param(0));
  float mx = 0;
  for (int64_t i = 0; i < w->numel; i++) mx = fmaxf(mx, fabsf(v[i]));
  assert_true(mx <= (float)w->b && mx > 0.95f * (float)w->b); /* fills its range */
  free(v);
  if (cl1_task_instance(t, CL1_SHAPES_LARGE, &in, &err)) fail_msg("%s", err.msg);
  assert_true(fabs(in.params[0].b - 1 / sqrt(8192.0)) < 1e-15);
  cl1_task_free(t);
}

static float bits_f(uint32_t x) {
  float f;
  memcpy(&f, &x, 4);
  return f;
}

static void test_half_rounding(void **state) {
  (void)state;
  assert_int_equal(cl1_f16_from_f32(1.0f), 0x3c00);
  assert_int_equal(cl1_f16_from_f32(-2.0f), 0xc000);
  assert_int_equal(cl1_f16_from_f32(0.0f), 0x0000);
  assert_int_equal(cl1_f16_from_f32(-0.0f), 0x8000);
  assert_int_equal(cl1_f16_from_f32(65504.0f), 0x7bff);
  assert_int_equal(cl1_f16_from_f32(65519.0f), 0x7bff);
  assert_int_equal(cl1_f16_from_f32(65520.0f), 0x7c00); /* the tie above max rounds to inf */
  assert_int_equal(cl1_f16_from_f32(1e10f), 0x7c00);
  assert_int_equal(cl1_f16_from_f32(-INFINITY), 0xfc00);
  assert_int_equal(cl1_f16_from_f32(NAN) & 0x7e00, 0x7e00);
  assert_int_equal(cl1_f16_from_f32(1.0f / 3), 0x3555);
  assert_int_equal(cl1_f16_from_f32(0.1f), 0x2e66);
  assert_int_equal(cl1_f16_from_f32(1 + 0x1p-11f), 0x3c00);    /* tie -> even */
  assert_int_equal(cl1_f16_from_f32(1 + 0x3p-11f), 0x3c02);    /* tie -> even (up) */
  assert_int_equal(cl1_f16_from_f32(0x1p-14f), 0x0400);        /* smallest normal */
  assert_int_equal(cl1_f16_from_f32(0x1p-24f), 0x0001);        /* smallest subnormal */
  assert_int_equal(cl1_f16_from_f32(0x1p-25f), 0x0000);        /* tie -> even zero */
  assert_int_equal(cl1_f16_from_f32(0x1.8p-25f), 0x0001);
  assert_int_equal(cl1_f16_from_f32(0x3p-25f), 0x0002);        /* 1.5 units: tie -> 2 */
  assert_int_equal(cl1_f16_from_f32(0x1.ffep-15f), 0x0400);    /* a tie rounds up into normals */
  assert_int_equal(cl1_f16_from_f32(bits_f(0x00000001)), 0);   /* float subnormal */
  assert_true(cl1_f16_to_f32(0x3555) == 0.333251953125f);
  assert_true(cl1_f16_to_f32(0x0001) == 0x1p-24f);
  assert_true(cl1_f16_to_f32(0xfc00) == -INFINITY);
  assert_true(isnan(cl1_f16_to_f32(0x7e00)));
  /* every finite half: exact round trip; its midpoint to the next ties to even; a hair either
   * side of the midpoint goes that way */
  for (uint32_t h = 0; h < 0x7bff; h++) {
    for (uint32_t s = 0; s <= 0x8000; s += 0x8000) {
      float lo = cl1_f16_to_f32((uint16_t)(h | s)), hi = cl1_f16_to_f32((uint16_t)((h + 1) | s));
      float mid = lo + (hi - lo) / 2;
      if (cl1_f16_from_f32(lo) != (h | s)) fail_msg("round trip %04x", h | s);
      uint32_t even = (h & 1) ? h + 1 : h;
      if (cl1_f16_from_f32(mid) != (even | s)) fail_msg("midpoint after %04x", h | s);
      if (cl1_f16_from_f32(nextafterf(mid, lo)) != (h | s)) fail_msg("below mid %04x", h | s);
      if (cl1_f16_from_f32(nextafterf(mid, hi)) != ((h + 1) | s)) fail_msg("above mid %04x", h | s);
    }
  }
}

static void test_bf16_rounding(void **state) {
  (void)state;
  assert_int_equal(cl1_bf16_from_f32(1.0f), 0x3f80);
  assert_int_equal(cl1_bf16_from_f32(3.14159265f), 0x4049);
  assert_int_equal(cl1_bf16_from_f32(-0.0f), 0x8000);
  assert_int_equal(cl1_bf16_from_f32(1 + 0x1p-8f), 0x3f80); /* tie -> even */
  assert_int_equal(cl1_bf16_from_f32(1 + 0x3p-8f), 0x3f82); /* tie -> even (up) */
  assert_int_equal(cl1_bf16_from_f32(1 + 0x1.2p-8f), 0x3f81);
  assert_int_equal(cl1_bf16_from_f32(3.4e38f), 0x7f80);     /* past bf16 max: inf */
  assert_int_equal(cl1_bf16_from_f32(INFINITY), 0x7f80);
  uint16_t nan = cl1_bf16_from_f32(bits_f(0x7f800001)); /* a NaN whose payload is all low bits */
  assert_true((nan & 0x7f80) == 0x7f80 && (nan & 0x7f));
  assert_true(cl1_bf16_to_f32(0x4049) == 3.140625f);
  for (uint32_t h = 0; h < 0x7f7f; h++) {
    float lo = cl1_bf16_to_f32((uint16_t)h), hi = cl1_bf16_to_f32((uint16_t)(h + 1));
    float mid = lo + (hi - lo) / 2;
    uint32_t even = (h & 1) ? h + 1 : h;
    if (cl1_bf16_from_f32(lo) != h) fail_msg("round trip %04x", h);
    if (cl1_bf16_from_f32(mid) != even) fail_msg("midpoint after %04x", h);
    if (cl1_bf16_from_f32(nextafterf(mid, hi)) != h + 1) fail_msg("above mid %04x", h);
  }
}

/* f16/bf16 tensors hold exactly the rounded samples. */
static void test_gen_half(void **state) {
  (void)state;
  enum { N = 2000 };
  uint16_t h[N], bf[N];
  cl1_tinst t = mk(CL1_F16, CL1_DIST_NORMAL, 0, 1, N);
  cl1_gen_host(&t, h, 5, 0x100);
  t.dtype = CL1_BF16;
  cl1_gen_host(&t, bf, 5, 0x100);
  for (int i = 0; i < N; i++) {
    float f = (float)cl1_rng_sample(CL1_DIST_NORMAL, 0, 1, 5, 0x100, i);
    assert_int_equal(h[i], cl1_f16_from_f32(f));
    assert_int_equal(bf[i], cl1_bf16_from_f32(f));
    assert_true(fabsf(cl1_f16_to_f32(h[i]) - f) <= fabsf(f) * 0x1p-11f + 0x1p-25f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_philox_kat),      cmocka_unit_test(test_same_seed_and_tensor_id_reproduce_values),
      cmocka_unit_test(test_distribution_moments_match),   cmocka_unit_test(test_int_conversions),
      cmocka_unit_test(test_init_bounds),     cmocka_unit_test(test_half_rounding),
      cmocka_unit_test(test_bf16_rounding),   cmocka_unit_test(test_gen_half),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
