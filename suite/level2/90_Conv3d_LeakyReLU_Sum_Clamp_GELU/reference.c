/* reference.c — level2/90_Conv3d_LeakyReLU_Sum_Clamp_GELU, PyTorch eager order:
 * y = conv3d(x, W, b) into the output, then in place: leaky_relu(0.2), + sum_tensor (per
 * channel), clamp(-1, 1), exact GELU. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *st = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || st->ndim != 4 || y->ndim != 5) return 1;
  cl1_convnd_desc d = {.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                       .groups = 1};
  for (int i = 0; i < 3; i++) {
    d.in[i] = x->shape[2 + i], d.ker[i] = w->shape[2 + i];
    d.stride[i] = 1, d.pad[i] = 0, d.dil[i] = 1;
  }
  if (w->shape[1] != d.c || b->shape[0] != d.k || !cl1_convnd_valid(&d)) return 1;
  if (st->shape[0] != d.k || st->shape[1] != 1 || st->shape[2] != 1 || st->shape[3] != 1)
    return 1;
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
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_LEAKY_RELU, out, out, n, 0.2, 0);
  if (!rc) rc = cl1_op_bias_add(call->stream, out, (const float *)st->data, out, d.n, d.k, sp);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, n, -1.0, 1.0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, out, out, n, 0, 0);
  return rc;
}
