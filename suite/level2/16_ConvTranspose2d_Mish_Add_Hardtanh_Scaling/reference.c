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
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || y->ndim != 4) return 1;
  double stride, pad, opad, addv, scale;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "output_padding", &opad) || cl1_op_attr(call, "add_value", &addv) ||
      cl1_op_attr(call, "scale", &scale))
    return 1;
  cl1_convt_desc d = {.nd = 2, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                      .groups = 1};
  for (int i = 0; i < 2; i++) {
    d.in[i] = x->shape[2 + i], d.k[i] = w->shape[2 + i];
    d.stride[i] = (int64_t)stride, d.pad[i] = (int64_t)pad, d.out_pad[i] = (int64_t)opad;
    d.dil[i] = 1;
  }
  if (w->shape[0] != d.c_in || cb->shape[0] != d.c_out || cl1_convt_check(&d)) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.c_out) return 1;
  for (int i = 0; i < 2; i++)
    if (y->shape[2 + i] != cl1_convt_out(&d, i)) return 1;
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
