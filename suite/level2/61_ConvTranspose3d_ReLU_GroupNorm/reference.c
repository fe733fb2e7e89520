/* reference.c — level2/61_ConvTranspose3d_ReLU_GroupNorm, PyTorch eager order:
 * y = conv_transpose3d(x, W) (stride 1, padding 0, no bias) into the output, then in place
 * y = relu(y), y = group_norm(y). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *g = &call->params[1],
                   *be = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || g->ndim != 1 || be->ndim != 1 || y->ndim != 5) return 1;
  double groups, eps;
  if (cl1_op_attr(call, "groups", &groups) || cl1_op_attr(call, "eps", &eps)) return 1;
  cl1_convt_desc d = {.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                      .groups = 1};
  if (w->shape[0] != d.c_in) return 1;
  int64_t sp = 1;
  for (int i = 0; i < 3; i++) {
    d.in[i] = x->shape[2 + i], d.k[i] = w->shape[2 + i];
    d.stride[i] = 1, d.pad[i] = 0, d.out_pad[i] = 0, d.dil[i] = 1;
  }
  if (cl1_convt_check(&d)) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.c_out) return 1;
  for (int i = 0; i < 3; i++) {
    if (y->shape[2 + i] != cl1_convt_out(&d, i)) return 1;
    sp *= y->shape[2 + i];
  }
  int64_t C = d.c_out, G = (int64_t)groups;
  if (g->shape[0] != C || be->shape[0] != C || G < 1 || C % G) return 1;
  float *out = (float *)y->data;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data, NULL, out,
                          &d);
  if (!rc) rc = cl1_op_relu(call->stream, out, out, d.n * C * sp);
  if (!rc) rc = cl1_op_groupnorm(call->stream, out, (const float *)g->data,
                                 (const float *)be->data, out, d.n, C, sp, G, eps);
  return rc;
}
