/* reference.c — level1/98_KLDivLoss: loss = F.kl_div(torch.log(predictions), targets,
 * reduction='batchmean'); one fused op-library call (cl1_op_loss), the log included: the
 * reference has no workspace for the eager elementwise intermediate. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *p = &call->inputs[0], *t = &call->inputs[1], *y = &call->outputs[0];
  if (p->dtype != CL1_F32 || t->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  if (p->ndim != 2 || t->ndim != 2 || cl1_op_numel(y) != 1) return 1;
  if (t->shape[0] != p->shape[0] || t->shape[1] != p->shape[1]) return 1;
  return cl1_op_loss(call->stream, CL1_LOSS_KL_DIV, (const float *)p->data,
                     (const float *)t->data, NULL, (float *)y->data, p->shape[0], p->shape[1], 0);
}
