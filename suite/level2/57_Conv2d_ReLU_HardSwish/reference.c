/* reference.c — level2/57_Conv2d_ReLU_HardSwish, PyTorch eager order: y = conv2d(x, W, b),
 * y = relu(y) in place; t = y + 3, t = t / 6, t = clamp(t, 0, 1) in an intermediate; y = y * t. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state57; /* t: like y */

static int desc_of(const cl1_call *call, cl1_conv2d_desc *d, int64_t *n_out) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || y->ndim != 4) return 1;
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
  if (cb->shape[0] != d->k) return 1;
  *n_out = d->n * d->k * oh * ow;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc d;
  int64_t n;
  if (desc_of(call, &d, &n)) return 1;
  state57 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)n * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state57 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_conv2d_desc d;
  int64_t n;
  const state57 *s = call->state;
  if (!s || desc_of(call, &d, &n)) return 1;
  float *out = (float *)call->outputs[0].data, *t = s->t;
  int rc = cl1_op_conv2d(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         out, &d);
  if (!rc) rc = cl1_op_relu(call->stream, out, out, n);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_ADD_SCALAR, out, t, n, 3.0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, t, t, n, 1.0 / 6.0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, t, t, n, 0.0, 1.0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, out, t, out, n);
  return rc;
}
