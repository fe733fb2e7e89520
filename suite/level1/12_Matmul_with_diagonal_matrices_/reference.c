/* reference.c — level1/12_Matmul_with_diagonal_matrices_: C = A.unsqueeze(1) * B, one
 * cl1_op_mul_channel call (a row scaling). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *A = &call->inputs[0], *B = &call->inputs[1], *C = &call->outputs[0];
  if (A->ndim != 1 || B->ndim != 2 || C->ndim != 2) return 1;
  int64_t N = A->shape[0], M = B->shape[1];  // A (N), B (N, M)
  if (B->shape[0] != N || C->shape[0] != N || C->shape[1] != M) return 1;
  return cl1_op_mul_channel(call->stream, (const float *)B->data, (const float *)A->data,
                            (float *)C->data, 1, N, M);
}
