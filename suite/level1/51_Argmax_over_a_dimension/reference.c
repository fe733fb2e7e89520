/* reference.c — level1/51_Argmax_over_a_dimension: y = torch.argmax(x, dim) (keepdim=False) as int64, first
 * index on ties; x viewed as (outer, red, inner) -> (outer, inner). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 0 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  double dv;
  if (cl1_op_attr(call, "dim", &dv)) return 1;
  int dim = (int)dv;
  if (dim < 0) dim += x->ndim;
  if (dim < 0 || dim >= x->ndim || y->ndim != x->ndim - 1) return 1;
  if (x->dtype != CL1_F32 || y->dtype != CL1_I64) return 1;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; d++) outer *= x->shape[d];
  for (int d = dim + 1; d < x->ndim; d++) inner *= x->shape[d];
  for (int d = 0; d < y->ndim; d++)  // the reduced dim is removed
    if (y->shape[d] != x->shape[d < dim ? d : d + 1]) return 1;
  return cl1_op_reduce(call->stream, CL1_REDUCE_ARGMAX, (const float *)x->data, y->data, outer, x->shape[dim],
                       inner);
}
