/* reference.c — level2/79_Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max, PyTorch eager order:
 * c = conv3d(x, W, conv.bias) into an intermediate, c = c * m (per channel), c = instance_norm(c),
 * c = clamp(c, lo, hi), c = c * m, all in place, y = max(c, dim 1) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *conv; /* (N, C, D', H', W') */
} ref_state;

typedef struct {
  cl1_convnd_desc d;
  int64_t sp; /* D' * H' * W' */
  double eps, lo, hi;
} ref_dims;

static int ref_shapes(const cl1_call *call, ref_dims *r) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *m = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || cb->ndim != 1 || m->ndim != 4 || y->ndim != 4) return 1;
  if (cl1_op_attr(call, "eps", &r->eps) || cl1_op_attr(call, "clamp_min", &r->lo) ||
      cl1_op_attr(call, "clamp_max", &r->hi))
    return 1;
  cl1_convnd_desc *d = &r->d;
  *d = (cl1_convnd_desc){.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                         .groups = 1};
  for (int i = 0; i < 3; i++) {
    d->in[i] = x->shape[2 + i], d->ker[i] = w->shape[2 + i];
    d->stride[i] = 1, d->pad[i] = 0, d->dil[i] = 1;
  }
  if (w->shape[1] != d->c || !cl1_convnd_valid(d)) return 1;
  if (cb->shape[0] != d->k || m->shape[0] != d->k || m->shape[1] != 1 || m->shape[2] != 1 ||
      m->shape[3] != 1)
    return 1;
  r->sp = 1;
  if (y->shape[0] != d->n) return 1;
  for (int i = 0; i < 3; i++) {
    if (y->shape[1 + i] != cl1_convnd_out(d, i)) return 1;
    r->sp *= cl1_convnd_out(d, i);
  }
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  ref_dims r;
  if (ref_shapes(call, &r)) return 1;
  ref_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->conv = cl1_op_alloc((size_t)(r.d.n * r.d.k * r.sp) * sizeof(float) + 4);
  if (!s->conv) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *s = state;
  if (!s) return;
  cl1_op_free(s->conv);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  ref_dims r;
  const ref_state *s = call->state;
  if (!s || ref_shapes(call, &r)) return 1;
  void *st = call->stream;
  const float *m = (const float *)call->params[2].data;
  int64_t N = r.d.n, C = r.d.k, n = N * C * r.sp;
  int rc = cl1_op_convnd(st, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->conv, &r.d);
  if (!rc) rc = cl1_op_mul_channel(st, s->conv, m, s->conv, N, C, r.sp);
  if (!rc) rc = cl1_op_groupnorm(st, s->conv, NULL, NULL, s->conv, N, C, r.sp, C, r.eps);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_HARDTANH, s->conv, s->conv, n, r.lo, r.hi);
  if (!rc) rc = cl1_op_mul_channel(st, s->conv, m, s->conv, N, C, r.sp);
  if (!rc) rc = cl1_op_reduce(st, CL1_REDUCE_MAX, s->conv, call->outputs[0].data, N, C, r.sp);
  return rc;
}
