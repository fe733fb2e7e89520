/* reference.c — level1/39_L2Norm_: y = x / torch.norm(x, p=2, dim=1, keepdim=True) for x of
 * (batch, dim), no epsilon. One fused op for the eager norm / divide pair. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 0 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->ndim != 2 || y->ndim != 2 || x->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  if (y->shape[0] != x->shape[0] || y->shape[1] != x->shape[1]) return 1;
  return cl1_op_normalize(call->stream, CL1_NORM_L2, (const float *)x->data, (float *)y->data,
                          x->shape[0], x->shape[1], 1, 0.0);
}
