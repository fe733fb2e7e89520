/* reference.c — level1/8_Matmul_with_irregular_shapes_: C = torch.matmul(A, B), A (M, K), B (K, N)
 * with odd sizes. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *A = &call->inputs[0], *B = &call->inputs[1], *C = &call->outputs[0];
  if (A->ndim != 2 || B->ndim != 2 || C->ndim != 2) return 1;
  int64_t M = A->shape[0], K = A->shape[1], N = B->shape[1];  // A (M, K), B (K, N)
  if (B->shape[0] != K || C->shape[0] != M || C->shape[1] != N) return 1;
  return cl1_op_gemm_ex(call->stream, 0, 0, (const float *)A->data, (const float *)B->data,
                        (float *)C->data, M, N, K, 1, 0, 0, 0);
}
