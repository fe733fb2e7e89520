/* reference.c — level1/36_RMSNorm_: y = x / sqrt(mean(x^2, dim=1, keepdim) + eps), the mean over
 * the CHANNEL dim at every (n, h, w); x viewed as (N, C, H*W). One fused op for the eager
 * x**2 / mean / + eps / sqrt / divide chain (the reference has no workspace for intermediates). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 0 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  if (x->ndim != 4 || y->ndim != 4 || x->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  for (int d = 0; d < 4; d++)
    if (y->shape[d] != x->shape[d]) return 1;
  return cl1_op_normalize(call->stream, CL1_NORM_RMS, (const float *)x->data, (float *)y->data,
                          x->shape[0], x->shape[1], x->shape[2] * x->shape[3], eps);
}
