/* reference.c — level2/88_Gemm_GroupNorm_Swish_Multiply_Swish, PyTorch eager order:
 * g = linear(x, W, b) into an intermediate, y = group_norm(g) into the output, s = sigmoid(y)
 * into the intermediate, y = y * s, y = y * multiply_weight (per feature), s = sigmoid(y),
 * y = y * s. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *tmp; /* (M, N): the GEMM result, then each sigmoid */
} ref_state;

static int ref_shapes(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K, int64_t *G,
                      double *eps) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || y->ndim != 2) return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || y->shape[0] != *M || y->shape[1] != *N) return 1;
  for (int i = 1; i < 5; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != *N) return 1;
  double g;
  if (cl1_op_attr(call, "num_groups", &g) || cl1_op_attr(call, "eps", eps)) return 1;
  *G = (int64_t)g;
  if (*G < 1 || *N % *G) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K, G;
  double eps;
  if (ref_shapes(call, &M, &N, &K, &G, &eps)) return 1;
  ref_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->tmp = cl1_op_alloc((size_t)(M * N) * sizeof(float) + 4);
  if (!s->tmp) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *s = state;
  if (!s) return;
  cl1_op_free(s->tmp);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K, G;
  double eps;
  const ref_state *s = call->state;
  if (!s || ref_shapes(call, &M, &N, &K, &G, &eps)) return 1;
  void *st = call->stream;
  const float *p[5];
  for (int i = 0; i < 5; i++) p[i] = (const float *)call->params[i].data;
  float *out = (float *)call->outputs[0].data;
  int64_t n = M * N;
  int rc = cl1_op_linear(st, (const float *)call->inputs[0].data, 0, p[0], p[1], s->tmp, M, N, K);
  if (!rc) rc = cl1_op_groupnorm(st, s->tmp, p[2], p[3], out, M, N, 1, G, eps);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_SIGMOID, out, s->tmp, n, 0, 0);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_MUL, out, s->tmp, out, n);
  if (!rc) rc = cl1_op_mul_channel(st, out, p[4], out, M, N, 1);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_SIGMOID, out, s->tmp, n, 0, 0);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_MUL, out, s->tmp, out, n);
  return rc;
}
