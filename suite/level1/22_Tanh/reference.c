/* reference.c — level1/22_Tanh: y = tanh(x), one op-library call. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (cl1_op_numel(x) != cl1_op_numel(y)) return 1;
  return cl1_op_unary(call->stream, CL1_UNARY_TANH, (const float *)x->data, (float *)y->data,
                      cl1_op_numel(x), 0, 0);
}
