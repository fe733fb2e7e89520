/* reference.c — level2/30_Gemm_GroupNorm_Hardtanh, PyTorch eager order: y = linear(x, W, b) into
 * the output, y = group_norm(y) in place (features as channels, no spatial dims),
 * y = hardtanh(y, min, max) in place. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *g = &call->params[2], *be = &call->params[3], *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || g->ndim != 1 || be->ndim != 1 ||
      y->ndim != 2)
    return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || g->shape[0] != N || be->shape[0] != N ||
      y->shape[0] != M || y->shape[1] != N)
    return 1;
  double groups, eps, lo, hi;
  if (cl1_op_attr(call, "num_groups", &groups) || cl1_op_attr(call, "eps", &eps) ||
      cl1_op_attr(call, "hardtanh_min", &lo) || cl1_op_attr(call, "hardtanh_max", &hi))
    return 1;
  int64_t G = (int64_t)groups;
  if (G < 1 || N % G) return 1;
  float *out = (float *)y->data;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, out, M, N, K);
  // (M, N) as GroupNorm's (n = M, c = N, hw = 1)
  if (!rc) rc = cl1_op_groupnorm(call->stream, out, (const float *)g->data,
                                 (const float *)be->data, out, M, N, 1, G, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, M * N, lo, hi);
  return rc;
}
