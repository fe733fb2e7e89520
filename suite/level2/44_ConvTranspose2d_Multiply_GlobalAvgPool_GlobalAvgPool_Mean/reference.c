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
  if (b->ndim != 1 || y->ndim != 4) return 1;
  if (cl1_convt_desc_of(call, x, w, NULL, 2, d) || b->shape[0] != d->c_out) return 1;
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
