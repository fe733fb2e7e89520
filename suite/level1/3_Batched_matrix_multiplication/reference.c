/* reference.c — level1/3_Batched_matrix_multiplication: C = torch.bmm(A, B), one strided-batched
 * cl1_op_gemm_ex call. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *A = &call->inputs[0], *B = &call->inputs[1], *C = &call->outputs[0];
  if (A->ndim != 3 || B->ndim != 3 || C->ndim != 3) return 1;
  int64_t bs = A->shape[0], M = A->shape[1], K = A->shape[2], N = B->shape[2];
  if (B->shape[0] != bs || B->shape[1] != K) return 1;
  if (C->shape[0] != bs || C->shape[1] != M || C->shape[2] != N) return 1;
  return cl1_op_gemm_ex(call->stream, 0, 0, (const float *)A->data, (const float *)B->data,
                        (float *)C->data, M, N, K, bs, M * K, K * N, M * N);
}
