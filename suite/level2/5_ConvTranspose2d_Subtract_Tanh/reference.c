/* reference.c — level2/5_ConvTranspose2d_Subtract_Tanh, PyTorch eager order:
 * y = conv_transpose2d(x, W, b) into the output, then in place y = y - bias (per channel, as
 * y + (-bias) with an exact negated copy of the bias) and y = tanh(y). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *neg_bias;  // (out_channels): -bias
} state5;

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  if (call->n_params != 3) return 1;
  state5 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->neg_bias = cl1_op_alloc((size_t)cl1_op_numel(&call->params[2]) * sizeof(float));
  if (!s->neg_bias) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state5 *s = state;
  if (!s) return;
  cl1_op_free(s->neg_bias);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1 || !call->state)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *b = &call->params[2], *y = &call->outputs[0];
  if (cb->ndim != 1 || b->ndim != 3) return 1;
  cl1_convt_desc d;
  if (cl1_convt_desc_of(call, x, w, y, 2, &d) || cb->shape[0] != d.c_out) return 1;
  if (b->shape[0] != d.c_out || b->shape[1] != 1 || b->shape[2] != 1) return 1;
  const state5 *s = call->state;
  float *out = (float *)y->data;
  int64_t hw = y->shape[2] * y->shape[3], n = d.n * d.c_out * hw;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)cb->data, out, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, (const float *)b->data,
                             s->neg_bias, d.c_out, -1.0, 0);
  if (!rc) rc = cl1_op_bias_add(call->stream, out, s->neg_bias, out, d.n, d.c_out, hw);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, out, out, n, 0, 0);
  return rc;
}
