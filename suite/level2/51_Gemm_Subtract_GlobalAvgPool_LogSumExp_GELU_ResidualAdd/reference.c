/* reference.c — level2/51_Gemm_Subtract_GlobalAvgPool_LogSumExp_GELU_ResidualAdd, PyTorch eager
 * order: t = linear(x, W, b) into scratch, t = t - subtract (broadcast over rows) in place,
 * m = mean(t, 1), l = logsumexp(m, 1), l = gelu(l) in place, y = l + x (broadcast over
 * columns). The clone of x is not made: x is never written, so reading it is the same. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;     // (M, N)
  float *m, *l; // (M)
} state51;

static int dims_of(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *sub = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || sub->ndim != 1 || y->ndim != 2) return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || b->shape[0] != *N || sub->shape[0] != *N || y->shape[0] != *M ||
      y->shape[1] != *K)
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  if (dims_of(call, &M, &N, &K)) return 1;
  state51 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  s->m = cl1_op_alloc((size_t)M * sizeof(float));
  s->l = cl1_op_alloc((size_t)M * sizeof(float));
  if (!s->t || !s->m || !s->l) {
    cl1_op_free(s->t), cl1_op_free(s->m), cl1_op_free(s->l), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state51 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->m);
  cl1_op_free(s->l);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const state51 *s = call->state;
  if (!s || dims_of(call, &M, &N, &K)) return 1;
  const float *x = (const float *)call->inputs[0].data;
  const int64_t tdims[3] = {1, M, N}, tcont[3] = {0, N, 1}, row[3] = {0, 0, 1};
  const int64_t ydims[3] = {M, K, 1}, lcol[3] = {1, 0, 0}, xcont[3] = {K, 1, 0};
  int rc = cl1_op_linear(call->stream, x, 0, (const float *)call->params[0].data,
                         (const float *)call->params[1].data, s->t, M, N, K);
  if (!rc)
    rc = cl1_op_binary_bcast(call->stream, CL1_BINARY_SUB, s->t, tcont,
                             (const float *)call->params[2].data, row, s->t, 3, tdims);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, s->t, s->m, M, N, 1);
  if (!rc) rc = cl1_op_logsumexp(call->stream, s->m, s->l, M, 1, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, s->l, s->l, M, 0, 0);
  if (!rc)
    rc = cl1_op_binary_bcast(call->stream, CL1_BINARY_ADD, s->l, lcol, x, xcont,
                             (float *)call->outputs[0].data, 3, ydims);
  return rc;
}
