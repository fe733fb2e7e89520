/* reference.c — level2/48_Conv3d_Scaling_Tanh_Multiply_Sigmoid, PyTorch eager order:
 * y = conv3d(x, W, b) into the output, then in place: * scaling_factor (per channel), tanh,
 * * bias (per channel), sigmoid. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

static int is_channel_param(const cl1_tensor *t, int64_t k) {
  return t->ndim == 4 && t->shape[0] == k && t->shape[1] == 1 && t->shape[2] == 1 &&
         t->shape[3] == 1;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *sc = &call->params[2], *bi = &call->params[3], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || y->ndim != 5) return 1;
  cl1_convnd_desc d = {.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                       .groups = 1};
  for (int i = 0; i < 3; i++) {
    d.in[i] = x->shape[2 + i], d.ker[i] = w->shape[2 + i];
    d.stride[i] = 1, d.pad[i] = 0, d.dil[i] = 1;
  }
  if (w->shape[1] != d.c || b->shape[0] != d.k || !cl1_convnd_valid(&d)) return 1;
  if (!is_channel_param(sc, d.k) || !is_channel_param(bi, d.k)) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.k) return 1;
  int64_t sp = 1;
  for (int i = 0; i < 3; i++) {
    if (y->shape[2 + i] != cl1_convnd_out(&d, i)) return 1;
    sp *= y->shape[2 + i];
  }
  float *out = (float *)y->data;
  int64_t n = cl1_op_numel(y);
  int rc = cl1_op_convnd(call->stream, (const float *)x->data, (const float *)w->data,
                         (const float *)b->data, out, &d);
  if (!rc) rc = cl1_op_mul_channel(call->stream, out, (const float *)sc->data, out, d.n, d.k, sp);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, out, out, n, 0, 0);
  if (!rc) rc = cl1_op_mul_channel(call->stream, out, (const float *)bi->data, out, d.n, d.k, sp);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, out, out, n, 0, 0);
  return rc;
}
