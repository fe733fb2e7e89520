/* reference.c — level2/14_Gemm_Divide_Sum_Scaling, PyTorch eager order: t = x @ W^T into a
 * scratch (batch, hidden) tensor, t = t / divisor in place, y = sum(t, dim=1, keepdim) into the
 * output, y = y * scaling_factor in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *gemm;  // (batch, hidden): x @ W^T, then halved
} state14;

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  if (call->n_inputs != 1 || call->n_params != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0];
  if (x->ndim != 2 || W->ndim != 2) return 1;
  state14 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->gemm = cl1_op_alloc((size_t)(x->shape[0] * W->shape[0]) * sizeof(float));
  if (!s->gemm) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state14 *s = state;
  if (!s) return;
  cl1_op_free(s->gemm);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 1 || call->n_outputs != 1 || !call->state)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || y->ndim != 2) return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || y->shape[0] != M || y->shape[1] != 1) return 1;
  double div, scale;
  if (cl1_op_attr(call, "divisor", &div) || cl1_op_attr(call, "scaling_factor", &scale))
    return 1;
  if (div == 0) return 1;
  const state14 *s = call->state;
  float *out = (float *)y->data;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data, NULL,
                         s->gemm, M, N, K);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, s->gemm, s->gemm, M * N,
                             1.0 / div, 0);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_SUM, s->gemm, out, M, N, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, M, scale, 0);
  return rc;
}
