/* rnn.c — host reference for cl1_op_lstm and cl1_op_gru: the same schedule as the CUDA
 * build (input projections of all steps first, then per step the recurrent projection and the
 * cell), dot products and gate arithmetic in double, states stored in fp32 between steps as
 * PyTorch stores them. */
#include <math.h>
#include "cudal1/ops.h"
#include "host_common.h"

/* The float offsets of the workspace regions (see cl1_rnn_workspace_bytes). */
typedef struct {
  float *gx[2], *gh[2], *c[2], *buf[2];
} rnn_ws;

static int rnn_ws_split(const cl1_rnn_desc *d, int gates, void *ws, size_t bytes, rnn_ws *o) {
  if (!ws || bytes < cl1_rnn_workspace_bytes(d, gates)) return 1;
  const int64_t D = d->bidirectional ? 2 : 1, TB = d->seq_len * d->batch, H = d->hidden_size;
  float *p = ws;
  for (int64_t k = 0; k < D; k++) o->gx[k] = p, p += TB * gates * H;
  for (int64_t k = 0; k < D; k++) o->gh[k] = p, p += d->batch * gates * H;
  for (int64_t k = 0; k < D; k++) {
    o->c[k] = p;
    if (gates == CL1_RNN_LSTM_GATES) p += d->batch * H;
  }
  for (int k = 0; k < 2; k++) o->buf[k] = p, p += TB * D * H;
  return 0;
}

/* y (M, N) = x @ W^T, row i of x at x + i*ldx; double accumulation. */
static void gemm_nt(const float *x, int64_t ldx, const float *W, float *y, int64_t M, int64_t N,
                    int64_t K) {
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double s = 0;
      for (int64_t k = 0; k < K; k++) s += (double)x[i * ldx + k] * W[j * K + k];
      y[i * N + j] = (float)s;
    }
}

static double sigm(double v) { return 1.0 / (1.0 + exp(-v)); }

/* One layer stack; c0/cn are used by the LSTM only. */
static int rnn_run(int gates, const cl1_rnn_desc *d, const float *x, const float *h0,
                   const float *c0, const float *const *w, float *y, float *hn, float *cn,
                   void *workspace, size_t workspace_bytes) {
  if (cl1_rnn_desc_bad(d) || !x || !h0 || !w) return 1;
  if (gates == CL1_RNN_LSTM_GATES && !c0) return 1;
  rnn_ws ws;
  if (rnn_ws_split(d, gates, workspace, workspace_bytes, &ws)) return 1;
  const int64_t T = d->seq_len, B = d->batch, H = d->hidden_size, L = d->num_layers;
  const int64_t D = d->bidirectional ? 2 : 1, GH = gates * H, DH = D * H;
  /* row of (t, b) in a (T*B, .) view of x / y: batch_first rows are b*T + t */
  const int64_t sb = d->batch_first ? T : 1, st = d->batch_first ? 1 : B;
  for (int64_t l = 0; l < L; l++) {
    const float *in = l == 0 ? x : ws.buf[(l - 1) % 2];
    const int64_t in_l = l == 0 ? d->input_size : DH;
    float *out = (l == L - 1 && y) ? y : ws.buf[l % 2];  // (T*B, D*H)
    for (int64_t k = 0; k < D; k++) {
      const float *const *wk = w + 4 * (l * D + k);
      for (int i = 0; i < 4; i++)
        if (!wk[i]) return 1;
      gemm_nt(in, in_l, wk[0], ws.gx[k], T * B, GH, in_l);  // (T*B, G*H)
    }
    for (int64_t s = 0; s < T; s++)
      for (int64_t k = 0; k < D; k++) {
        const float *const *wk = w + 4 * (l * D + k);
        const float *b_ih = wk[2], *b_hh = wk[3];
        const int64_t t = k ? T - 1 - s : s, tp = k ? t + 1 : t - 1;
        const float *hp = s == 0 ? h0 + (l * D + k) * B * H : out + tp * st * DH + k * H;
        const int64_t hp_ld = s == 0 ? H : sb * DH;
        gemm_nt(hp, hp_ld, wk[1], ws.gh[k], B, GH, H);  // (B, G*H)
        const float *cin = s == 0 && c0 ? c0 + (l * D + k) * B * H : ws.c[k];
        float *hlast = (s == T - 1 && hn) ? hn + (l * D + k) * B * H : NULL;
        float *clast = (s == T - 1 && cn) ? cn + (l * D + k) * B * H : NULL;
        for (int64_t b = 0; b < B; b++) {
          const float *gxr = ws.gx[k] + (t * st + b * sb) * GH, *ghr = ws.gh[k] + b * GH;
          float *yr = out + (t * st + b * sb) * DH + k * H;
          for (int64_t j = 0; j < H; j++) {
            double h;
            if (gates == CL1_RNN_LSTM_GATES) {
              double a[4];
              for (int g = 0; g < 4; g++)
                a[g] = (double)gxr[g * H + j] + b_ih[g * H + j] + ghr[g * H + j] + b_hh[g * H + j];
              double c = sigm(a[1]) * cin[b * H + j] + sigm(a[0]) * tanh(a[2]);
              h = sigm(a[3]) * tanh(c);
              ws.c[k][b * H + j] = (float)c;
              if (clast) clast[b * H + j] = (float)c;
            } else {
              double r = sigm((double)gxr[j] + b_ih[j] + ghr[j] + b_hh[j]);
              double z = sigm((double)gxr[H + j] + b_ih[H + j] + ghr[H + j] + b_hh[H + j]);
              double n = tanh((double)gxr[2 * H + j] + b_ih[2 * H + j] +
                              r * ((double)ghr[2 * H + j] + b_hh[2 * H + j]));
              h = (1.0 - z) * n + z * hp[b * hp_ld + j];
            }
            yr[j] = (float)h;
            if (hlast) hlast[b * H + j] = (float)h;
          }
        }
      }
  }
  return 0;
}

int cl1_op_lstm(void *stream, const cl1_rnn_desc *d, const float *x, const float *h0,
                const float *c0, const float *const *w, float *y, float *hn, float *cn,
                void *workspace, size_t workspace_bytes) {
  (void)stream;
  return rnn_run(CL1_RNN_LSTM_GATES, d, x, h0, c0, w, y, hn, cn, workspace, workspace_bytes);
}

int cl1_op_gru(void *stream, const cl1_rnn_desc *d, const float *x, const float *h0,
               const float *const *w, float *y, float *hn, void *workspace,
               size_t workspace_bytes) {
  (void)stream;
  return rnn_run(CL1_RNN_GRU_GATES, d, x, h0, NULL, w, y, hn, NULL, workspace, workspace_bytes);
}
