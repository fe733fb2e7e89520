/* reference.c — level2/45_Gemm_Sigmoid_LogSumExp, PyTorch eager order: h = linear1(x) into
 * scratch, sigmoid in place, t = linear2(h) into a second scratch, y = logsumexp(t, dim=1). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *h;  // (B, H)
  float *t;  // (B, O)
} state45;

static int dims_of(const cl1_call *call, int64_t *B, int64_t *I, int64_t *H, int64_t *O) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W1 = &call->params[0], *b1 = &call->params[1],
                   *W2 = &call->params[2], *b2 = &call->params[3], *y = &call->outputs[0];
  if (x->ndim != 2 || W1->ndim != 2 || b1->ndim != 1 || W2->ndim != 2 || b2->ndim != 1 ||
      y->ndim != 1)
    return 1;
  *B = x->shape[0], *I = x->shape[1], *H = W1->shape[0], *O = W2->shape[0];
  if (W1->shape[1] != *I || b1->shape[0] != *H || W2->shape[1] != *H || b2->shape[0] != *O ||
      y->shape[0] != *B)
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t B, I, H, O;
  if (dims_of(call, &B, &I, &H, &O)) return 1;
  state45 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->h = cl1_op_alloc((size_t)(B * H) * sizeof(float));
  s->t = cl1_op_alloc((size_t)(B * O) * sizeof(float));
  if (!s->h || !s->t) {
    cl1_op_free(s->h), cl1_op_free(s->t), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state45 *s = state;
  if (!s) return;
  cl1_op_free(s->h);
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t B, I, H, O;
  const state45 *s = call->state;
  if (!s || dims_of(call, &B, &I, &H, &O)) return 1;
  const cl1_tensor *p = call->params;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)p[0].data, (const float *)p[1].data, s->h, B, H, I);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, s->h, s->h, B * H, 0, 0);
  if (!rc)
    rc = cl1_op_linear(call->stream, s->h, 0, (const float *)p[2].data, (const float *)p[3].data,
                       s->t, B, O, H);
  if (!rc) rc = cl1_op_logsumexp(call->stream, s->t, (float *)call->outputs[0].data, B, O, 1);
  return rc;
}
