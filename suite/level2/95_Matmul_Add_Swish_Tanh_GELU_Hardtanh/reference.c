/* reference.c — level2/95_Matmul_Add_Swish_Tanh_GELU_Hardtanh, PyTorch eager order:
 * y = linear(x, W, b) into the output, y = y + add_value (per feature) in place,
 * swish as written, t = sigmoid(y) into a scratch tensor then y = t * y, then tanh, exact
 * GELU and hardtanh(-1, 1) in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *sig;  // (batch, out_features): torch.sigmoid(x), a temporary in eager PyTorch
} state95;

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  if (call->n_outputs != 1) return 1;
  state95 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->sig = cl1_op_alloc((size_t)cl1_op_numel(&call->outputs[0]) * sizeof(float));
  if (!s->sig) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state95 *s = state;
  if (!s) return;
  cl1_op_free(s->sig);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1 || !call->state)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *add = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || add->ndim != 1 || y->ndim != 2) return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || add->shape[0] != N || y->shape[0] != M ||
      y->shape[1] != N)
    return 1;
  const state95 *s = call->state;
  float *out = (float *)y->data;
  int64_t n = M * N;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, out, M, N, K);
  if (!rc) rc = cl1_op_bias_add(call->stream, out, (const float *)add->data, out, M, N, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, out, s->sig, n, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, s->sig, out, out, n);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, out, out, n, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, out, out, n, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, n, -1.0, 1.0);
  return rc;
}
