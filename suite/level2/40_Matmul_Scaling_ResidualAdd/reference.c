/* reference.c — level2/40_Matmul_Scaling_ResidualAdd, PyTorch eager order: g = linear(x, W, b)
 * into the output, s = g * scaling_factor into an intermediate, y = s + g into the output (the
 * clone of g only copies values, so g itself is read). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *s; } ref_state; /* s: (batch_size, out_features) */

static int shapes(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
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
  double scale;
  if (cl1_op_attr(call, "scaling_factor", &scale)) return 1;
  float *g = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         g, M, N, K);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, g, st->s, M * N, scale, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_ADD, st->s, g, g, M * N);
  return rc;
}
