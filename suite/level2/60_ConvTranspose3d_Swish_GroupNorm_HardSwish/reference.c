/* reference.c — level2/60_ConvTranspose3d_Swish_GroupNorm_HardSwish, PyTorch eager order:
 * y = conv_transpose3d(x, W, b) into the output; t = sigmoid(y) into an intermediate, y = t * y
 * (the swish is written out in the model: two ops); y = group_norm(y) in place;
 * y = hardswish(y) in place (F.hardswish: one fused op, as in PyTorch). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state60; /* t: like y */

static int desc_of(const cl1_call *call, cl1_convt_desc *d, int64_t *sp) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *g = &call->params[2], *be = &call->params[3], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || cb->ndim != 1 || g->ndim != 1 || be->ndim != 1 ||
      y->ndim != 5)
    return 1;
  double stride, pad;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad)) return 1;
  *d = (cl1_convt_desc){.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  if (w->shape[0] != d->c_in) return 1;
  for (int i = 0; i < 3; i++) {
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i];
    d->stride[i] = (int64_t)stride, d->pad[i] = (int64_t)pad, d->out_pad[i] = 0, d->dil[i] = 1;
  }
  if (cl1_convt_check(d)) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->c_out) return 1;
  *sp = 1;
  for (int i = 0; i < 3; i++) {
    if (y->shape[2 + i] != cl1_convt_out(d, i)) return 1;
    *sp *= y->shape[2 + i];
  }
  int64_t C = d->c_out;
  return cb->shape[0] != C || g->shape[0] != C || be->shape[0] != C;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  int64_t sp;
  if (desc_of(call, &d, &sp)) return 1;
  state60 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(d.n * d.c_out * sp) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state60 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  int64_t sp;
  const state60 *s = call->state;
  if (!s || desc_of(call, &d, &sp)) return 1;
  double groups, eps;
  if (cl1_op_attr(call, "groups", &groups) || cl1_op_attr(call, "eps", &eps)) return 1;
  int64_t C = d.c_out, G = (int64_t)groups, n = d.n * C * sp;
  if (G < 1 || C % G) return 1;
  float *out = (float *)call->outputs[0].data, *t = s->t;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, out, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, out, t, n, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, t, out, out, n);
  if (!rc) rc = cl1_op_groupnorm(call->stream, out, (const float *)call->params[2].data,
                                 (const float *)call->params[3].data, out, d.n, C, sp, G, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDSWISH, out, out, n, 0, 0);
  return rc;
}
