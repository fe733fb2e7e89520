/* reference.c — level1/10_3D_tensor_matrix_multiplication: C = torch.matmul(A, B), A folded to
 * (N*M, K), one cl1_op_gemm_ex call. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *A = &call->inputs[0], *B = &call->inputs[1], *C = &call->outputs[0];
  if (A->ndim != 3 || B->ndim != 2 || C->ndim != 3) return 1;
  int64_t rows = A->shape[0] * A->shape[1], K = A->shape[2], L = B->shape[1];
  if (B->shape[0] != K || C->shape[0] != A->shape[0] || C->shape[1] != A->shape[1] ||
      C->shape[2] != L)
    return 1;
  return cl1_op_gemm_ex(call->stream, 0, 0, (const float *)A->data, (const float *)B->data,
                        (float *)C->data, rows, L, K, 1, 0, 0, 0);
}
