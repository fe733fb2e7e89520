/* reference.c — level2/80_Gemm_Max_Subtract_GELU, PyTorch eager order: g = linear(x, W, b) into
 * an intermediate, y = max(g, dim 1, keepdim) into the output, m = mean(y, dim 1, keepdim) into
 * an intermediate, y = y - m, y = gelu(y) in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *gemm; /* (M, N) */
  float *mean; /* (M, 1) */
} ref_state;

static int ref_shapes(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 2) return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || b->shape[0] != *N || y->shape[0] != *M || y->shape[1] != 1) return 1;
  double max_dim;
  if (cl1_op_attr(call, "max_dim", &max_dim) || max_dim != 1) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  if (ref_shapes(call, &M, &N, &K)) return 1;
  ref_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->gemm = cl1_op_alloc((size_t)(M * N) * sizeof(float) + 4);
  s->mean = cl1_op_alloc((size_t)M * sizeof(float) + 4);
  if (!s->gemm || !s->mean) {
    cl1_op_free(s->gemm), cl1_op_free(s->mean), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *s = state;
  if (!s) return;
  cl1_op_free(s->gemm);
  cl1_op_free(s->mean);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const ref_state *s = call->state;
  if (!s || ref_shapes(call, &M, &N, &K)) return 1;
  void *st = call->stream;
  float *out = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(st, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->gemm, M, N, K);
  if (!rc) rc = cl1_op_reduce(st, CL1_REDUCE_MAX, s->gemm, out, M, N, 1);
  if (!rc) rc = cl1_op_reduce(st, CL1_REDUCE_MEAN, out, s->mean, M, 1, 1);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_SUB, out, s->mean, out, M);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_GELU, out, out, M, 0, 0);
  return rc;
}
