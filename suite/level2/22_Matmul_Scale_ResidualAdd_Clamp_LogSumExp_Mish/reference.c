/* reference.c — level2/22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish, PyTorch eager order:
 * t = linear(x, W, b) into scratch, t = t * scale, t = t + t, t = clamp(t) in place,
 * y = logsumexp(t, 1), u = mish(y) into a scratch, y = y * u. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;  // (M, N)
  float *u;  // (M)
} state22;

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
  state22 *s = calloc(1, sizeof *s);
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
  state22 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->u);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const state22 *s = call->state;
  double scale, lo, hi;
  if (!s || dims_of(call, &M, &N, &K) || cl1_op_attr(call, "scale_factor", &scale) ||
      cl1_op_attr(call, "clamp_min", &lo) || cl1_op_attr(call, "clamp_max", &hi))
    return 1;
  float *y = (float *)call->outputs[0].data, *t = s->t;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         t, M, N, K);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, t, t, M * N, scale, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_ADD, t, t, t, M * N);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, t, t, M * N, lo, hi);
  if (!rc) rc = cl1_op_logsumexp(call->stream, t, y, M, N, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MISH, y, s->u, M, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, y, s->u, y, M);
  return rc;
}
