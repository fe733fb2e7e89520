/* reference.c — level1/88_MinGPTNewGelu: the explicit tanh-GELU chain, one fused op-library call
 * (the reference has no workspace for the eager intermediates). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->dtype != CL1_F32 || y->dtype != CL1_F32 || cl1_op_numel(x) != cl1_op_numel(y)) return 1;
  return cl1_op_gelu_tanh(call->stream, (const float *)x->data, (float *)y->data, cl1_op_numel(x));
}
