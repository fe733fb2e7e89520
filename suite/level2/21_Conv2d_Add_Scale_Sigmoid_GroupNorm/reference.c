/* reference.c — level2/21_Conv2d_Add_Scale_Sigmoid_GroupNorm, PyTorch eager order:
 * y = conv2d(x, W, b) into the output, then in place y = y + bias (per channel),
 * y = y * scale (per channel), y = sigmoid(y), y = group_norm(y). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

/* Conv2d(in, out, k) with the defaults stride 1, padding 0, dilation 1, groups 1. */
static int conv_desc(const cl1_tensor *x, const cl1_tensor *w, const cl1_tensor *cb,
                     cl1_conv2d_desc *d) {
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1) return 1;
  *d = (cl1_conv2d_desc){.n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                         .k = w->shape[0], .r = w->shape[2], .s = w->shape[3], .stride_h = 1,
                         .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
  if (w->shape[1] != d->c || cb->shape[0] != d->k) return 1;
  if (d->h < d->r || d->w < d->s) return 1;
  return 0;
}


static int chan_param(const cl1_tensor *p, int64_t k) {
  return p->ndim != 3 || p->shape[0] != k || p->shape[1] != 1 || p->shape[2] != 1;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 6 || call->n_outputs != 1) return 1;
  const cl1_tensor *b = &call->params[2], *sc = &call->params[3], *g = &call->params[4],
                   *be = &call->params[5], *y = &call->outputs[0];
  cl1_conv2d_desc d;
  if (conv_desc(&call->inputs[0], &call->params[0], &call->params[1], &d)) return 1;
  int64_t oh = cl1_conv2d_out_h(&d), ow = cl1_conv2d_out_w(&d), hw = oh * ow;
  if (y->ndim != 4 || y->shape[0] != d.n || y->shape[1] != d.k || y->shape[2] != oh ||
      y->shape[3] != ow)
    return 1;
  if (chan_param(b, d.k) || chan_param(sc, d.k) || g->ndim != 1 || g->shape[0] != d.k ||
      be->ndim != 1 || be->shape[0] != d.k)
    return 1;
  double groups, eps;
  if (cl1_op_attr(call, "num_groups", &groups) || cl1_op_attr(call, "eps", &eps)) return 1;
  int64_t G = (int64_t)groups;
  if (G < 1 || d.k % G) return 1;
  float *out = (float *)y->data;
  int rc = cl1_op_conv2d(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         out, &d);
  if (!rc) rc = cl1_op_bias_add(call->stream, out, (const float *)b->data, out, d.n, d.k, hw);
  if (!rc) rc = cl1_op_mul_channel(call->stream, out, (const float *)sc->data, out, d.n, d.k, hw);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, out, out, d.n * d.k * hw, 0, 0);
  if (!rc) rc = cl1_op_groupnorm(call->stream, out, (const float *)g->data,
                                 (const float *)be->data, out, d.n, d.k, hw, G, eps);
  return rc;
}
