/* reference.c — level2/20_ConvTranspose3d_Sum_ResidualAdd_Multiply_ResidualAdd, PyTorch eager
 * order: o = conv_transpose3d(x, W, b) into an intermediate (the detached clone original_x is o
 * itself: nothing writes it later); y = o + bias (per channel) into the output; then in place
 * y = y + o, y = y * o, y = y + o. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *o; } state20; /* o: like y, (N, C_out, OD, OH, OW) */

/* ConvTranspose3d(in, out, k, stride, padding, output_padding), dilation 1, groups 1, with
 * bias; checks y's shape and gives *numel = numel(y). */
static int convt_desc(const cl1_call *call, const cl1_tensor *x, const cl1_tensor *w,
                      const cl1_tensor *cb, const cl1_tensor *y, cl1_convt_desc *d,
                      int64_t *numel) {
  if (cb->ndim != 1) return 1;
  if (cl1_convt_desc_of(call, x, w, y, 3, d) || cb->shape[0] != d->c_out) return 1;
  *numel = d->n * d->c_out;
  for (int i = 0; i < 3; i++) *numel *= y->shape[2 + i];
  return 0;
}

static int dims_of(const cl1_call *call, cl1_convt_desc *d, int64_t *numel) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *b = &call->params[2];
  if (convt_desc(call, &call->inputs[0], &call->params[0], &call->params[1], &call->outputs[0], d,
                 numel))
    return 1;
  if (b->ndim != 4 || b->shape[0] != d->c_out || b->shape[1] != 1 || b->shape[2] != 1 ||
      b->shape[3] != 1)
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  int64_t n;
  if (dims_of(call, &d, &n)) return 1;
  state20 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->o = cl1_op_alloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  if (!s->o) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state20 *s = state;
  if (!s) return;
  cl1_op_free(s->o);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  int64_t n;
  const state20 *s = call->state;
  if (!s || dims_of(call, &d, &n)) return 1;
  float *out = (float *)call->outputs[0].data, *o = s->o;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, o, &d);
  if (!rc) rc = cl1_op_bias_add(call->stream, o, (const float *)call->params[2].data, out, d.n,
                                d.c_out, n / (d.n * d.c_out > 0 ? d.n * d.c_out : 1));
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_ADD, out, o, out, n);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, out, o, out, n);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_ADD, out, o, out, n);
  return rc;
}
