/* test_ops_rnn.c — the recurrent-layer ops of the host op library (cl1_op_lstm, cl1_op_gru, and
 * cl1_op_linear on a row-strided view (ldx) in build/libcl1ops_host.so, loaded with dlopen) against naive references
 * written here: per layer, per direction, per time step, in double, straight from PyTorch's
 * documented formulas; both layouts (batch_first or not), one and two directions, several
 * layers, odd sizes, the optional outputs left NULL, and the argument checks. */
#include "ops_host.h"
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include "cudal1/ops.h"


static uint64_t g_rng = 88172645463325252ULL;
static float frand(float lo, float hi) {  // xorshift64: reproducible, no libc state
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return lo + (hi - lo) * (float)((g_rng >> 11) * (1.0 / 9007199254740992.0));
}
static float *rnd(int64_t n, float lo, float hi) {
  float *p = malloc((size_t)n * sizeof *p);
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) p[i] = frand(lo, hi);
  return p;
}

static double sg(double v) { return 1.0 / (1.0 + exp(-v)); }

/* Naive stack: G = 4 (LSTM) or 3 (GRU). x indexed through the layout; outputs in double,
 * y (T, B, D*H) time-major regardless of layout, hn/cn (L*D, B, H). */
static void naive(int G, const cl1_rnn_desc *d, const float *x, const float *h0, const float *c0,
                  float **w, double *y, double *hn, double *cn) {
  const int64_t T = d->seq_len, B = d->batch, H = d->hidden_size, D = d->bidirectional ? 2 : 1;
  double *in = malloc((size_t)(T * B * (d->input_size > D * H ? d->input_size : D * H)) *
                      sizeof *in);
  double *h = malloc((size_t)H * sizeof *h), *c = malloc((size_t)H * sizeof *c);
  double *pre = malloc((size_t)(G * H) * sizeof *pre), *hh = malloc((size_t)(G * H) * sizeof *hh);
  int64_t in_l = d->input_size;
  for (int64_t t = 0; t < T; t++)
    for (int64_t b = 0; b < B; b++)
      for (int64_t i = 0; i < in_l; i++)
        in[(t * B + b) * in_l + i] =
            x[(d->batch_first ? b * T + t : t * B + b) * in_l + i];
  for (int64_t l = 0; l < d->num_layers; l++) {
    for (int64_t k = 0; k < D; k++) {
      float *const *p = w + 4 * (l * D + k);
      for (int64_t b = 0; b < B; b++) {
        for (int64_t j = 0; j < H; j++) {
          h[j] = h0[((l * D + k) * B + b) * H + j];
          c[j] = c0 ? c0[((l * D + k) * B + b) * H + j] : 0;
        }
        for (int64_t s = 0; s < T; s++) {
          const int64_t t = k ? T - 1 - s : s;
          for (int64_t r = 0; r < G * H; r++) {
            double a = p[2][r], e = p[3][r];
            for (int64_t i = 0; i < in_l; i++) a += p[0][r * in_l + i] * in[(t * B + b) * in_l + i];
            for (int64_t i = 0; i < H; i++) e += p[1][r * H + i] * h[i];
            pre[r] = a, hh[r] = e;
          }
          for (int64_t j = 0; j < H; j++) {
            if (G == 4) {
              double ig = sg(pre[j] + hh[j]), fg = sg(pre[H + j] + hh[H + j]);
              double gg = tanh(pre[2 * H + j] + hh[2 * H + j]), og = sg(pre[3 * H + j] + hh[3 * H + j]);
              c[j] = fg * c[j] + ig * gg;
              h[j] = og * tanh(c[j]);
            } else {
              double r = sg(pre[j] + hh[j]), z = sg(pre[H + j] + hh[H + j]);
              double n = tanh(pre[2 * H + j] + r * hh[2 * H + j]);
              h[j] = (1 - z) * n + z * h[j];
            }
            y[(t * B + b) * D * H + k * H + j] = h[j];
          }
        }
        for (int64_t j = 0; j < H; j++) {
          hn[((l * D + k) * B + b) * H + j] = h[j];
          if (cn) cn[((l * D + k) * B + b) * H + j] = c[j];
        }
      }
    }
    in_l = D * H;
    for (int64_t i = 0; i < T * B * D * H; i++) in[i] = y[i];
  }
  free(in), free(h), free(c), free(pre), free(hh);
}

/* One configuration through the op and the naive stack; compares y, hn and cn. */
static void run_case(int G, int64_t T, int64_t B, int64_t I, int64_t H, int64_t L, int bi,
                     int batch_first, int want_y) {
  const cl1_rnn_desc d = {T, B, I, H, L, bi, batch_first};
  const int64_t D = bi ? 2 : 1, nw = 4 * L * D;
  float **w = calloc((size_t)nw, sizeof *w);
  const float bound = 1.f / sqrtf((float)H);
  for (int64_t l = 0; l < L; l++)
    for (int64_t k = 0; k < D; k++) {
      float **p = w + 4 * (l * D + k);
      const int64_t in = l == 0 ? I : D * H;
      p[0] = rnd(G * H * in, -bound, bound), p[1] = rnd(G * H * H, -bound, bound);
      p[2] = rnd(G * H, -bound, bound), p[3] = rnd(G * H, -bound, bound);
    }
  float *x = rnd(T * B * I, -1, 1), *h0 = rnd(L * D * B * H, -1, 1);
  float *c0 = G == 4 ? rnd(L * D * B * H, -1, 1) : NULL;
  float *y = calloc((size_t)(T * B * D * H), sizeof *y), *hn = calloc((size_t)(L * D * B * H), 4);
  float *cn = calloc((size_t)(L * D * B * H), 4);
  double *ry = malloc((size_t)(T * B * D * H) * sizeof *ry);
  double *rhn = malloc((size_t)(L * D * B * H) * sizeof *rhn);
  double *rcn = malloc((size_t)(L * D * B * H) * sizeof *rcn);
  const size_t wsb = cl1_rnn_workspace_bytes(&d, G);
  assert_true(wsb > 0);
  void *ws = malloc(wsb);
  int rc;
  if (G == 4)
    rc = OP(cl1_op_lstm)(NULL, &d, x, h0, c0, (const float *const *)w,
                                       want_y ? y : NULL, hn, cn, ws, wsb);
  else
    rc = OP(cl1_op_gru)(NULL, &d, x, h0, (const float *const *)w,
                                     want_y ? y : NULL, hn, ws, wsb);
  assert_int_equal(rc, 0);
  naive(G, &d, x, h0, c0, w, ry, rhn, G == 4 ? rcn : NULL);
  double worst = 0;
  if (want_y)
    for (int64_t t = 0; t < T; t++)
      for (int64_t b = 0; b < B; b++)
        for (int64_t j = 0; j < D * H; j++) {
          const float got = y[(batch_first ? b * T + t : t * B + b) * D * H + j];
          worst = fmax(worst, fabs(got - ry[(t * B + b) * D * H + j]));
        }
  for (int64_t i = 0; i < L * D * B * H; i++) {
    worst = fmax(worst, fabs(hn[i] - rhn[i]));
    if (G == 4) worst = fmax(worst, fabs(cn[i] - rcn[i]));
  }
  if (worst > 1e-5)
    fail_msg("G=%d T=%ld B=%ld I=%ld H=%ld L=%ld bi=%d bf=%d: max error %g", G, (long)T, (long)B,
             (long)I, (long)H, (long)L, bi, batch_first, worst);
  /* a workspace one float short is refused */
  if (G == 4)
    rc = OP(cl1_op_lstm)(NULL, &d, x, h0, c0, (const float *const *)w, y, hn, cn,
                                       ws, wsb - 4);
  else
    rc = OP(cl1_op_gru)(NULL, &d, x, h0, (const float *const *)w, y, hn, ws,
                                     wsb - 4);
  assert_int_not_equal(rc, 0);
  for (int64_t i = 0; i < nw; i++) free(w[i]);
  free(w), free(x), free(h0), free(c0), free(y), free(hn), free(cn), free(ry), free(rhn),
      free(rcn), free(ws);
}

static void test_lstm(void **state) {
  (void)state;
  run_case(4, 5, 3, 4, 6, 1, 0, 1, 1);
  run_case(4, 7, 2, 5, 3, 3, 0, 0, 1);
  run_case(4, 6, 3, 2, 5, 2, 1, 1, 1);  /* bidirectional, batch_first */
  run_case(4, 4, 1, 3, 4, 3, 1, 0, 0);  /* bidirectional, no y wanted */
  run_case(4, 1, 2, 3, 2, 2, 1, 1, 1);  /* one time step */
}

static void test_gru(void **state) {
  (void)state;
  run_case(3, 5, 3, 4, 6, 1, 0, 0, 1);
  run_case(3, 7, 2, 5, 3, 3, 0, 1, 1);
  run_case(3, 6, 3, 2, 5, 2, 1, 0, 1);  /* bidirectional */
  run_case(3, 4, 2, 3, 4, 3, 1, 1, 0);  /* bidirectional, batch_first, no y wanted */
  run_case(3, 1, 1, 1, 1, 1, 0, 0, 1);  /* everything 1 */
}

static void test_rnn_checks(void **state) {
  (void)state;
  __typeof__(&cl1_op_lstm) lstm = OP(cl1_op_lstm);
  __typeof__(&cl1_op_gru) gru = OP(cl1_op_gru);
  float buf[64] = {0};
  const float *w[4] = {buf, buf, buf, buf};
  cl1_rnn_desc d = {1, 1, 1, 1, 1, 0, 0};
  const size_t wsb = cl1_rnn_workspace_bytes(&d, 4);
  assert_true(wsb <= sizeof buf / 2);
  float ws[32];
  assert_int_equal(lstm(NULL, &d, buf, buf, buf, w, buf + 40, buf + 41, buf + 42, ws, wsb), 0);
  assert_int_not_equal(lstm(NULL, &d, buf, buf, NULL, w, NULL, NULL, NULL, ws, wsb), 0); /* c0 */
  assert_int_not_equal(lstm(NULL, &d, buf, buf, buf, w, NULL, NULL, NULL, NULL, wsb), 0);
  const float *wnull[4] = {buf, NULL, buf, buf};
  assert_int_not_equal(gru(NULL, &d, buf, buf, wnull, NULL, NULL, ws, sizeof ws), 0);
  d.hidden_size = 0;
  assert_true(cl1_rnn_workspace_bytes(&d, 3) == 0);
  assert_int_not_equal(gru(NULL, &d, buf, buf, w, NULL, NULL, ws, sizeof ws), 0);
  d.hidden_size = 1, d.bidirectional = 2;
  assert_int_not_equal(gru(NULL, &d, buf, buf, w, NULL, NULL, ws, sizeof ws), 0);
}

/* out[:, -1, :] of a (B, T, K) tensor through fc, against the dot products here. */
static void test_linear_reads_row_strided_view(void **state) {
  (void)state;
  __typeof__(&cl1_op_linear) f = OP(cl1_op_linear);
  enum { B = 3, T = 4, K = 5, N = 7 };
  float *x = rnd(B * T * K, -1, 1), *W = rnd(N * K, -1, 1), *bias = rnd(N, -1, 1);
  float y[B * N], y2[B * N];
  assert_int_equal(f(NULL, x + (T - 1) * K, T * K, W, bias, y, B, N, K), 0);
  assert_int_equal(f(NULL, x + (T - 1) * K, T * K, W, NULL, y2, B, N, K), 0);
  for (int b = 0; b < B; b++)
    for (int n = 0; n < N; n++) {
      double s = 0;
      for (int k = 0; k < K; k++) s += (double)x[(b * T + T - 1) * K + k] * W[n * K + k];
      assert_true(fabs(y2[b * N + n] - s) < 1e-6);
      assert_true(fabs(y[b * N + n] - (s + bias[n])) < 1e-6);
    }
  assert_int_not_equal(f(NULL, x, K - 1, W, bias, y, B, N, K), 0); /* rows overlap */
  assert_int_not_equal(f(NULL, NULL, K, W, bias, y, B, N, K), 0);
  assert_int_equal(f(NULL, NULL, K, NULL, NULL, NULL, 0, N, K), 0); /* empty */
  free(x), free(W), free(bias);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lstm), cmocka_unit_test(test_gru),
      cmocka_unit_test(test_rnn_checks), cmocka_unit_test(test_linear_reads_row_strided_view),
  };
  return cmocka_run_group_tests(tests, setup_lib, NULL);
}
