/* reference.c — level1/73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped: y = conv_transpose3d(x, W), no bias; stride, padding,
 * output_padding, dilation and groups from attrs (a per-axis attr such as stride_h wins over the
 * scalar one), channels and kernel sizes from the tensors. */
#include <stdio.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define ND 3

/* attr `base`_<axis> for spatial axis i, else `base`: 0 and *v set, or 1 when neither exists. */
static int axis_attr(const cl1_call *c, const char *base, int i, double *v) {
  static const char *const ax[3][3] = {{"l"}, {"h", "w"}, {"d", "h", "w"}};
  char name[64];
  snprintf(name, sizeof name, "%s_%s", base, ax[ND - 1][i]);
  return cl1_op_attr(c, name, v) && cl1_op_attr(c, base, v);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != ND + 2 || w->ndim != ND + 2 || y->ndim != ND + 2) return 1;
  double groups;
  if (cl1_op_attr(call, "groups", &groups) || groups < 1) return 1;
  cl1_convt_desc d = {.nd = ND, .n = x->shape[0], .c_in = x->shape[1],
                      .c_out = w->shape[1] * (int64_t)groups, .groups = (int64_t)groups};
  if (w->shape[0] != d.c_in) return 1;
  for (int i = 0; i < ND; i++) {
    double s, p, op, dl;
    if (axis_attr(call, "stride", i, &s) || axis_attr(call, "padding", i, &p) ||
        axis_attr(call, "output_padding", i, &op) || axis_attr(call, "dilation", i, &dl))
      return 1;
    d.in[i] = x->shape[2 + i], d.k[i] = w->shape[2 + i];
    d.stride[i] = (int64_t)s, d.pad[i] = (int64_t)p, d.out_pad[i] = (int64_t)op;
    d.dil[i] = (int64_t)dl;
  }
  if (cl1_convt_check(&d)) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.c_out) return 1;
  for (int i = 0; i < ND; i++)
    if (y->shape[2 + i] != cl1_convt_out(&d, i)) return 1;
  return cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data, NULL,
                        (float *)y->data, &d);
}
