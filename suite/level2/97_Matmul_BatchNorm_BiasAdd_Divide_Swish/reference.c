/* reference.c — level2/97_Matmul_BatchNorm_BiasAdd_Divide_Swish, PyTorch eager order:
 * t = linear(x, W, b) into a scratch tensor, y = batch_norm(t) (training mode: batch
 * statistics) into the output, then in place: y + bias (a one-element parameter, broadcast),
 * y / divide_value (a multiply by the reciprocal, as ATen does for a Python scalar), and swish as
 * written: t = sigmoid(y) into the scratch tensor, y = y * t. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *tmp;  // (batch, out_features): the Linear output, later torch.sigmoid(x)
} state97;

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  if (call->n_outputs != 1) return 1;
  state97 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->tmp = cl1_op_alloc((size_t)cl1_op_numel(&call->outputs[0]) * sizeof(float));
  if (!s->tmp) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state97 *s = state;
  if (!s) return;
  cl1_op_free(s->tmp);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1 || !call->state)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *g = &call->params[2], *be = &call->params[3], *bias = &call->params[4],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || g->ndim != 1 || be->ndim != 1 ||
      bias->ndim != 1 || y->ndim != 2)
    return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || g->shape[0] != N || be->shape[0] != N ||
      bias->shape[0] != 1 || y->shape[0] != M || y->shape[1] != N)
    return 1;
  double eps, divv;
  if (cl1_op_attr(call, "bn_eps", &eps) || cl1_op_attr(call, "divide_value", &divv) || divv == 0)
    return 1;
  const state97 *s = call->state;
  float *out = (float *)y->data;
  int64_t n = M * N;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, s->tmp, M, N, K);
  if (!rc)
    rc = cl1_op_batchnorm_train(call->stream, s->tmp, (const float *)g->data,
                                (const float *)be->data, out, M, N, 1, eps);
  if (!rc) rc = cl1_op_bias_add(call->stream, out, (const float *)bias->data, out, n, 1, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, n, 1.0 / divv, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, out, s->tmp, n, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, out, s->tmp, out, n);
  return rc;
}
