/* reference.c — level2/2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide, PyTorch eager
 * order: y = conv_transpose2d(x, W, b) into the output, then in place: + bias (per channel),
 * clamp(0, 1), * scaling_factor, clamp(0, 1), / scaling_factor. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *b = &call->params[2], *y = &call->outputs[0];
  if (cb->ndim != 1 || b->ndim != 3) return 1;
  double scale;
  if (cl1_op_attr(call, "scaling_factor", &scale)) return 1;
  if (scale == 0) return 1;
  cl1_convt_desc d;
  if (cl1_convt_desc_of(call, x, w, y, 2, &d) || cb->shape[0] != d.c_out) return 1;
  if (b->shape[0] != d.c_out || b->shape[1] != 1 || b->shape[2] != 1) return 1;
  float *out = (float *)y->data;
  int64_t hw = y->shape[2] * y->shape[3], n = d.n * d.c_out * hw;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)cb->data, out, &d);
  if (!rc) rc = cl1_op_bias_add(call->stream, out, (const float *)b->data, out, d.n, d.c_out, hw);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, n, 0.0, 1.0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, n, scale, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, n, 0.0, 1.0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, n, 1.0 / scale, 0);
  return rc;
}
