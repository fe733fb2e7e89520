/* reference.c — level2/16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling, PyTorch eager order:
 * t = conv_transpose2d(x, W, b) into the output; mish(t) = t * tanh(softplus(t)) composed from
 * existing ops through a scratch tensor; then in place + add_value, hardtanh(-1, 1), * scale. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *tmp;  // (N, C_out, OH, OW): tanh(softplus(t))
} state16;

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  if (call->n_outputs != 1) return 1;
  state16 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->tmp = cl1_op_alloc((size_t)cl1_op_numel(&call->outputs[0]) * sizeof(float));
  if (!s->tmp) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state16 *s = state;
  if (!s) return;
  cl1_op_free(s->tmp);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1 || !call->state)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *y = &call->outputs[0];
  if (cb->ndim != 1) return 1;
  double addv, scale;
  if (cl1_op_attr(call, "add_value", &addv) || cl1_op_attr(call, "scale", &scale)) return 1;
  cl1_convt_desc d;
  if (cl1_convt_desc_of(call, x, w, y, 2, &d) || cb->shape[0] != d.c_out) return 1;
  const state16 *s = call->state;
  float *out = (float *)y->data;
  int64_t n = cl1_op_numel(y);
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)cb->data, out, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SOFTPLUS, out, s->tmp, n, 1.0, 20.0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, s->tmp, s->tmp, n, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, out, s->tmp, out, n);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_ADD_SCALAR, out, out, n, addv, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, n, -1.0, 1.0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, n, scale, 0);
  return rc;
}
