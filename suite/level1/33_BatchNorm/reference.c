/* reference.c — level1/33_BatchNorm: y = BatchNorm2d(features) in training mode, i.e. with the
 * batch's per-channel mean and biased variance over (N, H, W); x viewed as (N, C, H*W). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  if (x->ndim != 4 || y->ndim != 4 || w->ndim != 1 || b->ndim != 1) return 1;
  if (x->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  for (int d = 0; d < 4; d++)
    if (y->shape[d] != x->shape[d]) return 1;
  int64_t n = x->shape[0], c = x->shape[1], hw = x->shape[2] * x->shape[3];
  if (w->shape[0] != c || b->shape[0] != c) return 1;
  return cl1_op_batchnorm_train(call->stream, (const float *)x->data, (const float *)w->data,
                                (const float *)b->data, (float *)y->data, n, c, hw, eps);
}
