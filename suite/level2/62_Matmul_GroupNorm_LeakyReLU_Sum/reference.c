/* reference.c — level2/62_Matmul_GroupNorm_LeakyReLU_Sum, PyTorch eager order: y = linear(x, W,
 * b) into the output, then in place y = group_norm(y) (hw = 1), y = leaky_relu(y), y = y + y. */
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
  double groups, eps, slope;
  if (cl1_op_attr(call, "num_groups", &groups) || cl1_op_attr(call, "eps", &eps) ||
      cl1_op_attr(call, "negative_slope", &slope))
    return 1;
  if (groups < 1 || N % (int64_t)groups) return 1;
  float *out = (float *)y->data;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, out, M, N, K);
  if (!rc) rc = cl1_op_groupnorm(call->stream, out, (const float *)g->data,
                                 (const float *)be->data, out, M, N, 1, (int64_t)groups, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_LEAKY_RELU, out, out, M * N, slope, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_ADD, out, out, out, M * N);
  return rc;
}
