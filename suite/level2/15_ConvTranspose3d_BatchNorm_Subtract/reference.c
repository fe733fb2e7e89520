/* reference.c — level2/15_ConvTranspose3d_BatchNorm_Subtract, PyTorch eager order:
 * y = conv_transpose3d(x, W, b) into the output, batch_norm (training statistics) in place,
 * m = mean over (D, H, W) into a (N, C) scratch, y = y - m (as y + (-m), negation exact). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *mean;  // (N, C): per-(sample, channel) spatial mean, then negated
} state15;

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  if (call->n_outputs != 1 || call->outputs[0].ndim != 5) return 1;
  state15 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  const cl1_tensor *y = &call->outputs[0];
  s->mean = cl1_op_alloc((size_t)(y->shape[0] * y->shape[1]) * sizeof(float));
  if (!s->mean) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state15 *s = state;
  if (!s) return;
  cl1_op_free(s->mean);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1 || !call->state)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *g = &call->params[2], *be = &call->params[3], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || cb->ndim != 1 || g->ndim != 1 || be->ndim != 1 ||
      y->ndim != 5)
    return 1;
  double stride, pad, eps;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "eps", &eps))
    return 1;
  cl1_convt_desc d = {.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                      .groups = 1};
  for (int i = 0; i < 3; i++) {
    d.in[i] = x->shape[2 + i], d.k[i] = w->shape[2 + i];
    d.stride[i] = (int64_t)stride, d.pad[i] = (int64_t)pad, d.out_pad[i] = 0, d.dil[i] = 1;
  }
  if (w->shape[0] != d.c_in || cl1_convt_check(&d)) return 1;
  int64_t C = d.c_out;
  if (cb->shape[0] != C || g->shape[0] != C || be->shape[0] != C) return 1;
  if (y->shape[0] != d.n || y->shape[1] != C) return 1;
  int64_t sp = 1;
  for (int i = 0; i < 3; i++) {
    if (y->shape[2 + i] != cl1_convt_out(&d, i)) return 1;
    sp *= y->shape[2 + i];
  }
  const state15 *s = call->state;
  float *out = (float *)y->data;
  int64_t nc = d.n * C;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)cb->data, out, &d);
  if (!rc) rc = cl1_op_batchnorm_train(call->stream, out, (const float *)g->data,
                                       (const float *)be->data, out, d.n, C, sp, eps);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, out, s->mean, nc, sp, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, s->mean, s->mean, nc, -1.0, 0);
  if (!rc) rc = cl1_op_bias_add(call->stream, out, s->mean, out, 1, nc, sp);
  return rc;
}
