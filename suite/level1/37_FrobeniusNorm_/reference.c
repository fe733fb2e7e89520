/* reference.c — level1/37_FrobeniusNorm_: y = x / torch.norm(x, p='fro'), one scalar norm over
 * the WHOLE tensor (batch included): a normalize over (1, numel, 1). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 0 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (y->ndim != x->ndim || x->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  for (int d = 0; d < x->ndim; d++)
    if (y->shape[d] != x->shape[d]) return 1;
  return cl1_op_normalize(call->stream, CL1_NORM_L2, (const float *)x->data, (float *)y->data, 1,
                          cl1_op_numel(x), 1, 0.0);
}
