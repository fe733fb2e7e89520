/* reference.c — level2/94_Gemm_BiasAdd_Hardtanh_Mish_GroupNorm, PyTorch eager order:
 * y = linear(x, W, b) into the output, then in place + bias (per feature) and hardtanh(-1, 1);
 * t = mish(y) into a scratch tensor (nn.Mish: one fused op, as in PyTorch), then
 * y = group_norm(t) over the 2-D (batch, features) tensor. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *tmp;  // (batch, out_features): the mish result
} state94;

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  if (call->n_outputs != 1) return 1;
  state94 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->tmp = cl1_op_alloc((size_t)cl1_op_numel(&call->outputs[0]) * sizeof(float));
  if (!s->tmp) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state94 *s = state;
  if (!s) return;
  cl1_op_free(s->tmp);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1 || !call->state)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *bias = &call->params[2], *g = &call->params[3], *be = &call->params[4],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || bias->ndim != 1 || g->ndim != 1 ||
      be->ndim != 1 || y->ndim != 2)
    return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || bias->shape[0] != N || g->shape[0] != N ||
      be->shape[0] != N || y->shape[0] != M || y->shape[1] != N)
    return 1;
  double groups, eps;
  if (cl1_op_attr(call, "num_groups", &groups) || cl1_op_attr(call, "eps", &eps)) return 1;
  int64_t G = (int64_t)groups;
  if (G < 1 || N % G) return 1;
  const state94 *s = call->state;
  float *out = (float *)y->data;
  int64_t n = M * N;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, out, M, N, K);
  if (!rc) rc = cl1_op_bias_add(call->stream, out, (const float *)bias->data, out, M, N, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, n, -1.0, 1.0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MISH, out, s->tmp, n, 0, 0);
  if (!rc)
    rc = cl1_op_groupnorm(call->stream, s->tmp, (const float *)g->data, (const float *)be->data,
                          out, M, N, 1, G, eps);
  return rc;
}
