/* reference.c — level2/73_Conv2d_BatchNorm_Scaling, PyTorch eager order: y = conv2d(x, W, b),
 * y = batch_norm(y) (training mode, batch statistics) in place, y = y * scaling_factor in place. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *g = &call->params[2], *be = &call->params[3], *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || g->ndim != 1 || be->ndim != 1 ||
      y->ndim != 4)
    return 1;
  double eps, scale;
  if (cl1_op_attr(call, "eps", &eps) || cl1_op_attr(call, "scaling_factor", &scale)) return 1;
  cl1_conv2d_desc d = {.n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                       .k = w->shape[0], .r = w->shape[2], .s = w->shape[3],
                       .stride_h = 1, .stride_w = 1, .pad_h = 0, .pad_w = 0,
                       .dil_h = 1, .dil_w = 1, .groups = 1};
  if (w->shape[1] != d.c || d.h < d.r || d.w < d.s) return 1;
  int64_t oh = cl1_conv2d_out_h(&d), ow = cl1_conv2d_out_w(&d);
  if (y->shape[0] != d.n || y->shape[1] != d.k || y->shape[2] != oh || y->shape[3] != ow) return 1;
  if (cb->shape[0] != d.k || g->shape[0] != d.k || be->shape[0] != d.k) return 1;
  float *out = (float *)y->data;
  int64_t n = d.n * d.k * oh * ow;
  int rc = cl1_op_conv2d(call->stream, (const float *)x->data, (const float *)w->data,
                         (const float *)cb->data, out, &d);
  if (!rc)
    rc = cl1_op_batchnorm_train(call->stream, out, (const float *)g->data,
                                (const float *)be->data, out, d.n, d.k, oh * ow, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, n, scale, 0);
  return rc;
}
