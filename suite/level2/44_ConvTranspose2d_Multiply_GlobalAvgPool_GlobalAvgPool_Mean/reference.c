/* reference.c — level2/44_ConvTranspose2d_Multiply_GlobalAvgPool_GlobalAvgPool_Mean, PyTorch
 * eager order: c = conv_transpose2d(x, W, b) into an intermediate, c = c * multiplier in place,
 * m = mean(c, [2, 3]) into a second intermediate, y = mean(m, [2, 3]) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *c, *m; } ref_state; /* c: (N, C_out, OH, OW); m: (N, C_out) */

static int shapes(const cl1_call *call, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || b->ndim != 1 || y->ndim != 4) return 1;
  double s, p, op;
  if (cl1_op_attr(call, "stride", &s) || cl1_op_attr(call, "padding", &p) ||
      cl1_op_attr(call, "output_padding", &op))
    return 1;
  *d = (cl1_convt_desc){.nd = 2, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  if (w->shape[0] != d->c_in || b->shape[0] != d->c_out) return 1;
  for (int i = 0; i < 2; i++) {
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i], d->stride[i] = (int64_t)s;
    d->pad[i] = (int64_t)p, d->out_pad[i] = (int64_t)op, d->dil[i] = 1;
  }
  if (cl1_convt_check(d)) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->c_out || y->shape[2] != 1 || y->shape[3] != 1)
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  if (shapes(call, &d)) return 1;
  ref_state *st = malloc(sizeof *st);
  if (!st) return 1;
  int64_t planes = d.n * d.c_out;
  st->c = cl1_op_alloc((size_t)(planes * cl1_convt_out(&d, 0) * cl1_convt_out(&d, 1)) *
                       sizeof(float));
  st->m = cl1_op_alloc((size_t)planes * sizeof(float));
  if (!st->c || !st->m) return cl1_op_free(st->c), cl1_op_free(st->m), free(st), 1;
  *state = st;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *st = state;
  if (!st) return;
  cl1_op_free(st->c);
  cl1_op_free(st->m);
  free(st);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  if (shapes(call, &d) || !call->state) return 1;
  const ref_state *st = call->state;
  double mult;
  if (cl1_op_attr(call, "multiplier", &mult)) return 1;
  int64_t planes = d.n * d.c_out, sp = cl1_convt_out(&d, 0) * cl1_convt_out(&d, 1);
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, st->c, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, st->c, st->c, planes * sp, mult, 0);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, st->c, st->m, planes, sp, 1);
  if (!rc)
    rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, st->m, call->outputs[0].data, planes, 1, 1);
  return rc;
}
