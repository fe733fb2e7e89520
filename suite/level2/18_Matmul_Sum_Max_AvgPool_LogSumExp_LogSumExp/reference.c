/* reference.c — level2/18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp, PyTorch eager order:
 * t = linear(x, W, b) into scratch, y = sum(t, 1), u = max(y, 1), y = mean(u, 1),
 * u = logsumexp(y, 1), y = logsumexp(u, 1): the reductions after the sum run over a size-1 dim
 * and ping-pong between the output and the scratch u. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;  // (M, N)
  float *u;  // (M)
} state18;

static int dims_of(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 2) return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || b->shape[0] != *N || y->shape[0] != *M || y->shape[1] != 1) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  if (dims_of(call, &M, &N, &K)) return 1;
  state18 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  s->u = cl1_op_alloc((size_t)M * sizeof(float));
  if (!s->t || !s->u) {
    cl1_op_free(s->t), cl1_op_free(s->u), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state18 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->u);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const state18 *s = call->state;
  if (!s || dims_of(call, &M, &N, &K)) return 1;
  float *y = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->t, M, N, K);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_SUM, s->t, y, M, N, 1);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MAX, y, s->u, M, 1, 1);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, s->u, y, M, 1, 1);
  if (!rc) rc = cl1_op_logsumexp(call->stream, y, s->u, M, 1, 1);
  if (!rc) rc = cl1_op_logsumexp(call->stream, s->u, y, M, 1, 1);
  return rc;
}
