/* reference.c — level2/29_Matmul_Mish_Mish, PyTorch eager order: y = linear(x, W, b) into the
 * output, then twice mish(y) = y * tanh(softplus(y)): softplus into an intermediate, tanh in
 * place there, the product back into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state29; /* t: like y, (M, N) */

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
  state29 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(M * N > 0 ? M * N : 1) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state29 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

static int mish(void *stream, float *y, float *t, int64_t n) {
  int rc = cl1_op_unary(stream, CL1_UNARY_SOFTPLUS, y, t, n, 1.0, 20.0);
  if (!rc) rc = cl1_op_unary(stream, CL1_UNARY_TANH, t, t, n, 0, 0);
  if (!rc) rc = cl1_op_binary(stream, CL1_BINARY_MUL, y, t, y, n);
  return rc;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const state29 *s = call->state;
  if (!s || dims_of(call, &M, &N, &K)) return 1;
  float *out = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         out, M, N, K);
  if (!rc) rc = mish(call->stream, out, s->t, M * N);
  if (!rc) rc = mish(call->stream, out, s->t, M * N);
  return rc;
}
