/* reference.c — level2/4_Conv2d_Mish_Mish, PyTorch eager order: y = conv2d(x, W, b) into the
 * output, then mish twice, each composed as y = y * tanh(softplus(y)) through a scratch tensor. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *tmp;  // (N, K, OH, OW): tanh(softplus(y))
} state4;

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  if (call->n_outputs != 1) return 1;
  state4 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->tmp = cl1_op_alloc((size_t)cl1_op_numel(&call->outputs[0]) * sizeof(float));
  if (!s->tmp) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state4 *s = state;
  if (!s) return;
  cl1_op_free(s->tmp);
  free(s);
}

static int mish(void *stream, float *y, float *tmp, int64_t n) {
  int rc = cl1_op_unary(stream, CL1_UNARY_SOFTPLUS, y, tmp, n, 1.0, 20.0);
  if (!rc) rc = cl1_op_unary(stream, CL1_UNARY_TANH, tmp, tmp, n, 0, 0);
  if (!rc) rc = cl1_op_binary(stream, CL1_BINARY_MUL, y, tmp, y, n);
  return rc;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1 || !call->state)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || y->ndim != 4) return 1;
  double stride, pad, dil, groups;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "dilation", &dil) || cl1_op_attr(call, "groups", &groups))
    return 1;
  cl1_conv2d_desc d = {
      .n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
      .k = w->shape[0], .r = w->shape[2], .s = w->shape[3],
      .stride_h = (int64_t)stride, .stride_w = (int64_t)stride, .pad_h = (int64_t)pad,
      .pad_w = (int64_t)pad, .dil_h = (int64_t)dil, .dil_w = (int64_t)dil,
      .groups = (int64_t)groups};
  if (d.groups < 1 || d.c % d.groups || w->shape[1] != d.c / d.groups) return 1;
  if (d.stride_h < 1 || d.dil_h < 1 || d.pad_h < 0) return 1;
  int64_t oh = cl1_conv2d_out_h(&d), ow = cl1_conv2d_out_w(&d);
  if (y->shape[0] != d.n || y->shape[1] != d.k || y->shape[2] != oh || y->shape[3] != ow) return 1;
  if (cb->shape[0] != d.k) return 1;
  const state4 *s = call->state;
  float *out = (float *)y->data;
  int64_t n = d.n * d.k * oh * ow;
  int rc = cl1_op_conv2d(call->stream, (const float *)x->data, (const float *)w->data,
                         (const float *)cb->data, out, &d);
  if (!rc) rc = mish(call->stream, out, s->tmp, n);
  if (!rc) rc = mish(call->stream, out, s->tmp, n);
  return rc;
}
