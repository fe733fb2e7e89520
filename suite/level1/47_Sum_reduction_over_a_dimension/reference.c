/* reference.c — level1/47_Sum_reduction_over_a_dimension: y = x.sum(dim, keepdim=True), viewed
 * as (outer, red, inner) -> (outer, inner). */
#include <string.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  double dv;
  if (cl1_op_attr(call, "dim", &dv)) return 1;
  int dim = (int)dv;
  if (dim < 0) dim += x->ndim;
  if (dim < 0 || dim >= x->ndim || y->ndim != x->ndim) return 1;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; d++) outer *= x->shape[d];
  for (int d = dim + 1; d < x->ndim; d++) inner *= x->shape[d];
  for (int d = 0; d < x->ndim; d++)
    if (y->shape[d] != (d == dim ? 1 : x->shape[d])) return 1;
  if (cl1_op_numel(y) != outer * inner) return 1;
  return cl1_op_sum_dim(call->stream, (const float *)x->data, (float *)y->data, outer,
                        x->shape[dim], inner);
}
