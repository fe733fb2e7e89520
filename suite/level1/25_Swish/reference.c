/* reference.c — level1/25_Swish: y = x * sigmoid(x), as KernelBench writes it: two PyTorch ops,
 * so two op-library calls (the sigmoid lands in y, then y = x * y in place). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  int64_t n = cl1_op_numel(x);
  if (n != cl1_op_numel(y)) return 1;
  const float *xd = (const float *)x->data;
  float *yd = (float *)y->data;
  int rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, xd, yd, n, 0, 0);
  return rc ? rc : cl1_op_binary(call->stream, CL1_BINARY_MUL, xd, yd, yd, n);
}
