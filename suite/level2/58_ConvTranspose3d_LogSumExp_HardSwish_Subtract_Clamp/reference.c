/* reference.c — level2/58_ConvTranspose3d_LogSumExp_HardSwish_Subtract_Clamp, PyTorch eager
 * order: t = conv_transpose3d(x, W, b) into scratch, y = logsumexp(t, dim=1), g = y + 3 into
 * scratch, g = sigmoid(g), y = y * g, y = y / 6, y = y - bias (a one-element parameter
 * broadcast through stride 0), y = clamp(y, -1, 1). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;  // (N, C, D', H', W')
  float *g;  // (N, 1, D', H', W')
} state58;

static int describe(const cl1_call *call, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *bias = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || y->ndim != 5) return 1;
  if (cl1_op_numel(bias) != 1) return 1;
  double stride, pad;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad)) return 1;
  *d = (cl1_convt_desc){.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  for (int i = 0; i < 3; i++)
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i], d->stride[i] = (int64_t)stride,
    d->pad[i] = (int64_t)pad, d->out_pad[i] = 0, d->dil[i] = 1;
  if (w->shape[0] != d->c_in || cl1_convt_check(d) || b->shape[0] != d->c_out) return 1;
  if (y->shape[0] != d->n || y->shape[1] != 1) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[2 + i] != cl1_convt_out(d, i)) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  if (describe(call, &d)) return 1;
  int64_t n = cl1_op_numel(&call->outputs[0]);
  state58 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(n * d.c_out) * sizeof(float));
  s->g = cl1_op_alloc((size_t)n * sizeof(float));
  if (!s->t || !s->g) {
    cl1_op_free(s->t), cl1_op_free(s->g), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state58 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->g);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  const state58 *s = call->state;
  double lo, hi;
  if (!s || describe(call, &d) || cl1_op_attr(call, "clamp_min", &lo) ||
      cl1_op_attr(call, "clamp_max", &hi))
    return 1;
  int64_t n = cl1_op_numel(&call->outputs[0]), sp = n / d.n;
  float *y = (float *)call->outputs[0].data;
  const int64_t dims[3] = {1, 1, n}, cont[3] = {0, 0, 1}, zero[3] = {0, 0, 0};
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, s->t, &d);
  if (!rc) rc = cl1_op_logsumexp(call->stream, s->t, y, d.n, d.c_out, sp);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_ADD_SCALAR, y, s->g, n, 3.0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, s->g, s->g, n, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, y, s->g, y, n);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_DIV_SCALAR, y, y, n, 6.0, 0);
  if (!rc)
    rc = cl1_op_binary_bcast(call->stream, CL1_BINARY_SUB, y, cont,
                             (const float *)call->params[2].data, zero, y, 3, dims);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, y, y, n, lo, hi);
  return rc;
}
