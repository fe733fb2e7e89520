/* reference.c — level2/93_ConvTranspose2d_Add_Min_GELU_Multiply, PyTorch eager order:
 * y = conv_transpose2d(x, W, b) into the output, then in place: y + add_value,
 * torch.min(y, 0) (an upper clamp at 0), exact GELU, y * multiply_value. */
#include <math.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || b->ndim != 1 || y->ndim != 4) return 1;
  double stride, addv, mulv;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "add_value", &addv) ||
      cl1_op_attr(call, "multiply_value", &mulv))
    return 1;
  cl1_convt_desc d = {.nd = 2, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                      .groups = 1};
  for (int i = 0; i < 2; i++) {
    d.in[i] = x->shape[2 + i], d.k[i] = w->shape[2 + i];
    d.stride[i] = (int64_t)stride, d.pad[i] = 0, d.out_pad[i] = 0, d.dil[i] = 1;
  }
  if (w->shape[0] != d.c_in || b->shape[0] != d.c_out || cl1_convt_check(&d)) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.c_out) return 1;
  for (int i = 0; i < 2; i++)
    if (y->shape[2 + i] != cl1_convt_out(&d, i)) return 1;
  float *out = (float *)y->data;
  int64_t n = cl1_op_numel(y);
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)b->data, out, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_ADD_SCALAR, out, out, n, addv, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, n, -INFINITY, 0.0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, out, out, n, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, n, mulv, 0);
  return rc;
}
