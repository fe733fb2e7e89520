/* test_ops_pool.c — the pooling group of the host op library (cl1_op_pool in
 * build/libcl1ops_host.so, loaded with dlopen) against a naive reference written here in
 * another form: the input is copied into an explicitly padded buffer (-inf for max, 0 for avg)
 * and every window tap is enumerated in padded coordinates. 1-, 2- and 3-d, per-dim kernel,
 * stride, padding and dilation, ceil mode, count_include_pad both ways, NaN, edge sizes, and
 * the argument checks. */
#define OPS_SEED 0x243F6A8885A308D3ull
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include "cudal1/ops.h"


static __typeof__(&cl1_op_pool) pool(void) { return OP(cl1_op_pool); }

/* PyTorch's output size, from its documented formula (ceil mode through real division). */
static int64_t out_len(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int ceil_mode) {
  double q = (double)(in + 2 * p - d * (k - 1) - 1) / (double)s;
  int64_t o = (int64_t)(ceil_mode ? ceil(q) : floor(q)) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) o--;
  return o;
}

typedef struct {
  int nsp;
  int64_t planes, in[3], k[3], s[3], p[3], d[3];
  int ceil_mode, cip;
} pcase;

/* Naive pooling of x (planes, in...) into want (planes, out...). Dims are padded to 3 with
 * leading size-1 dims. The padded buffer also has `extra` cells on the right per dim so that
 * ceil-mode windows stay inside it; a tap counts for the count_include_pad divisor when it lies
 * in [0, in + 2p) of the padded coordinates, for the plain count when it hits real data. */
static void naive(int kind, const pcase *c, const float *x, const int64_t *out, double *want) {
  int64_t in[3], k[3], s[3], p[3], d[3], o[3], pd[3];
  int off = 3 - c->nsp;
  for (int i = 0; i < 3; i++) {
    int j = i - off;
    in[i] = j >= 0 ? c->in[j] : 1, k[i] = j >= 0 ? c->k[j] : 1, s[i] = j >= 0 ? c->s[j] : 1;
    p[i] = j >= 0 ? c->p[j] : 0, d[i] = j >= 0 ? c->d[j] : 1, o[i] = j >= 0 ? out[j] : 1;
    pd[i] = (o[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1;  // padded extent the windows reach
    if (pd[i] < in[i] + 2 * p[i]) pd[i] = in[i] + 2 * p[i];
  }
  int64_t pn = pd[0] * pd[1] * pd[2];
  double *xp = malloc(sizeof(double) * (size_t)pn);
  char *real = malloc((size_t)pn), *inpad = malloc((size_t)pn);
  assert_true(xp && real && inpad);
  for (int64_t pl = 0; pl < c->planes; pl++) {
    for (int64_t a = 0; a < pd[0]; a++)
      for (int64_t b = 0; b < pd[1]; b++)
        for (int64_t e = 0; e < pd[2]; e++) {
          int64_t q = (a * pd[1] + b) * pd[2] + e, ia = a - p[0], ib = b - p[1], ie = e - p[2];
          int r = ia >= 0 && ia < in[0] && ib >= 0 && ib < in[1] && ie >= 0 && ie < in[2];
          real[q] = (char)r;
          inpad[q] = (char)(a < in[0] + 2 * p[0] && b < in[1] + 2 * p[1] && e < in[2] + 2 * p[2]);
          xp[q] = r ? x[pl * in[0] * in[1] * in[2] + (ia * in[1] + ib) * in[2] + ie]
                    : kind == CL1_POOL_MAX ? -INFINITY : 0.0;
        }
    for (int64_t a = 0; a < o[0]; a++)
      for (int64_t b = 0; b < o[1]; b++)
        for (int64_t e = 0; e < o[2]; e++) {
          double best = -INFINITY, sum = 0;
          int64_t n_pad = 0, n_real = 0;
          for (int64_t t0 = 0; t0 < k[0]; t0++)
            for (int64_t t1 = 0; t1 < k[1]; t1++)
              for (int64_t t2 = 0; t2 < k[2]; t2++) {
                int64_t q = ((a * s[0] + t0 * d[0]) * pd[1] + b * s[1] + t1 * d[1]) * pd[2] +
                            e * s[2] + t2 * d[2];
                assert_true(q < pn);
                if (isnan(xp[q]) || xp[q] > best) best = isnan(best) ? best : xp[q];
                sum += xp[q], n_pad += inpad[q], n_real += real[q];
              }
          double v = kind == CL1_POOL_MAX ? best : sum / (double)(c->cip ? n_pad : n_real);
          want[((pl * o[0] + a) * o[1] + b) * o[2] + e] = v;
        }
  }
  free(xp), free(real), free(inpad);
}

static void run_case(int kind, const pcase *c, int with_nan) {
  cl1_pool_desc d = {.nsp = c->nsp, .planes = c->planes, .ceil_mode = c->ceil_mode,
                     .count_include_pad = c->cip};
  int64_t nin = c->planes, nout = c->planes;
  for (int i = 0; i < c->nsp; i++) {
    d.in[i] = c->in[i], d.k[i] = c->k[i], d.stride[i] = c->s[i], d.pad[i] = c->p[i];
    d.dil[i] = c->d[i];
    d.out[i] = out_len(c->in[i], c->k[i], c->s[i], c->p[i], c->d[i], c->ceil_mode);
    assert_true(d.out[i] >= 1);
    assert_int_equal(cl1_pool_out_len(d.in[i], d.k[i], d.stride[i], d.pad[i], d.dil[i],
                                      d.ceil_mode), d.out[i]);
    nin *= c->in[i], nout *= d.out[i];
  }
  float *x = malloc(sizeof(float) * (size_t)(nin + 1)), *y = malloc(sizeof(float) * (size_t)(nout + 1));
  double *want = malloc(sizeof(double) * (size_t)(nout + 1));
  assert_true(x && y && want);
  for (int64_t i = 0; i < nin; i++) x[i] = 4.f * frand();
  if (with_nan && nin > 2) x[nin / 2] = NAN;
  for (int64_t i = 0; i < nout; i++) y[i] = 12345.f;
  assert_int_equal(pool()(NULL, kind, x, y, &d), 0);
  naive(kind, c, x, d.out, want);
  for (int64_t i = 0; i < nout; i++) {
    int ok = kind == CL1_POOL_MAX
                 ? (isnan(want[i]) ? isnan(y[i]) : (double)y[i] == want[i])  // max is exact
                 : (isnan(want[i]) ? isnan(y[i]) : fabs(y[i] - want[i]) <= 1e-6 + 1e-6 * fabs(want[i]));
    if (!ok)
      fail_msg("%s %dd in %lld k %lld s %lld p %lld d %lld ceil %d cip %d: out %lld got %.9g want %.9g",
               kind == CL1_POOL_MAX ? "max" : "avg", c->nsp, (long long)c->in[0],
               (long long)c->k[0], (long long)c->s[0], (long long)c->p[0], (long long)c->d[0],
               c->ceil_mode, c->cip, (long long)i, y[i], want[i]);
  }
  free(x), free(y), free(want);
}

static void test_max(void **state) {
  (void)state;
  pcase cases[] = {
      {1, 3, {37}, {4}, {2}, {2}, {3}, 0, 0},       // task 41 small form
      {1, 2, {65}, {8}, {1}, {4}, {3}, 0, 0},       // task 41 large form
      {1, 1, {1}, {1}, {1}, {0}, {1}, 0, 0},        // a 1-element plane
      {1, 2, {5}, {3}, {1}, {1}, {1}, 0, 0},
      {1, 2, {10}, {3}, {2}, {1}, {2}, 1, 0},       // ceil mode
      {2, 3, {17, 19}, {3, 2}, {2, 1}, {1, 1}, {2, 3}, 0, 0},  // per-dim parameters
      {2, 2, {16, 16}, {4, 4}, {1, 1}, {1, 1}, {1, 1}, 0, 0},  // task 42 large form
      {2, 2, {16, 16}, {2, 2}, {2, 2}, {1, 1}, {3, 3}, 0, 0},  // task 42 small form
      {2, 1, {9, 8}, {3, 3}, {2, 3}, {1, 0}, {1, 1}, 1, 0},    // ceil mode, 2-d
      {3, 2, {9, 10, 11}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {3, 3, 3}, 0, 0},  // task 43 form
      {3, 1, {4, 5, 6}, {2, 3, 1}, {1, 2, 1}, {1, 1, 0}, {1, 2, 1}, 0, 0},
      {3, 1, {7, 6, 5}, {3, 2, 3}, {2, 2, 3}, {1, 1, 1}, {1, 1, 1}, 1, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    run_case(CL1_POOL_MAX, &cases[i], 0);
    run_case(CL1_POOL_MAX, &cases[i], 1);  // NaN propagates to every window holding it
  }
  /* padding is -inf, never 0: all-negative data keep negative edge maxima */
  float x[3] = {-5.f, -7.f, -6.f}, y[3];
  cl1_pool_desc d = {.nsp = 1, .planes = 1, .in = {3}, .out = {3}, .k = {3}, .stride = {1},
                     .pad = {1}, .dil = {1}};
  assert_int_equal(pool()(NULL, CL1_POOL_MAX, x, y, &d), 0);
  assert_true(y[0] == -5.f && y[1] == -5.f && y[2] == -6.f);
}

static void test_avg(void **state) {
  (void)state;
  pcase cases[] = {
      {1, 3, {37}, {4}, {2}, {2}, {1}, 0, 1},       // pads by k/2: both edges damped
      {1, 2, {40}, {8}, {1}, {4}, {1}, 0, 1},       // task 44 large form (out longer than in)
      {1, 2, {40}, {8}, {1}, {4}, {1}, 0, 0},       // count_include_pad = False
      {1, 1, {1}, {1}, {1}, {0}, {1}, 0, 1},
      {1, 2, {10}, {3}, {2}, {1}, {1}, 1, 1},       // ceil mode: the last window is clipped
      {1, 2, {10}, {3}, {2}, {1}, {1}, 1, 0},
      {2, 3, {23, 25}, {3, 3}, {3, 3}, {0, 0}, {1, 1}, 0, 1},  // task 45 form, leftovers
      {2, 2, {13, 11}, {3, 4}, {2, 1}, {1, 2}, {1, 1}, 0, 1},  // per-dim parameters
      {2, 2, {13, 11}, {3, 4}, {2, 3}, {1, 2}, {1, 1}, 1, 0},
      {3, 2, {7, 8, 9}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 0, 1},  // task 46 form
      {3, 1, {7, 8, 9}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 0, 0},
      {3, 1, {5, 6, 7}, {2, 3, 2}, {2, 2, 3}, {1, 1, 0}, {1, 1, 1}, 1, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    run_case(CL1_POOL_AVG, &cases[i], 0);
    run_case(CL1_POOL_AVG, &cases[i], 1);
  }
  /* count_include_pad: the padded zero counts in the divisor */
  float x[2] = {3.f, 6.f}, y[2];
  cl1_pool_desc d = {.nsp = 1, .planes = 1, .in = {2}, .out = {2}, .k = {2}, .stride = {1},
                     .pad = {1}, .dil = {1}, .count_include_pad = 1};
  d.out[0] = 3;
  float y3[3];
  assert_int_equal(pool()(NULL, CL1_POOL_AVG, x, y3, &d), 0);
  assert_true(y3[0] == 1.5f && y3[1] == 4.5f && y3[2] == 3.f);
  d.count_include_pad = 0;
  assert_int_equal(pool()(NULL, CL1_POOL_AVG, x, y3, &d), 0);
  assert_true(y3[0] == 3.f && y3[1] == 4.5f && y3[2] == 6.f);
  (void)y;
}

static void test_checks(void **state) {
  (void)state;
  float x[64] = {0}, y[64];
  cl1_pool_desc ok = {.nsp = 2, .planes = 1, .in = {8, 8}, .out = {4, 4}, .k = {2, 2},
                      .stride = {2, 2}, .pad = {0, 0}, .dil = {1, 1}};
  assert_int_equal(pool()(NULL, CL1_POOL_MAX, x, y, &ok), 0);
  assert_int_equal(pool()(NULL, CL1_POOL_AVG, x, y, &ok), 0);
  cl1_pool_desc d = ok;
  d.out[1] = 5;  // not the formula's size
  assert_int_not_equal(pool()(NULL, CL1_POOL_MAX, x, y, &d), 0);
  d = ok, d.pad[0] = 2;  // more than k/2: PyTorch rejects it
  assert_int_not_equal(pool()(NULL, CL1_POOL_MAX, x, y, &d), 0);
  d = ok, d.dil[0] = 2, d.out[0] = 3;  // fine for max, not for avg (AvgPool has no dilation)
  assert_int_equal(pool()(NULL, CL1_POOL_MAX, x, y, &d), 0);
  assert_int_not_equal(pool()(NULL, CL1_POOL_AVG, x, y, &d), 0);
  d = ok, d.stride[1] = 0;
  assert_int_not_equal(pool()(NULL, CL1_POOL_MAX, x, y, &d), 0);
  d = ok, d.k[0] = 9, d.out[0] = 0;  // window larger than the input
  assert_int_not_equal(pool()(NULL, CL1_POOL_MAX, x, y, &d), 0);
  d = ok, d.nsp = 0;
  assert_int_not_equal(pool()(NULL, CL1_POOL_MAX, x, y, &d), 0);
  d = ok, d.nsp = 4;
  assert_int_not_equal(pool()(NULL, CL1_POOL_MAX, x, y, &d), 0);
  assert_int_not_equal(pool()(NULL, CL1_POOL_N, x, y, &ok), 0);
  assert_int_not_equal(pool()(NULL, -1, x, y, &ok), 0);
  assert_int_not_equal(pool()(NULL, CL1_POOL_MAX, NULL, y, &ok), 0);
  assert_int_not_equal(pool()(NULL, CL1_POOL_MAX, x, y, NULL), 0);
  d = ok, d.planes = 0;  // nothing to do, no pointers needed
  assert_int_equal(pool()(NULL, CL1_POOL_MAX, NULL, NULL, &d), 0);
  d = ok, d.planes = -1;
  assert_int_not_equal(pool()(NULL, CL1_POOL_MAX, x, y, &d), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_max), cmocka_unit_test(test_avg), cmocka_unit_test(test_checks),
  };
  return cmocka_run_group_tests(tests, setup_lib, NULL);
}
