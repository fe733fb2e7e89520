/* reference.c — level3/35_LSTM, 36_LSTMHn, 37_LSTMCn and 38_LSTMBidirectional (their task.json
 * names this file), PyTorch eager order: out, (h_n, c_n) = lstm(x, (h0, c0)) as one cl1_op_lstm
 * call (nn.LSTM is one cuDNN call in PyTorch), then fc(out[:, -1, :]) on the strided view with
 * cl1_op_linear with ldx (computed and discarded where the task returns a state, as the module
 * does). attrs: num_layers, bidirectional (0/1), returns (OUT_FC, OUT_HN or OUT_CN). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define OUT_FC 0 /* returns fc(out[:, -1, :]) */
#define OUT_HN 1 /* returns state[0] */
#define OUT_CN 2 /* returns state[1] */

typedef struct {
  cl1_rnn_desc d;
  void *ws;          // cl1_rnn_workspace_bytes(d, 4)
  size_t ws_bytes;
  float *out;        // (B, T, D*H): the last layer's output
  float *fc;         // (B, O): fc's result where the task returns a state instead
  int returns;       // attr "returns": OUT_FC, OUT_HN or OUT_CN
  const float **w;   // 4 * L * D parameter pointers, filled per call
} state_lstm;

/* Checks the attrs and every shape against x (B, T, I), h0/c0 (L*D, B, H), the 4*L*D LSTM
 * parameters and fc (O, D*H) + (O); fills *d, *O and *returns. 0 when consistent. */
static int shapes(const cl1_call *c, cl1_rnn_desc *d, int64_t *O, int *returns) {
  double L, bi, ret;
  if (cl1_op_attr(c, "num_layers", &L) || cl1_op_attr(c, "bidirectional", &bi) ||
      cl1_op_attr(c, "returns", &ret))
    return 1;
  if (L < 1 || (bi != 0 && bi != 1) || (ret != OUT_FC && ret != OUT_HN && ret != OUT_CN)) return 1;
  *returns = (int)ret;
  const int64_t D = bi ? 2 : 1;
  if (c->n_inputs != 3 || c->n_params != 4 * (int64_t)L * D + 2) return 1;
  const cl1_tensor *x = &c->inputs[0];
  if (x->ndim != 3) return 1;
  *d = (cl1_rnn_desc){.seq_len = x->shape[1], .batch = x->shape[0], .input_size = x->shape[2],
                      .hidden_size = c->inputs[1].shape[2], .num_layers = (int64_t)L,
                      .bidirectional = (int)bi, .batch_first = 1};
  const int64_t H = d->hidden_size, B = d->batch;
  for (int i = 1; i < 3; i++) {
    const cl1_tensor *s = &c->inputs[i];
    if (s->ndim != 3 || s->shape[0] != d->num_layers * D || s->shape[1] != B || s->shape[2] != H)
      return 1;
  }
  for (int64_t l = 0; l < d->num_layers; l++)
    for (int64_t k = 0; k < D; k++) {
      const cl1_tensor *p = &c->params[4 * (l * D + k)];
      const int64_t in = l == 0 ? d->input_size : D * H;
      if (p[0].ndim != 2 || p[0].shape[0] != 4 * H || p[0].shape[1] != in) return 1;
      if (p[1].ndim != 2 || p[1].shape[0] != 4 * H || p[1].shape[1] != H) return 1;
      if (p[2].ndim != 1 || p[2].shape[0] != 4 * H || p[3].ndim != 1 || p[3].shape[0] != 4 * H)
        return 1;
    }
  const cl1_tensor *fw = &c->params[c->n_params - 2], *fb = &c->params[c->n_params - 1];
  *O = fw->shape[0];
  if (fw->ndim != 2 || fw->shape[1] != D * H || fb->ndim != 1 || fb->shape[0] != *O) return 1;
  return cl1_rnn_desc_bad(d);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_rnn_desc d;
  int64_t O;
  int returns;
  if (shapes(call, &d, &O, &returns)) return 1;
  const int64_t D = d.bidirectional ? 2 : 1;
  state_lstm *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->d = d;
  s->returns = returns;
  s->ws_bytes = cl1_rnn_workspace_bytes(&d, CL1_RNN_LSTM_GATES);
  s->ws = cl1_op_alloc(s->ws_bytes);
  s->out = cl1_op_alloc((size_t)(d.batch * d.seq_len * D * d.hidden_size) * sizeof(float));
  s->fc = returns == OUT_FC ? NULL : cl1_op_alloc((size_t)(d.batch * O) * sizeof(float));
  s->w = calloc((size_t)(4 * d.num_layers * D), sizeof *s->w);
  if (!s->ws || !s->out || (returns != OUT_FC && !s->fc) || !s->w) {
    cl1_op_free(s->ws), cl1_op_free(s->out), cl1_op_free(s->fc), free(s->w), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state_lstm *s = state;
  if (!s) return;
  cl1_op_free(s->ws);
  cl1_op_free(s->out);
  cl1_op_free(s->fc);
  free(s->w);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_rnn_desc d;
  int64_t O;
  int returns;
  if (shapes(call, &d, &O, &returns) || call->n_outputs != 1 || !call->state) return 1;
  state_lstm *s = call->state;
  const int64_t D = d.bidirectional ? 2 : 1, T = d.seq_len, B = d.batch, DH = D * d.hidden_size;
  if (memcmp(&d, &s->d, sizeof d) || returns != s->returns) return 1;  // not what was set up for
  const cl1_tensor *y = &call->outputs[0];
  if (returns == OUT_FC) {
    if (y->ndim != 2 || y->shape[0] != B || y->shape[1] != O) return 1;
  } else if (y->ndim != 3 || y->shape[0] != d.num_layers * D || y->shape[1] != B ||
             y->shape[2] != d.hidden_size) {
    return 1;
  }
  for (int64_t i = 0; i < 4 * d.num_layers * D; i++) s->w[i] = call->params[i].data;
  float *hn = returns == OUT_HN ? y->data : NULL, *cn = returns == OUT_CN ? y->data : NULL;
  int rc = cl1_op_lstm(call->stream, &d, call->inputs[0].data, call->inputs[1].data,
                       call->inputs[2].data, s->w, s->out, hn, cn, s->ws, s->ws_bytes);
  float *fc = returns == OUT_FC ? y->data : s->fc;
  if (!rc)  // out[:, -1, :]: row b at out + (b*T + T-1) * D*H
    rc = cl1_op_linear(call->stream, s->out + (T - 1) * DH, T * DH,
                            call->params[call->n_params - 2].data,
                            call->params[call->n_params - 1].data, fc, B, O, DH);
  return rc;
}
