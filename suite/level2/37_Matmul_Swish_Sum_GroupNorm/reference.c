/* reference.c — level2/37_Matmul_Swish_Sum_GroupNorm, PyTorch eager order: g = linear(x, W, b)
 * into the output, s = sigmoid(g) into an intermediate, s = s * g and s = s + bias in place,
 * y = group_norm(s) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *s; } ref_state; /* s: (batch_size, out_features) */

static int shapes(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || y->ndim != 2) return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || y->shape[0] != *M || y->shape[1] != *N) return 1;
  for (int i = 1; i < 5; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != *N) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  if (shapes(call, &M, &N, &K)) return 1;
  ref_state *st = malloc(sizeof *st);
  if (!st) return 1;
  st->s = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  if (!st->s) return free(st), 1;
  *state = st;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *st = state;
  if (!st) return;
  cl1_op_free(st->s);
  free(st);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  if (shapes(call, &M, &N, &K) || !call->state) return 1;
  const ref_state *st = call->state;
  double groups, eps;
  if (cl1_op_attr(call, "num_groups", &groups) || cl1_op_attr(call, "eps", &eps)) return 1;
  if (groups < 1 || N % (int64_t)groups) return 1;
  float *g = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         g, M, N, K);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, g, st->s, M * N, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, st->s, g, st->s, M * N);
  if (!rc)
    rc = cl1_op_bias_add(call->stream, st->s, (const float *)call->params[2].data, st->s, M, N, 1);
  if (!rc)
    rc = cl1_op_groupnorm(call->stream, st->s, (const float *)call->params[3].data,
                          (const float *)call->params[4].data, g, M, N, 1, (int64_t)groups, eps);
  return rc;
}
