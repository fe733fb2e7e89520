/* reference.c — level2/56_Matmul_Sigmoid_Sum, PyTorch eager order: h = linear(x, W, b) into an
 * intermediate, h = sigmoid(h) in place, y = sum(h, dim=1) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *h; } state56; /* h: (M, N) */

static int shapes_ok(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 0;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 2) return 0;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  return W->shape[1] == *K && b->shape[0] == *N && y->shape[0] == *M && y->shape[1] == 1;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  if (!shapes_ok(call, &M, &N, &K)) return 1;
  state56 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->h = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  if (!s->h) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state56 *s = state;
  if (!s) return;
  cl1_op_free(s->h);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const state56 *s = call->state;
  if (!s || !shapes_ok(call, &M, &N, &K)) return 1;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->h, M, N, K);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, s->h, s->h, M * N, 0, 0);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_SUM, s->h, call->outputs[0].data, M, N, 1);
  return rc;
}
