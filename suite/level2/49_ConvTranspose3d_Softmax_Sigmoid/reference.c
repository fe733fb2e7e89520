/* reference.c — level2/49_ConvTranspose3d_Softmax_Sigmoid, PyTorch eager order:
 * t = conv_transpose3d(x, W, b) into scratch, y = softmax(t, dim=1), y = sigmoid(y) in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state49; /* (N, C_out, D', H', W') */

static int describe(const cl1_call *call, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || y->ndim != 5) return 1;
  double stride, pad, opad;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "output_padding", &opad))
    return 1;
  *d = (cl1_convt_desc){.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  for (int i = 0; i < 3; i++)
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i], d->stride[i] = (int64_t)stride,
    d->pad[i] = (int64_t)pad, d->out_pad[i] = (int64_t)opad, d->dil[i] = 1;
  if (w->shape[0] != d->c_in || cl1_convt_check(d) || b->shape[0] != d->c_out) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->c_out) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[2 + i] != cl1_convt_out(d, i)) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  if (describe(call, &d)) return 1;
  state49 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)cl1_op_numel(&call->outputs[0]) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state49 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  const state49 *s = call->state;
  if (!s || describe(call, &d)) return 1;
  int64_t n = cl1_op_numel(&call->outputs[0]), sp = n / (d.n * d.c_out);
  float *y = (float *)call->outputs[0].data;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, s->t, &d);
  if (!rc) rc = cl1_op_softmax_dim(call->stream, s->t, y, d.n, d.c_out, sp);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, y, y, n, 0, 0);
  return rc;
}
