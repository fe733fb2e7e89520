/* reference.c — level1/30_Softsign: y = x / (1 + |x|), as KernelBench writes it: three PyTorch ops
 * (abs, add of the scalar 1, div), so three op-library calls, all but the first in place in y. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  int64_t n = cl1_op_numel(x);
  if (n != cl1_op_numel(y)) return 1;
  const float *xd = (const float *)x->data;
  float *yd = (float *)y->data;
  int rc = cl1_op_unary(call->stream, CL1_UNARY_ABS, xd, yd, n, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_ADD_SCALAR, yd, yd, n, 1.0, 0);
  return rc ? rc : cl1_op_binary(call->stream, CL1_BINARY_DIV, xd, yd, yd, n);
}
