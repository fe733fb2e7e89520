/* reference.c — level2/59_Matmul_Swish_Scaling, PyTorch eager order: y = linear(x, W, b) into
 * the output, s = sigmoid(y) into an intermediate, y = y * s, y *= scaling_factor in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *sig; } state59; /* sig: (M, N) */

static int shapes_ok(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 0;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 2) return 0;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  return W->shape[1] == *K && b->shape[0] == *N && y->shape[0] == *M && y->shape[1] == *N;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  if (!shapes_ok(call, &M, &N, &K)) return 1;
  state59 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->sig = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  if (!s->sig) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state59 *s = state;
  if (!s) return;
  cl1_op_free(s->sig);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const state59 *s = call->state;
  if (!s || !shapes_ok(call, &M, &N, &K)) return 1;
  double scale;
  if (cl1_op_attr(call, "scaling_factor", &scale)) return 1;
  float *out = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         out, M, N, K);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, out, s->sig, M * N, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, out, s->sig, out, M * N);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, M * N, scale, 0);
  return rc;
}
