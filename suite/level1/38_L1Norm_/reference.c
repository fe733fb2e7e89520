/* reference.c — level1/38_L1Norm_ (KernelBench HEAD): y = x / mean(|x|, dim=1, keepdim) for x of
 * (batch, dim). One fused op for the eager abs / mean / divide chain. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 0 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->ndim != 2 || y->ndim != 2 || x->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  if (y->shape[0] != x->shape[0] || y->shape[1] != x->shape[1]) return 1;
  return cl1_op_normalize(call->stream, CL1_NORM_MEAN_ABS, (const float *)x->data,
                          (float *)y->data, x->shape[0], x->shape[1], 1, 0.0);
}
