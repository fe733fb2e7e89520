/* reference.c — level1/11_4D_tensor_matrix_multiplication: C = einsum('bijl,lk->bijk'), A folded to
 * (b*i*j, l), one cl1_op_gemm_ex call. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *A = &call->inputs[0], *B = &call->inputs[1], *C = &call->outputs[0];
  if (A->ndim != 4 || B->ndim != 2 || C->ndim != 4) return 1;
  int64_t rows = A->shape[0] * A->shape[1] * A->shape[2], L = A->shape[3], N = B->shape[1];
  if (B->shape[0] != L || C->shape[3] != N) return 1;
  for (int d = 0; d < 3; d++)
    if (C->shape[d] != A->shape[d]) return 1;
  return cl1_op_gemm_ex(call->stream, 0, 0, (const float *)A->data, (const float *)B->data,
                        (float *)C->data, rows, N, L, 1, 0, 0, 0);
}
