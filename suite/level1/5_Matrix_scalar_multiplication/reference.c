/* reference.c — level1/5_Matrix_scalar_multiplication: C = A * s, one cl1_op_unary call
 * (CL1_UNARY_MUL_SCALAR, s from the attr). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *A = &call->inputs[0], *C = &call->outputs[0];
  double s;
  if (cl1_op_attr(call, "s", &s)) return 1;
  if (A->ndim != C->ndim) return 1;
  for (int d = 0; d < A->ndim; d++)
    if (A->shape[d] != C->shape[d]) return 1;
  return cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, (const float *)A->data,
                      (float *)C->data, cl1_op_numel(A), s, 0.0);
}
