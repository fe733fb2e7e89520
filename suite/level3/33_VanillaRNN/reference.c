/* reference.c — level3/33_VanillaRNN, PyTorch eager order: combined = cat(x, initial_hidden,
 * dim=1) (two cl1_op_cat_part calls), hidden = i2h(combined), hidden = tanh(hidden) in place,
 * y = h2o(hidden) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *combined;  // (B, I + H)
  float *hidden;    // (B, H)
} state33;

/* Shapes: x (B, I), h (B, H), i2h.weight (H, I + H), i2h.bias (H), h2o.weight (O, H),
 * h2o.bias (O); 0 when consistent. */
static int shapes(const cl1_call *c, int64_t *B, int64_t *I, int64_t *H, int64_t *O) {
  if (c->n_inputs != 2 || c->n_params != 4) return 1;
  const cl1_tensor *x = &c->inputs[0], *h = &c->inputs[1], *w1 = &c->params[0],
                   *b1 = &c->params[1], *w2 = &c->params[2], *b2 = &c->params[3];
  if (x->ndim != 2 || h->ndim != 2 || w1->ndim != 2 || b1->ndim != 1 || w2->ndim != 2 ||
      b2->ndim != 1)
    return 1;
  *B = x->shape[0], *I = x->shape[1], *H = h->shape[1], *O = w2->shape[0];
  if (h->shape[0] != *B || w1->shape[0] != *H || w1->shape[1] != *I + *H || b1->shape[0] != *H ||
      w2->shape[1] != *H || b2->shape[0] != *O)
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t B, I, H, O;
  if (shapes(call, &B, &I, &H, &O)) return 1;
  state33 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->combined = cl1_op_alloc((size_t)(B * (I + H)) * sizeof(float));
  s->hidden = cl1_op_alloc((size_t)(B * H) * sizeof(float));
  if (!s->combined || !s->hidden) {
    cl1_op_free(s->combined), cl1_op_free(s->hidden), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state33 *s = state;
  if (!s) return;
  cl1_op_free(s->combined);
  cl1_op_free(s->hidden);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t B, I, H, O;
  if (shapes(call, &B, &I, &H, &O) || call->n_outputs != 1 || !call->state) return 1;
  const cl1_tensor *y = &call->outputs[0];
  if (y->ndim != 2 || y->shape[0] != B || y->shape[1] != O) return 1;
  const state33 *s = call->state;
  void *st = call->stream;
  const float *const *p = (const float *const[]){call->params[0].data, call->params[1].data,
                                                 call->params[2].data, call->params[3].data};
  int rc = cl1_op_cat_part(st, call->inputs[0].data, s->combined, B, I, I + H, 0);
  if (!rc) rc = cl1_op_cat_part(st, call->inputs[1].data, s->combined, B, H, I + H, I);
  if (!rc) rc = cl1_op_linear(st, s->combined, p[0], p[1], s->hidden, B, H, I + H);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_TANH, s->hidden, s->hidden, B * H, 0, 0);
  if (!rc) rc = cl1_op_linear(st, s->hidden, p[2], p[3], y->data, B, O, H);
  return rc;
}
