/* reference.c — level2/16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling, PyTorch eager order:
 * t = conv_transpose2d(x, W, b) into the output; then in place mish(t) (F.mish: one fused op,
 * as in PyTorch), + add_value, hardtanh(-1, 1), * scale. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *y = &call->outputs[0];
  if (cb->ndim != 1) return 1;
  double addv, scale;
  if (cl1_op_attr(call, "add_value", &addv) || cl1_op_attr(call, "scale", &scale)) return 1;
  cl1_convt_desc d;
  if (cl1_convt_desc_of(call, x, w, y, 2, &d) || cb->shape[0] != d.c_out) return 1;
  float *out = (float *)y->data;
  int64_t n = cl1_op_numel(y);
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)cb->data, out, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MISH, out, out, n, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_ADD_SCALAR, out, out, n, addv, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, n, -1.0, 1.0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, n, scale, 0);
  return rc;
}
