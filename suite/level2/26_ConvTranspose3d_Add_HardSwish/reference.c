/* reference.c — level2/26_ConvTranspose3d_Add_HardSwish, PyTorch eager order:
 * y = conv_transpose3d(x, W, b) into the output; y = y + add_input in place;
 * h = hardswish(y) into an intermediate (F.hardswish: one fused op, as in PyTorch; y is still
 * needed); y = y * h in place. The module's `bias` parameter is never used by forward. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *h; } state26; /* h: like y, (N, C_out, OD, OH, OW) */

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
  if (call->n_inputs != 2 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *a = &call->inputs[1], *y = &call->outputs[0];
  if (convt_desc(call, &call->inputs[0], &call->params[0], &call->params[1], y, d, numel))
    return 1;
  if (a->ndim != 5) return 1;
  for (int i = 0; i < 5; i++)
    if (a->shape[i] != y->shape[i]) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  int64_t n;
  if (dims_of(call, &d, &n)) return 1;
  state26 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->h = cl1_op_alloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  if (!s->h) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state26 *s = state;
  if (!s) return;
  cl1_op_free(s->h);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  int64_t n;
  const state26 *s = call->state;
  if (!s || dims_of(call, &d, &n)) return 1;
  float *out = (float *)call->outputs[0].data, *h = s->h;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, out, &d);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_ADD, out,
                              (const float *)call->inputs[1].data, out, n);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDSWISH, out, h, n, 0, 0);
  if (!rc) rc = cl1_op_binary(call->stream, CL1_BINARY_MUL, out, h, out, n);
  return rc;
}
