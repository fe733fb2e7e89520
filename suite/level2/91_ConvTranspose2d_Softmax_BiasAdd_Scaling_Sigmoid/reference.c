/* reference.c — level2/91_ConvTranspose2d_Softmax_BiasAdd_Scaling_Sigmoid, PyTorch eager order:
 * t = conv_transpose2d(x, W, b) into scratch, y = softmax(t, dim=1), then in place y = y + bias
 * (per channel), y = y * scaling_factor, y = sigmoid(y). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state91; /* (N, C_out, H', W') */

static int describe(const cl1_call *call, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (b->ndim != 1) return 1;
  if (cl1_convt_desc_of(call, x, w, y, 2, d) || b->shape[0] != d->c_out) return 1;
  const cl1_tensor *bias = &call->params[2];
  if (bias->ndim != 3 || bias->shape[0] != d->c_out || bias->shape[1] != 1 || bias->shape[2] != 1)
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  if (describe(call, &d)) return 1;
  state91 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)cl1_op_numel(&call->outputs[0]) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state91 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  const state91 *s = call->state;
  double scale;
  if (!s || describe(call, &d) || cl1_op_attr(call, "scaling_factor", &scale)) return 1;
  int64_t n = cl1_op_numel(&call->outputs[0]), sp = n / (d.n * d.c_out);
  float *y = (float *)call->outputs[0].data;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, s->t, &d);
  if (!rc) rc = cl1_op_softmax_dim(call->stream, s->t, y, d.n, d.c_out, sp);
  if (!rc)
    rc = cl1_op_bias_add(call->stream, y, (const float *)call->params[2].data, y, d.n, d.c_out, sp);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, y, y, n, scale, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, y, y, n, 0, 0);
  return rc;
}
