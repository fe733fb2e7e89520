/* reference.c — level2/52_Conv2d_Activation_BatchNorm, PyTorch eager order: y = conv2d(x, W, b);
 * t = softplus(y) into an intermediate, t = tanh(t) in place, y = t * y; y = batch_norm(y) with
 * batch statistics (training mode) in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state52; /* t: like y */

static int desc_of(const cl1_call *call, cl1_conv2d_desc *d, int64_t *hw) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *g = &call->params[2], *be = &call->params[3], *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || g->ndim != 1 || be->ndim != 1 ||
      y->ndim != 4)
    return 1;
  double stride, pad, dil, groups;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "dilation", &dil) || cl1_op_attr(call, "groups", &groups))
    return 1;
  *d = (cl1_conv2d_desc){
      .n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
      .k = w->shape[0], .r = w->shape[2], .s = w->shape[3],
      .stride_h = (int64_t)stride, .stride_w = (int64_t)stride, .pad_h = (int64_t)pad,
      .pad_w = (int64_t)pad, .dil_h = (int64_t)dil, .dil_w = (int64_t)dil,
      .groups = (int64_t)groups};
  if (d->groups < 1 || d->c % d->groups || w->shape[1] != d->c / d->groups) return 1;
  if (d->stride_h < 1 || d->dil_h < 1 || d->pad_h < 0) return 1;
  int64_t oh = cl1_conv2d_out_h(d), ow = cl1_conv2d_out_w(d);
  if (y->shape[0] != d->n || y->shape[1] != d->k || y->shape[2] != oh || y->shape[3] != ow)
    return 1;
  if (cb->shape[0] != d->k || g->shape[0] != d->k || be->shape[0] != d->k) return 1;
  *hw = oh * ow;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc d;
  int64_t hw;
  if (desc_of(call, &d, &hw)) return 1;
  state52 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(d.n * d.k * hw) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state52 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_conv2d_desc d;
  int64_t hw;
  const state52 *s = call->state;
  if (!s || desc_of(call, &d, &hw)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  int64_t n = d.n * d.k * hw;
  float *out = (float *)call->outputs[0].data, *t = s->t;
  int rc = cl1_op_conv2d(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         out, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SOFTPLUS, out, t, n, 1.0, 20.0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, t, t, n, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, t, out, out, n);
  if (!rc) rc = cl1_op_batchnorm_train(call->stream, out, (const float *)call->params[2].data,
                                       (const float *)call->params[3].data, out, d.n, d.k, hw,
                                       eps);
  return rc;
}
