/* reference.c — level2/13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling, PyTorch eager order:
 * t = conv_transpose3d(x, W, b) into scratch, m = mean(t, dim=2) into scratch, m = m + bias
 * (per channel) in place, y = softmax(m, dim=1), y = tanh(y), y = y * scaling_factor. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;  // (N, C_out, D', H', W')
  float *m;  // (N, C_out, 1, H', W')
} state13;

static int describe(const cl1_call *call, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *bias = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || bias->ndim != 5 || y->ndim != 5) return 1;
  double stride, pad;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad)) return 1;
  *d = (cl1_convt_desc){.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  for (int i = 0; i < 3; i++)
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i], d->stride[i] = (int64_t)stride,
    d->pad[i] = (int64_t)pad, d->out_pad[i] = 0, d->dil[i] = 1;
  if (w->shape[0] != d->c_in || cl1_convt_check(d) || b->shape[0] != d->c_out) return 1;
  if (cl1_op_numel(bias) != d->c_out || bias->shape[1] != d->c_out) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->c_out || y->shape[2] != 1 ||
      y->shape[3] != cl1_convt_out(d, 1) || y->shape[4] != cl1_convt_out(d, 2))
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  if (describe(call, &d)) return 1;
  int64_t m = cl1_op_numel(&call->outputs[0]);
  state13 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(m * cl1_convt_out(&d, 0)) * sizeof(float));
  s->m = cl1_op_alloc((size_t)m * sizeof(float));
  if (!s->t || !s->m) {
    cl1_op_free(s->t), cl1_op_free(s->m), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state13 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->m);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  const state13 *s = call->state;
  double scale;
  if (!s || describe(call, &d) || cl1_op_attr(call, "scaling_factor", &scale)) return 1;
  int64_t n = cl1_op_numel(&call->outputs[0]), plane = n / (d.n * d.c_out);
  float *y = (float *)call->outputs[0].data;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, s->t, &d);
  if (!rc)
    rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, s->t, s->m, d.n * d.c_out,
                       cl1_convt_out(&d, 0), plane);
  if (!rc)
    rc = cl1_op_bias_add(call->stream, s->m, (const float *)call->params[2].data, s->m, d.n,
                         d.c_out, plane);
  if (!rc) rc = cl1_op_softmax_dim(call->stream, s->m, y, d.n, d.c_out, plane);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, y, y, n, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, y, y, n, scale, 0);
  return rc;
}
