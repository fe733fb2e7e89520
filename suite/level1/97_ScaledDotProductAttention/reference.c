/* reference.c — level1/97_ScaledDotProductAttention: F.scaled_dot_product_attention(Q, K, V)
 * with the default scale 1/sqrt(E); (batch, heads) flattened into one GEMM batch. */
#include <math.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *q = &call->inputs[0], *k = &call->inputs[1], *v = &call->inputs[2];
  const cl1_tensor *y = &call->outputs[0];
  for (int i = 0; i < 3; i++)
    if (call->inputs[i].dtype != CL1_F32 || call->inputs[i].ndim != 4) return 1;
  if (y->dtype != CL1_F32 || y->ndim != 4) return 1;
  for (int d = 0; d < 2; d++)
    if (k->shape[d] != q->shape[d] || v->shape[d] != q->shape[d] || y->shape[d] != q->shape[d])
      return 1;
  // (B, H, L, E) x (B, H, S, E) x (B, H, S, Ev) -> (B, H, L, Ev)
  if (k->shape[3] != q->shape[3] || v->shape[2] != k->shape[2] || y->shape[2] != q->shape[2] ||
      y->shape[3] != v->shape[3])
    return 1;
  return cl1_op_sdpa(call->stream, (const float *)q->data, (const float *)k->data,
                     (const float *)v->data, (float *)y->data, q->shape[0] * q->shape[1],
                     q->shape[2], k->shape[2], q->shape[3], v->shape[3],
                     1.0 / sqrt((double)q->shape[3]));
}
