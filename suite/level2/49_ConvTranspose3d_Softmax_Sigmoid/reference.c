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
  if (b->ndim != 1) return 1;
  return cl1_convt_desc_of(call, x, w, y, 3, d) || b->shape[0] != d->c_out;
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
