/* reference.c — level1/95_CrossEntropyLoss: F.cross_entropy(predictions, targets) with its
 * defaults; one op-library call (log_softmax + nll_loss fused, no workspace). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *t = &call->inputs[1], *y = &call->outputs[0];
  if (x->dtype != CL1_F32 || t->dtype != CL1_I64 || y->dtype != CL1_F32) return 1;
  if (x->ndim != 2 || t->ndim != 1 || t->shape[0] != x->shape[0] || cl1_op_numel(y) != 1)
    return 1;
  return cl1_op_cross_entropy(call->stream, (const float *)x->data, (const int64_t *)t->data,
                              (float *)y->data, x->shape[0], x->shape[1]);
}
