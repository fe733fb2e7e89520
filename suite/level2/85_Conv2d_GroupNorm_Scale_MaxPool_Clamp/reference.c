/* reference.c — level2/85_Conv2d_GroupNorm_Scale_MaxPool_Clamp, PyTorch eager order:
 * c = conv2d(x, W, conv.bias) into an intermediate, c = group_norm(c), c = c * scale (per
 * channel) in place, y = max_pool2d(c, p) into the output, y = clamp(y, lo, hi) in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *conv; /* (N, K, OH, OW) */
} ref_state;

typedef struct {
  cl1_conv2d_desc d;
  cl1_pool_desc p;
  int64_t groups;
  double eps, lo, hi;
} ref_dims;

static int ref_shapes(const cl1_call *call, ref_dims *r) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *sc = &call->params[4],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || sc->ndim != 3 || y->ndim != 4) return 1;
  double pk, g;
  if (cl1_op_attr(call, "num_groups", &g) || cl1_op_attr(call, "eps", &r->eps) ||
      cl1_op_attr(call, "maxpool_kernel_size", &pk) || cl1_op_attr(call, "clamp_min", &r->lo) ||
      cl1_op_attr(call, "clamp_max", &r->hi))
    return 1;
  cl1_conv2d_desc *d = &r->d;
  *d = (cl1_conv2d_desc){.n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                         .k = w->shape[0], .r = w->shape[2], .s = w->shape[3], .stride_h = 1,
                         .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
  if (w->shape[1] != d->c || d->r > d->h || d->s > d->w) return 1;
  for (int i = 1; i < 4; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != d->k) return 1;
  if (sc->shape[0] != d->k || sc->shape[1] != 1 || sc->shape[2] != 1) return 1;
  r->groups = (int64_t)g;
  if (r->groups < 1 || d->k % r->groups) return 1;
  int64_t oh = cl1_conv2d_out_h(d), ow = cl1_conv2d_out_w(d), k = (int64_t)pk;
  r->p = (cl1_pool_desc){.nsp = 2, .planes = d->n * d->k, .in = {oh, ow}, .k = {k, k},
                         .stride = {k, k}, .dil = {1, 1}};
  r->p.out[0] = cl1_pool_out_len(oh, k, k, 0, 1, 0);
  r->p.out[1] = cl1_pool_out_len(ow, k, k, 0, 1, 0);
  if (cl1_pool_desc_check(CL1_POOL_MAX, &r->p)) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->k || y->shape[2] != r->p.out[0] ||
      y->shape[3] != r->p.out[1])
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  ref_dims r;
  if (ref_shapes(call, &r)) return 1;
  ref_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->conv = cl1_op_alloc((size_t)(r.p.planes * r.p.in[0] * r.p.in[1]) * sizeof(float) + 4);
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
  const float *p[5];
  for (int i = 0; i < 5; i++) p[i] = (const float *)call->params[i].data;
  float *out = (float *)call->outputs[0].data;
  int64_t hw = r.p.in[0] * r.p.in[1];
  int rc = cl1_op_conv2d(st, (const float *)call->inputs[0].data, p[0], p[1], s->conv, &r.d);
  if (!rc) rc = cl1_op_groupnorm(st, s->conv, p[2], p[3], s->conv, r.d.n, r.d.k, hw, r.groups,
                                 r.eps);
  if (!rc) rc = cl1_op_mul_channel(st, s->conv, p[4], s->conv, r.d.n, r.d.k, hw);
  if (!rc) rc = cl1_op_pool(st, CL1_POOL_MAX, s->conv, out, &r.p);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_HARDTANH, out, out,
                             r.p.planes * r.p.out[0] * r.p.out[1], r.lo, r.hi);
  return rc;
}
