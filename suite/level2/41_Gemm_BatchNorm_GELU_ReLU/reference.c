/* reference.c — level2/41_Gemm_BatchNorm_GELU_ReLU, PyTorch eager order: y = linear(x, W, b)
 * into the output, then batch_norm (training mode, batch statistics), gelu (exact) and relu,
 * each in place. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || y->ndim != 2) return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || y->shape[0] != M || y->shape[1] != N) return 1;
  for (int i = 1; i < 4; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != N) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  float *out = (float *)y->data;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)call->params[1].data, out, M, N, K);
  if (!rc)
    rc = cl1_op_batchnorm_train(call->stream, out, (const float *)call->params[2].data,
                                (const float *)call->params[3].data, out, M, N, 1, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, out, out, M * N, 0, 0);
  if (!rc) rc = cl1_op_relu(call->stream, out, out, M * N);
  return rc;
}
