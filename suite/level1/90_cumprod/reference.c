/* reference.c — level1/90_cumprod: y = torch.cumprod(x, dim), one op-library call (cl1_op_scan) over
 * x viewed as (outer, n, inner) around the scanned dim. */
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
  if (x->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  for (int d = 0; d < x->ndim; d++)
    if (y->shape[d] != x->shape[d]) return 1;
  const uint8_t *mask = NULL;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; d++) outer *= x->shape[d];
  for (int d = dim + 1; d < x->ndim; d++) inner *= x->shape[d];
  return cl1_op_scan(call->stream, CL1_SCAN_PROD, (const float *)x->data, mask, (float *)y->data, outer,
                     x->shape[dim], inner, /*reverse=*/0, /*exclusive=*/0);
}
