/* reference.c — level2/2_ConvTranspose2d_BiasAdd_Clamp_Scaling_Clamp_Divide, PyTorch eager
 * order: y = conv_transpose2d(x, W, b) into the output, then in place: + bias (per channel),
 * clamp(0, 1), * scaling_factor, clamp(0, 1), / scaling_factor. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *b = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || b->ndim != 3 || y->ndim != 4) return 1;
  double stride, pad, opad, scale;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "output_padding", &opad) || cl1_op_attr(call, "scaling_factor", &scale))
    return 1;
  if (scale == 0) return 1;
  cl1_convt_desc d = {.nd = 2, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                      .groups = 1};
  for (int i = 0; i < 2; i++) {
    d.in[i] = x->shape[2 + i], d.k[i] = w->shape[2 + i];
    d.stride[i] = (int64_t)stride, d.pad[i] = (int64_t)pad, d.out_pad[i] = (int64_t)opad;
    d.dil[i] = 1;
  }
  if (w->shape[0] != d.c_in || cb->shape[0] != d.c_out || cl1_convt_check(&d)) return 1;
  if (b->shape[0] != d.c_out || b->shape[1] != 1 || b->shape[2] != 1) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.c_out) return 1;
  for (int i = 0; i < 2; i++)
    if (y->shape[2 + i] != cl1_convt_out(&d, i)) return 1;
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
