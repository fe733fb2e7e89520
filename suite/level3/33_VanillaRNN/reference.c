/* reference.c — level3/33_VanillaRNN and 34_VanillaRNNHidden (its task.json names this file),
 * PyTorch eager order per time step t: combined = cat(x[t], hidden, dim=1) (two cl1_cat_part
 * calls), hidden = i2h(combined), hidden = tanh(hidden) in place, out_t = h2o(hidden). attr
 * sequence 0 (task 33): one step on x (B, I) from initial_hidden, out_0 is y itself; attr
 * sequence 1 (task 34): x (T, B, I) from h0, out_t into slice t of a scratch, then
 * torch.stack(outputs, dim=0) as one cl1_cat_part copy per step. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *combined;  // (B, I + H)
  float *hidden;    // (B, H)
  float *outs;      // (T, B, O): the per-step h2o outputs before the stack; NULL for one step
  int sequence;     // attr "sequence"
} state_rnn;

/* Checks attr sequence and the shapes: x (T, B, I) with sequence 1 or (B, I) with sequence 0
 * (then T = 1), h (B, H), i2h.weight (H, I + H), i2h.bias (H), h2o.weight (O, H), h2o.bias (O);
 * 0 when consistent. */
static int shapes(const cl1_call *c, int *seq, int64_t *T, int64_t *B, int64_t *I, int64_t *H,
                  int64_t *O) {
  double sq;
  if (cl1_op_attr(c, "sequence", &sq) || (sq != 0 && sq != 1)) return 1;
  *seq = (int)sq;
  if (c->n_inputs != 2 || c->n_params != 4) return 1;
  const cl1_tensor *x = &c->inputs[0], *h = &c->inputs[1], *w1 = &c->params[0],
                   *b1 = &c->params[1], *w2 = &c->params[2], *b2 = &c->params[3];
  if (x->ndim != 2 + *seq || h->ndim != 2 || w1->ndim != 2 || b1->ndim != 1 || w2->ndim != 2 ||
      b2->ndim != 1)
    return 1;
  *T = *seq ? x->shape[0] : 1, *B = x->shape[*seq], *I = x->shape[*seq + 1];
  *H = h->shape[1], *O = w2->shape[0];
  if (h->shape[0] != *B || w1->shape[0] != *H || w1->shape[1] != *I + *H || b1->shape[0] != *H ||
      w2->shape[1] != *H || b2->shape[0] != *O)
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int seq;
  int64_t T, B, I, H, O;
  if (shapes(call, &seq, &T, &B, &I, &H, &O)) return 1;
  state_rnn *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->sequence = seq;
  s->combined = cl1_op_alloc((size_t)(B * (I + H)) * sizeof(float));
  s->hidden = cl1_op_alloc((size_t)(B * H) * sizeof(float));
  s->outs = seq ? cl1_op_alloc((size_t)(T * B * O) * sizeof(float)) : NULL;
  if (!s->combined || !s->hidden || (seq && !s->outs)) {
    cl1_op_free(s->combined), cl1_op_free(s->hidden), cl1_op_free(s->outs), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state_rnn *s = state;
  if (!s) return;
  cl1_op_free(s->combined);
  cl1_op_free(s->hidden);
  cl1_op_free(s->outs);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int seq;
  int64_t T, B, I, H, O;
  if (shapes(call, &seq, &T, &B, &I, &H, &O) || call->n_outputs != 1 || !call->state) return 1;
  const state_rnn *s = call->state;
  if (seq != s->sequence) return 1;  // not what was set up for
  const cl1_tensor *y = &call->outputs[0];
  if (y->ndim != 2 + seq || (seq && y->shape[0] != T) || y->shape[seq] != B ||
      y->shape[seq + 1] != O)
    return 1;
  void *st = call->stream;
  const float *x = call->inputs[0].data, *w1 = call->params[0].data, *b1 = call->params[1].data,
              *w2 = call->params[2].data, *b2 = call->params[3].data;
  int rc = 0;
  for (int64_t t = 0; t < T && !rc; t++) {
    const float *hprev = t == 0 ? (const float *)call->inputs[1].data : s->hidden;
    float *out_t = seq ? s->outs + t * B * O : y->data;
    rc = cl1_cat_part(st, x + t * B * I, s->combined, B, I, I + H, 0);
    if (!rc) rc = cl1_cat_part(st, hprev, s->combined, B, H, I + H, I);
    if (!rc) rc = cl1_op_linear(st, s->combined, 0, w1, b1, s->hidden, B, H, I + H);
    if (!rc) rc = cl1_op_unary(st, CL1_UNARY_TANH, s->hidden, s->hidden, B * H, 0, 0);
    if (!rc) rc = cl1_op_linear(st, s->hidden, 0, w2, b2, out_t, B, O, H);
  }
  for (int64_t t = 0; seq && t < T && !rc; t++)  // torch.stack along a new dim 0
    rc = cl1_cat_part(st, s->outs + t * B * O, y->data, 1, B * O, T * B * O, t * B * O);
  return rc;
}
