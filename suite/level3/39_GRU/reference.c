/* reference.c — level3/39_GRU, 40_GRUHidden, 41_GRUBidirectional and 42_GRUBidirectionalHidden
 * (their task.json names this file), PyTorch eager order: output, h_n = gru(x, h0) as one
 * cl1_op_gru call (nn.GRU is one cuDNN call in PyTorch). attrs: num_layers, bidirectional (0/1),
 * returns (OUT_OUTPUT or OUT_HN). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define OUT_OUTPUT 0 /* returns output (T, B, D*H) */
#define OUT_HN 1     /* returns h_n (L*D, B, H) */

typedef struct {
  cl1_rnn_desc d;
  void *ws;          // cl1_rnn_workspace_bytes(d, 3)
  size_t ws_bytes;
  const float **w;   // 4 * L * D parameter pointers, filled per call
  int returns;       // attr "returns": OUT_OUTPUT or OUT_HN
} state_gru;

/* Checks the attrs and every shape against x (T, B, I), h0 (L*D, B, H) and the 4*L*D GRU
 * parameters; fills *d and *returns. 0 when consistent. */
static int shapes(const cl1_call *c, cl1_rnn_desc *d, int *returns) {
  double L, bi, ret;
  if (cl1_op_attr(c, "num_layers", &L) || cl1_op_attr(c, "bidirectional", &bi) ||
      cl1_op_attr(c, "returns", &ret))
    return 1;
  if (L < 1 || (bi != 0 && bi != 1) || (ret != OUT_OUTPUT && ret != OUT_HN)) return 1;
  *returns = (int)ret;
  const int64_t D = bi ? 2 : 1;
  if (c->n_inputs != 2 || c->n_params != 4 * (int64_t)L * D) return 1;
  const cl1_tensor *x = &c->inputs[0], *h0 = &c->inputs[1];
  if (x->ndim != 3 || h0->ndim != 3) return 1;
  *d = (cl1_rnn_desc){.seq_len = x->shape[0], .batch = x->shape[1], .input_size = x->shape[2],
                      .hidden_size = h0->shape[2], .num_layers = (int64_t)L,
                      .bidirectional = (int)bi, .batch_first = 0};
  const int64_t H = d->hidden_size;
  if (h0->shape[0] != d->num_layers * D || h0->shape[1] != d->batch) return 1;
  for (int64_t l = 0; l < d->num_layers; l++)
    for (int64_t k = 0; k < D; k++) {
      const cl1_tensor *p = &c->params[4 * (l * D + k)];
      const int64_t in = l == 0 ? d->input_size : D * H;
      if (p[0].ndim != 2 || p[0].shape[0] != 3 * H || p[0].shape[1] != in) return 1;
      if (p[1].ndim != 2 || p[1].shape[0] != 3 * H || p[1].shape[1] != H) return 1;
      if (p[2].ndim != 1 || p[2].shape[0] != 3 * H || p[3].ndim != 1 || p[3].shape[0] != 3 * H)
        return 1;
    }
  return cl1_rnn_desc_bad(d);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_rnn_desc d;
  int returns;
  if (shapes(call, &d, &returns)) return 1;
  state_gru *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->d = d;
  s->returns = returns;
  s->ws_bytes = cl1_rnn_workspace_bytes(&d, CL1_RNN_GRU_GATES);
  s->ws = cl1_op_alloc(s->ws_bytes);
  s->w = calloc((size_t)(4 * d.num_layers * (d.bidirectional ? 2 : 1)), sizeof *s->w);
  if (!s->ws || !s->w) {
    cl1_op_free(s->ws), free(s->w), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state_gru *s = state;
  if (!s) return;
  cl1_op_free(s->ws);
  free(s->w);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_rnn_desc d;
  int returns;
  if (shapes(call, &d, &returns) || call->n_outputs != 1 || !call->state) return 1;
  state_gru *s = call->state;
  if (memcmp(&d, &s->d, sizeof d) || returns != s->returns) return 1;  // not what was set up for
  const int64_t D = d.bidirectional ? 2 : 1;
  const cl1_tensor *y = &call->outputs[0];
  if (returns == OUT_HN) {
    if (y->ndim != 3 || y->shape[0] != d.num_layers * D || y->shape[1] != d.batch ||
        y->shape[2] != d.hidden_size)
      return 1;
  } else if (y->ndim != 3 || y->shape[0] != d.seq_len || y->shape[1] != d.batch ||
             y->shape[2] != D * d.hidden_size) {
    return 1;
  }
  for (int64_t i = 0; i < 4 * d.num_layers * D; i++) s->w[i] = call->params[i].data;
  /* the layer output is computed either way (into op workspace when not returned) */
  float *out = returns == OUT_HN ? NULL : y->data, *hn = returns == OUT_HN ? y->data : NULL;
  return cl1_op_gru(call->stream, &d, call->inputs[0].data, call->inputs[1].data, s->w, out, hn,
                    s->ws, s->ws_bytes);
}
