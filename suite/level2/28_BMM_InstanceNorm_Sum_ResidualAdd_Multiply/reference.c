/* reference.c — level2/28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply, PyTorch eager order:
 * v = linear(x, W, b) into the output; v = instance_norm(v viewed (B, 1, 1, N)) in place, i.e.
 * each row normalised over its N features (no affine); v = v + y in place; v = v * y in place. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 2 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *yin = &call->inputs[1], *W = &call->params[0],
                   *b = &call->params[1], *o = &call->outputs[0];
  if (x->ndim != 2 || yin->ndim != 2 || W->ndim != 2 || b->ndim != 1 || o->ndim != 2) return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || o->shape[0] != M || o->shape[1] != N ||
      yin->shape[0] != M || yin->shape[1] != N)
    return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  float *out = (float *)o->data;
  const float *y = (const float *)yin->data;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, out, M, N, K);
  // InstanceNorm2d on (B, 1, 1, N): one channel per sample, statistics over the N features
  if (!rc) rc = cl1_op_groupnorm(call->stream, out, NULL, NULL, out, M, 1, N, 1, eps);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_ADD, out, y, out, M * N);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, out, y, out, M * N);
  return rc;
}
