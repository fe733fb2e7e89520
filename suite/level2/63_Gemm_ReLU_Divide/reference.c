/* reference.c — level2/63_Gemm_ReLU_Divide, PyTorch eager order: y = linear(x, W, b) into the
 * output, y = relu(y) in place, y = y / divisor in place (as y * (1/divisor): exact for the
 * task's divisor 2.0). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 2) return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || y->shape[0] != M || y->shape[1] != N) return 1;
  double divisor;
  if (cl1_op_attr(call, "divisor", &divisor) || divisor == 0) return 1;
  float *out = (float *)y->data;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, out, M, N, K);
  if (!rc) rc = cl1_op_relu(call->stream, out, out, M * N);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, M * N, 1.0 / divisor, 0);
  return rc;
}
