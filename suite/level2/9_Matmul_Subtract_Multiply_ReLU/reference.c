/* reference.c — level2/9_Matmul_Subtract_Multiply_ReLU, PyTorch eager order: y = linear(x, W, b)
 * into the output, then in place y = y - subtract_value, y = y * multiply_value, y = relu(y). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 2) return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || y->shape[0] != M || y->shape[1] != N) return 1;
  double sub, mul;
  if (cl1_op_attr(call, "subtract_value", &sub) || cl1_op_attr(call, "multiply_value", &mul))
    return 1;
  float *out = (float *)y->data;
  int64_t n = M * N;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, out, M, N, K);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_ADD_SCALAR, out, out, n, -sub, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, n, mul, 0);
  if (!rc) rc = cl1_op_relu(call->stream, out, out, n);
  return rc;
}
