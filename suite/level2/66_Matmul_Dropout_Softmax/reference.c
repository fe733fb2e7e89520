/* reference.c — level2/66_Matmul_Dropout_Softmax, PyTorch eager order: t = linear(x, W, b)
 * into scratch; dropout in eval mode is the identity (no call); y = softmax(t, dim=1). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state66; /* t: (M, N) */

static int dims_of(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 2) return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || b->shape[0] != *N || y->shape[0] != *M || y->shape[1] != *N) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  if (dims_of(call, &M, &N, &K)) return 1;
  state66 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state66 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const state66 *s = call->state;
  if (!s || dims_of(call, &M, &N, &K)) return 1;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->t, M, N, K);
  if (!rc) rc = cl1_op_softmax(call->stream, s->t, (float *)call->outputs[0].data, M, N);
  return rc;
}
