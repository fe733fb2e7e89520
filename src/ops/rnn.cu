/* rnn.cu — CUDA cl1_op_lstm and cl1_op_gru, scheduled like PyTorch's fused RNN path:
 * per layer and direction one full-FP32 cuBLAS SGEMM projects the inputs of all time steps at
 * once; then per time step one GEMM per direction for the recurrent projection (cuBLASLt, its
 * algorithm timed once per shape: gemm_tuned.cu; cublasSgemm if that fails) and ONE fused
 * cell kernel for both directions (biases, gate nonlinearities, state update, output, h_n/c_n
 * at the last step). The recurrent GEMM reads h_{t-1} straight out of the layer's output
 * buffer (leading dimension = the output's row pitch), so no state copies are made. */
#include "cudal1/ops.h"
#include "gemm_tuned.cuh"

namespace {

/* One direction's operands for one step; batch strides in floats. */
struct cell_dir {
  const float *gx;  int64_t gx_sb;  // (B, G*H) rows of the input projection at step t
  const float *gh;                  // (B, G*H) contiguous: h_{t-1} @ W_hh^T
  const float *b_ih, *b_hh;         // (G*H)
  const float *hp;  int64_t hp_sb;  // (B, H): h_{t-1} (GRU reads it; LSTM ignores it)
  const float *cin; float *cout;    // (B, H): LSTM cell state in/out (may alias)
  float *y;         int64_t y_sb;   // (B, H) slice of the layer output at step t
  float *hlast, *clast;             // (B, H) or NULL: h_n / c_n at the last step
};
struct cell_args { cell_dir d[2]; };

__device__ __forceinline__ float sigm(float v) { return 1.f / (1.f + expf(-v)); }

template <int G>
__global__ void rnn_cell(cell_args a, int64_t B, int64_t H) {
  const cell_dir &c = a.d[blockIdx.y];
  const int64_t GH = G * H;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < B * H;
       i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t b = i / H, j = i - b * H;
    const float *gx = c.gx + b * c.gx_sb, *gh = c.gh + b * GH;
    float h;
    if (G == CL1_RNN_LSTM_GATES) {
      const float ig = sigm(gx[j] + c.b_ih[j] + gh[j] + c.b_hh[j]);
      const float fg = sigm(gx[H + j] + c.b_ih[H + j] + gh[H + j] + c.b_hh[H + j]);
      const float gg = tanhf(gx[2 * H + j] + c.b_ih[2 * H + j] + gh[2 * H + j] + c.b_hh[2 * H + j]);
      const float og = sigm(gx[3 * H + j] + c.b_ih[3 * H + j] + gh[3 * H + j] + c.b_hh[3 * H + j]);
      const float cy = fg * c.cin[i] + ig * gg;
      h = og * tanhf(cy);
      c.cout[i] = cy;
      if (c.clast) c.clast[i] = cy;
    } else {
      const float r = sigm(gx[j] + c.b_ih[j] + gh[j] + c.b_hh[j]);
      const float z = sigm(gx[H + j] + c.b_ih[H + j] + gh[H + j] + c.b_hh[H + j]);
      const float n = tanhf(gx[2 * H + j] + c.b_ih[2 * H + j] + r * (gh[2 * H + j] + c.b_hh[2 * H + j]));
      const float hprev = c.hp[b * c.hp_sb + j];
      h = n + z * (hprev - n);  // = (1 - z) n + z h, ATen's form
    }
    c.y[b * c.y_sb + j] = h;
    if (c.hlast) c.hlast[i] = h;
  }
}

/* Row-major C (M, N) = A (M, K; rows lda apart) @ W^T, W (N, K) row-major, full FP32. */
int gemm_nt(cublasHandle_t h, const float *A, int64_t lda, const float *W, float *C, int64_t M,
            int64_t N, int64_t K) {
  const float one = 1.f, zero = 0.f;
  CL1_CUBLAS_TRY(cublasSgemm_64(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, W, K, A, lda, &zero,
                                C, N));
  return 0;
}

template <int G>
int rnn_run(void *stream, const cl1_rnn_desc *d, const float *x, const float *h0,
            const float *c0, const float *const *w, float *y, float *hn, float *cn,
            void *workspace, size_t workspace_bytes) {
  if (cl1_rnn_desc_bad(d) || !x || !h0 || !w) return 1;
  if (G == CL1_RNN_LSTM_GATES && !c0) return 1;
  if (!workspace || workspace_bytes < cl1_rnn_workspace_bytes(d, G)) return 1;
  const int64_t T = d->seq_len, B = d->batch, H = d->hidden_size, L = d->num_layers;
  const int D = d->bidirectional ? 2 : 1;
  const int64_t GH = G * H, DH = D * H, TB = T * B;
  for (int64_t i = 0; i < 4 * L * D; i++)
    if (!w[i]) return 1;
  /* workspace regions, as cl1_rnn_workspace_bytes counts them */
  float *p = (float *)workspace, *gx[2], *gh[2], *cs[2], *buf[2];
  for (int k = 0; k < D; k++) gx[k] = p, p += TB * GH;
  for (int k = 0; k < D; k++) gh[k] = p, p += B * GH;
  for (int k = 0; k < D; k++) {
    cs[k] = p;
    if (G == CL1_RNN_LSTM_GATES) p += B * H;
  }
  for (int k = 0; k < 2; k++) buf[k] = p, p += TB * DH;

  cudaStream_t st = (cudaStream_t)stream;
  cublasHandle_t hb;
  if (cl1_ops_cublas(st, &hb)) return 1;
  /* row of (t, b) in the (T*B, .) views of x / y / gx: batch_first rows are b*T + t */
  const int64_t sb = d->batch_first ? T : 1, stt = d->batch_first ? 1 : B;
  const unsigned grid_x = cl1_ops_grid(B * H, 256);
  for (int64_t l = 0; l < L; l++) {
    const float *in = l == 0 ? x : buf[(l - 1) % 2];
    const int64_t in_l = l == 0 ? d->input_size : DH;
    float *out = (l == L - 1 && y) ? y : buf[l % 2];  // (T*B, D*H)
    for (int k = 0; k < D; k++)
      if (gemm_nt(hb, in, in_l, w[4 * (l * D + k)], gx[k], TB, GH, in_l)) return 1;
    for (int64_t s = 0; s < T; s++) {
      cell_args a;
      for (int k = 0; k < D; k++) {
        const float *const *wk = w + 4 * (l * D + k);
        const int64_t t = k ? T - 1 - s : s, tp = k ? t + 1 : t - 1;
        cell_dir &c = a.d[k];
        c.hp = s == 0 ? h0 + (l * D + k) * B * H : out + tp * stt * DH + k * H;
        c.hp_sb = s == 0 ? H : sb * DH;
        if (cl1_gemm_nt_tuned(st, c.hp, c.hp_sb, wk[1], gh[k], B, GH, H) &&
            gemm_nt(hb, c.hp, c.hp_sb, wk[1], gh[k], B, GH, H))
          return 1;
        c.gx = gx[k] + t * stt * GH;
        c.gx_sb = sb * GH;
        c.gh = gh[k];
        c.b_ih = wk[2];
        c.b_hh = wk[3];
        c.cin = (s == 0 && c0) ? c0 + (l * D + k) * B * H : cs[k];
        c.cout = cs[k];
        c.y = out + t * stt * DH + k * H;
        c.y_sb = sb * DH;
        c.hlast = (s == T - 1 && hn) ? hn + (l * D + k) * B * H : nullptr;
        c.clast = (s == T - 1 && cn) ? cn + (l * D + k) * B * H : nullptr;
      }
      rnn_cell<G><<<dim3(grid_x, D), 256, 0, st>>>(a, B, H);
      CL1_LAUNCH_CHECK();
    }
  }
  return 0;
}

}  // namespace

extern "C" int cl1_op_lstm(void *stream, const cl1_rnn_desc *d, const float *x, const float *h0,
                           const float *c0, const float *const *w, float *y, float *hn,
                           float *cn, void *workspace, size_t workspace_bytes) {
  return rnn_run<CL1_RNN_LSTM_GATES>(stream, d, x, h0, c0, w, y, hn, cn, workspace,
                                     workspace_bytes);
}

extern "C" int cl1_op_gru(void *stream, const cl1_rnn_desc *d, const float *x, const float *h0,
                          const float *const *w, float *y, float *hn, void *workspace,
                          size_t workspace_bytes) {
  return rnn_run<CL1_RNN_GRU_GATES>(stream, d, x, h0, nullptr, w, y, hn, nullptr, workspace,
                                    workspace_bytes);
}
