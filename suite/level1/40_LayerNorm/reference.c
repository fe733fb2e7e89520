/* reference.c — level1/40_LayerNorm: y = layer_norm(x, x.shape[1:], ln.weight, ln.bias, eps),
 * rows = batch, cols = the normalised trailing dims. */
#include <string.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  int nd = w->ndim;  // the normalised shape is the weight's shape
  if (x->ndim < nd || b->ndim != nd || y->ndim != x->ndim) return 1;
  for (int d = 0; d < nd; d++)
    if (x->shape[x->ndim - nd + d] != w->shape[d] || b->shape[d] != w->shape[d]) return 1;
  for (int d = 0; d < x->ndim; d++)
    if (y->shape[d] != x->shape[d]) return 1;
  int64_t cols = cl1_op_numel(w), rows = cols ? cl1_op_numel(x) / cols : 0;
  return cl1_op_layernorm(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)b->data, (float *)y->data, rows, cols, eps);
}
