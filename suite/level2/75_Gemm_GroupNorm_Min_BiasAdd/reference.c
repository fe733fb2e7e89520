/* reference.c — level2/75_Gemm_GroupNorm_Min_BiasAdd, PyTorch eager order: t = linear(x, W, b)
 * into scratch, t = group_norm(t) in place, m = min(t, 1) into scratch, y = m + bias with
 * y[0, c, b, 0] = m[b] + bias[c] (the broadcast of (B, 1) against (1, C, 1, 1)). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;  // (M, N)
  float *m;  // (M)
} state75;

static int dims_of(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *gw = &call->params[2], *gb = &call->params[3], *bias = &call->params[4],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || gw->ndim != 1 || gb->ndim != 1 ||
      bias->ndim != 4 || y->ndim != 4)
    return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || b->shape[0] != *N || gw->shape[0] != *N || gb->shape[0] != *N)
    return 1;
  if (bias->shape[0] != 1 || bias->shape[1] != *N || bias->shape[2] != 1 || bias->shape[3] != 1)
    return 1;
  if (y->shape[0] != 1 || y->shape[1] != *N || y->shape[2] != *M || y->shape[3] != 1) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  if (dims_of(call, &M, &N, &K)) return 1;
  state75 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  s->m = cl1_op_alloc((size_t)M * sizeof(float));
  if (!s->t || !s->m) {
    cl1_op_free(s->t), cl1_op_free(s->m), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state75 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->m);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const state75 *s = call->state;
  double groups, eps;
  if (!s || dims_of(call, &M, &N, &K) || cl1_op_attr(call, "num_groups", &groups) ||
      cl1_op_attr(call, "eps", &eps))
    return 1;
  int64_t g = (int64_t)groups;
  if (g < 1 || N % g) return 1;
  const cl1_tensor *p = call->params;
  const int64_t ydims[3] = {N, M, 1}, mrow[3] = {0, 1, 0}, bcol[3] = {1, 0, 0};
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)p[0].data, (const float *)p[1].data, s->t, M, N, K);
  if (!rc)
    rc = cl1_op_groupnorm(call->stream, s->t, (const float *)p[2].data, (const float *)p[3].data,
                          s->t, M, N, 1, g, eps);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MIN, s->t, s->m, M, N, 1);
  if (!rc)
    rc = cl1_op_binary_bcast(call->stream, CL1_BINARY_ADD, s->m, mrow, (const float *)p[4].data,
                             bcol, (float *)call->outputs[0].data, 3, ydims);
  return rc;
}
