/* ops_rnn.h — part of the op library API (ops.h includes it); see ops.h for the conventions.
 * The recurrent layers nn.LSTM and nn.GRU (multi-layer, optionally bidirectional, one call per
 * module, as PyTorch's cuDNN path is one call; F.linear on their output's last step, a
 * row-strided view, is cl1_op_linear with ldx). Gate order and formulas are PyTorch's:
 *   LSTM (gates i, f, g, o):  i = s(W_ii x + b_ii + W_hi h + b_hi), f, o likewise,
 *                             g = tanh(W_ig x + b_ig + W_hg h + b_hg),
 *                             c' = f * c + i * g,  h' = o * tanh(c');
 *   GRU (gates r, z, n):      r = s(W_ir x + b_ir + W_hr h + b_hr), z likewise,
 *                             n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),
 *                             h' = (1 - z) * n + z * h;
 * s = logistic sigmoid. Layer l > 0 takes the previous layer's output (both directions
 * concatenated, forward first) as its input; dropout between layers is not applied (p = 0 or
 * eval mode). */
#ifndef CUDAL1_OPS_RNN_H
#define CUDAL1_OPS_RNN_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* The shape of a recurrent layer stack. */
typedef struct {
  int64_t seq_len, batch, input_size, hidden_size, num_layers;
  int bidirectional; /* 0: one direction; 1: forward and reverse (D = 2) */
  int batch_first;   /* x and y are (B, T, .) when != 0, (T, B, .) otherwise */
} cl1_rnn_desc;

/* Gates per cell: 4 for the LSTM, 3 for the GRU. */
#define CL1_RNN_LSTM_GATES 4
#define CL1_RNN_GRU_GATES 3

/* Non-zero when the description is unusable (non-positive sizes). */
static inline int cl1_rnn_desc_bad(const cl1_rnn_desc *d) {
  return !d || d->seq_len <= 0 || d->batch <= 0 || d->input_size <= 0 || d->hidden_size <= 0 ||
         d->num_layers <= 0 || (d->bidirectional != 0 && d->bidirectional != 1);
}

/* Bytes of workspace cl1_op_lstm (gates 4) / cl1_op_gru (gates 3) need: the input projections
 * of every time step (D x (T*B, G*H)), the per-step recurrent projections (D x (B, G*H)), the
 * cell states (LSTM, D x (B, H)) and two layer-output buffers ((T*B, D*H) each, ping-pong). */
static inline size_t cl1_rnn_workspace_bytes(const cl1_rnn_desc *d, int gates) {
  if (cl1_rnn_desc_bad(d)) return 0;
  const int64_t D = d->bidirectional ? 2 : 1, TB = d->seq_len * d->batch, H = d->hidden_size;
  int64_t n = D * TB * gates * H + D * d->batch * gates * H + 2 * TB * D * H;
  if (gates == CL1_RNN_LSTM_GATES) n += D * d->batch * H;
  return (size_t)n * sizeof(float);
}

/* nn.LSTM forward. w: 4 * num_layers * D pointers in nn.LSTM's parameter order: for each layer
 * l, for each direction (forward, then reverse): weight_ih (4H, in_l), weight_hh (4H, H),
 * bias_ih (4H), bias_hh (4H), with in_0 = input_size and in_l = D*H for l > 0.
 * x: (T, B, input_size) or batch_first (B, T, input_size); h0, c0: (num_layers*D, B, H);
 * y: (T, B, D*H) or batch_first (B, T, D*H), the last layer's output; hn, cn: (num_layers*D, B,
 * H), the states after the last step of each layer and direction (the reverse direction's last
 * step is t = 0). y, hn, cn may each be NULL (not wanted). workspace: at least
 * cl1_rnn_workspace_bytes(d, 4) bytes of op memory (cl1_op_alloc), not aliasing any argument. */
int cl1_op_lstm(void *stream, const cl1_rnn_desc *d, const float *x, const float *h0,
                const float *c0, const float *const *w, float *y, float *hn, float *cn,
                void *workspace, size_t workspace_bytes);

/* nn.GRU forward; as cl1_op_lstm with 3H gate rows (r, z, n) and no cell state. w: 4 *
 * num_layers * D pointers (weight_ih (3H, in_l), weight_hh (3H, H), bias_ih (3H), bias_hh (3H)
 * per layer and direction); workspace: cl1_rnn_workspace_bytes(d, 3) bytes. */
int cl1_op_gru(void *stream, const cl1_rnn_desc *d, const float *x, const float *h0,
               const float *const *w, float *y, float *hn, void *workspace,
               size_t workspace_bytes);

#ifdef __cplusplus
}
#endif
#endif
