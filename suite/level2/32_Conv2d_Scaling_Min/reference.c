/* reference.c — level2/32_Conv2d_Scaling_Min, PyTorch eager order: t = conv2d(x, W, b) into an
 * intermediate, t = t * scale_factor in place, y = min over channels of t (keepdim). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state32; /* t: (N, K, OH, OW) */

/* Conv2d(in, out, k) with the defaults stride 1, padding 0, dilation 1, groups 1. */
static int conv_desc(const cl1_tensor *x, const cl1_tensor *w, const cl1_tensor *cb,
                     cl1_conv2d_desc *d) {
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1) return 1;
  *d = (cl1_conv2d_desc){.n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                         .k = w->shape[0], .r = w->shape[2], .s = w->shape[3], .stride_h = 1,
                         .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
  if (w->shape[1] != d->c || cb->shape[0] != d->k) return 1;
  if (d->h < d->r || d->w < d->s) return 1;
  return 0;
}

static int dims_of(const cl1_call *call, cl1_conv2d_desc *d, int64_t *hw) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *y = &call->outputs[0];
  if (conv_desc(&call->inputs[0], &call->params[0], &call->params[1], d) || y->ndim != 4) return 1;
  int64_t oh = cl1_conv2d_out_h(d), ow = cl1_conv2d_out_w(d);
  if (y->shape[0] != d->n || y->shape[1] != 1 || y->shape[2] != oh || y->shape[3] != ow) return 1;
  *hw = oh * ow;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc d;
  int64_t hw;
  if (dims_of(call, &d, &hw)) return 1;
  state32 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(d.n * d.k * hw > 0 ? d.n * d.k * hw : 1) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state32 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_conv2d_desc d;
  int64_t hw;
  const state32 *s = call->state;
  if (!s || dims_of(call, &d, &hw)) return 1;
  double scale;
  if (cl1_op_attr(call, "scale_factor", &scale)) return 1;
  float *t = s->t;
  int rc = cl1_op_conv2d(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         t, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, t, t, d.n * d.k * hw, scale, 0);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MIN, t, call->outputs[0].data, d.n, d.k, hw);
  return rc;
}
