/* reference.c — level2/29_Matmul_Mish_Mish, PyTorch eager order: y = linear(x, W, b) into the
 * output, then y = mish(y) twice in place (F.mish: one fused op each, as in PyTorch). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

static int dims_of(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 2) return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || b->shape[0] != *N || y->shape[0] != *M || y->shape[1] != *N) return 1;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  if (dims_of(call, &M, &N, &K)) return 1;
  float *out = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         out, M, N, K);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MISH, out, out, M * N, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MISH, out, out, M * N, 0, 0);
  return rc;
}
