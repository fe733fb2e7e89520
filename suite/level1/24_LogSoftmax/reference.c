/* reference.c — level1/24_LogSoftmax: y = log_softmax(x, dim=1) over the last dim of (batch, dim). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  double dim;
  if (cl1_op_attr(call, "dim", &dim)) return 1;
  if (x->ndim != 2 || y->ndim != 2 || x->shape[0] != y->shape[0] || x->shape[1] != y->shape[1])
    return 1;
  if (dim != 1 && dim != -1) return 1;  // the op reduces over the last dim only
  return cl1_op_log_softmax(call->stream, (const float *)x->data, (float *)y->data, x->shape[0],
                            x->shape[1]);
}
