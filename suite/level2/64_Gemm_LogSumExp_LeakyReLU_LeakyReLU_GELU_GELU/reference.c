/* reference.c — level2/64_Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU, PyTorch eager order:
 * t = linear(x, W, b) into scratch, y = logsumexp(t, dim=1) into the output, then
 * leaky_relu, leaky_relu, gelu, gelu in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state64; /* t: (M, N) */

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
  state64 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state64 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const state64 *s = call->state;
  double slope;
  if (!s || dims_of(call, &M, &N, &K) || cl1_op_attr(call, "negative_slope", &slope)) return 1;
  float *y = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->t, M, N, K);
  if (!rc) rc = cl1_op_logsumexp(call->stream, s->t, y, M, N, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_LEAKY_RELU, y, y, M, slope, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_LEAKY_RELU, y, y, M, slope, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, y, y, M, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, y, y, M, 0, 0);
  return rc;
}
