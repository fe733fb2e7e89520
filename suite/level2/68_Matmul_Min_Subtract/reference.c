/* reference.c — level2/68_Matmul_Min_Subtract, PyTorch eager order: y = linear(x, W, b),
 * y = minimum(y, constant), y = y - constant in place; constant a 0-dim parameter broadcast
 * through stride 0. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *c = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || c->ndim != 0 || y->ndim != 2) return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || y->shape[0] != M || y->shape[1] != N) return 1;
  float *out = (float *)y->data;
  const float *cv = (const float *)c->data;
  const int64_t dims[3] = {1, M, N}, cont[3] = {0, N, 1}, zero[3] = {0, 0, 0};
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, out, M, N, K);
  if (!rc)
    rc = cl1_op_binary_bcast(call->stream, CL1_BINARY_MIN, out, cont, cv, zero, out, 3, dims);
  if (!rc)
    rc = cl1_op_binary_bcast(call->stream, CL1_BINARY_SUB, out, cont, cv, zero, out, 3, dims);
  return rc;
}
