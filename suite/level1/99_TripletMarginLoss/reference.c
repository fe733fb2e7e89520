/* reference.c — level1/99_TripletMarginLoss: nn.TripletMarginLoss(margin, p=2, eps=1e-6); one
 * fused op-library call (both pairwise distances, hinge and mean; no workspace). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *a = &call->inputs[0], *p = &call->inputs[1], *n = &call->inputs[2];
  const cl1_tensor *y = &call->outputs[0];
  double margin;
  if (cl1_op_attr(call, "margin", &margin)) return 1;
  if (y->dtype != CL1_F32 || cl1_op_numel(y) != 1 || a->ndim != 2) return 1;
  for (int i = 0; i < 3; i++) {
    const cl1_tensor *t = &call->inputs[i];
    if (t->dtype != CL1_F32 || t->ndim != 2 || t->shape[0] != a->shape[0] ||
        t->shape[1] != a->shape[1])
      return 1;
  }
  return cl1_op_loss(call->stream, CL1_LOSS_TRIPLET, (const float *)a->data,
                     (const float *)p->data, (const float *)n->data, (float *)y->data,
                     a->shape[0], a->shape[1], margin);
}
