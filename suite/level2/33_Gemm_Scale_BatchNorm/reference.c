/* reference.c — level2/33_Gemm_Scale_BatchNorm, PyTorch eager order: y = linear(x, W, b) into
 * the output, y = y * scale (per feature) in place, y = batch_norm1d(y) with batch statistics
 * (training mode) in place. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *sc = &call->params[2], *g = &call->params[3], *be = &call->params[4],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || sc->ndim != 1 || g->ndim != 1 ||
      be->ndim != 1 || y->ndim != 2)
    return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || sc->shape[0] != N || g->shape[0] != N ||
      be->shape[0] != N || y->shape[0] != M || y->shape[1] != N)
    return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  float *out = (float *)y->data;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, out, M, N, K);
  // (M, N) seen as (outer = M, C = N, inner = 1)
  if (!rc) rc = cl1_op_mul_channel(call->stream, out, (const float *)sc->data, out, M, N, 1);
  if (!rc) rc = cl1_op_batchnorm_train(call->stream, out, (const float *)g->data,
                                       (const float *)be->data, out, M, N, 1, eps);
  return rc;
}
