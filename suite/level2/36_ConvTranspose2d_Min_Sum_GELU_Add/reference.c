/* reference.c — level2/36_ConvTranspose2d_Min_Sum_GELU_Add, PyTorch eager order:
 * c = conv_transpose2d(x, W, b) into an intermediate, m = min(c, dim=1) into a second one,
 * y = sum(m, dim=2) into the output, then in place gelu (exact) and + bias (a single value,
 * added as a one-channel broadcast so that it is read on the device). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *c, *m; } ref_state; /* c: (N, C_out, OH, OW); m: (N, 1, OH, OW) */

static int shapes(const cl1_call *call, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *bi = &call->params[2], *y = &call->outputs[0];
  if (b->ndim != 1 || y->ndim != 4) return 1;
  if (bi->ndim != 3 || cl1_op_numel(bi) != 1) return 1;
  /* NULL: y is the reduced (N, 1, 1, OW), not the conv's output */
  if (cl1_convt_desc_of(call, x, w, NULL, 2, d) || b->shape[0] != d->c_out) return 1;
  if (y->shape[0] != d->n || y->shape[1] != 1 || y->shape[2] != 1 ||
      y->shape[3] != cl1_convt_out(d, 1))
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  if (shapes(call, &d)) return 1;
  ref_state *st = malloc(sizeof *st);
  if (!st) return 1;
  int64_t sp = cl1_convt_out(&d, 0) * cl1_convt_out(&d, 1);
  st->c = cl1_op_alloc((size_t)(d.n * d.c_out * sp) * sizeof(float));
  st->m = cl1_op_alloc((size_t)(d.n * sp) * sizeof(float));
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
  int64_t oh = cl1_convt_out(&d, 0), ow = cl1_convt_out(&d, 1);
  float *out = (float *)call->outputs[0].data;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, st->c, &d);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MIN, st->c, st->m, d.n, d.c_out, oh * ow);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_SUM, st->m, out, d.n, oh, ow);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, out, out, d.n * ow, 0, 0);
  if (!rc)
    rc = cl1_op_bias_add(call->stream, out, (const float *)call->params[2].data, out, 1, 1,
                         d.n * ow);
  return rc;
}
