/* reference.c — level1/34_InstanceNorm: y = InstanceNorm2d(features)(x) (no affine, no running
 * stats): per (n, c) mean and biased variance over H*W, i.e. GroupNorm with one channel per
 * group and no affine; x viewed as (N, C, H*W). */
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
  int64_t n = x->shape[0], c = x->shape[1], hw = x->shape[2] * x->shape[3];
  return cl1_op_groupnorm(call->stream, (const float *)x->data, NULL, NULL, (float *)y->data, n,
                          c, hw, c, eps);
}
