/* reference.c — level2/34_ConvTranspose3d_LayerNorm_GELU_Scaling, PyTorch eager order:
 * y = conv_transpose3d(x, W, b) into the output, then in place: layer_norm over the last dim
 * (W', which must equal out_channels), exact GELU, * scaling_factor. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || y->ndim != 5) return 1;
  double s, p, eps, scale;
  if (cl1_op_attr(call, "stride", &s) || cl1_op_attr(call, "padding", &p) ||
      cl1_op_attr(call, "eps", &eps) || cl1_op_attr(call, "scaling_factor", &scale))
    return 1;
  cl1_convt_desc d = {.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                      .groups = 1};
  if (w->shape[0] != d.c_in) return 1;
  for (int i = 0; i < 3; i++) {
    d.in[i] = x->shape[2 + i], d.k[i] = w->shape[2 + i], d.stride[i] = (int64_t)s;
    d.pad[i] = (int64_t)p, d.out_pad[i] = 0, d.dil[i] = 1;
  }
  if (cl1_convt_check(&d)) return 1;
  for (int i = 1; i < 4; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != d.c_out) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.c_out) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[2 + i] != cl1_convt_out(&d, i)) return 1;
  int64_t cols = y->shape[4];
  if (cols != d.c_out) return 1; /* LayerNorm(out_channels) over the trailing dim */
  int64_t n = cl1_op_numel(y);
  float *out = (float *)y->data;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)call->params[1].data, out, &d);
  if (!rc)
    rc = cl1_op_layernorm(call->stream, out, (const float *)call->params[2].data,
                          (const float *)call->params[3].data, out, n / cols, cols, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, out, out, n, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, n, scale, 0);
  return rc;
}
