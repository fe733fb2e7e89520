/* reference.c — level2/47_Conv3d_Mish_Tanh, PyTorch eager order: y = conv3d(x, W, b) into the
 * output, then in place y = mish(y) (F.mish: one fused op, as in PyTorch) and y = tanh(y). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>

static int shapes(const cl1_call *call, cl1_convnd_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || y->ndim != 5) return 1;
  *d = (cl1_convnd_desc){.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                         .groups = 1};
  for (int i = 0; i < 3; i++) {
    d->in[i] = x->shape[2 + i], d->ker[i] = w->shape[2 + i];
    d->stride[i] = 1, d->pad[i] = 0, d->dil[i] = 1;
  }
  if (w->shape[1] != d->c || b->shape[0] != d->k || !cl1_convnd_valid(d)) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->k) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[2 + i] != cl1_convnd_out(d, i)) return 1;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convnd_desc d;
  if (shapes(call, &d)) return 1;
  float *out = (float *)call->outputs[0].data;
  int64_t n = cl1_op_numel(&call->outputs[0]);
  int rc = cl1_op_convnd(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         out, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MISH, out, out, n, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, out, out, n, 0, 0);
  return rc;
}
