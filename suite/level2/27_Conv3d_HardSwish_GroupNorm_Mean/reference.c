/* reference.c — level2/27_Conv3d_HardSwish_GroupNorm_Mean, PyTorch eager order:
 * t = conv3d(x, W, b) into an intermediate; t = hardswish(t) in place (F.hardswish: one fused
 * op, as in PyTorch); t = group_norm(t) in place; y = mean of t over the spatial dims. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state27; /* t: (N, K, OD, OH, OW) */

/* Conv3d(in, out, k) with the defaults stride 1, padding 0, dilation 1, groups 1; *sp = OD*OH*OW */
static int dims_of(const cl1_call *call, cl1_convnd_desc *d, int64_t *sp) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *g = &call->params[2], *be = &call->params[3], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || cb->ndim != 1 || g->ndim != 1 || be->ndim != 1 ||
      y->ndim != 2)
    return 1;
  *d = (cl1_convnd_desc){.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                         .groups = 1};
  for (int i = 0; i < 3; i++)
    d->in[i] = x->shape[2 + i], d->ker[i] = w->shape[2 + i], d->stride[i] = 1, d->pad[i] = 0,
    d->dil[i] = 1;
  if (!cl1_convnd_valid(d) || w->shape[1] != d->c || cb->shape[0] != d->k ||
      g->shape[0] != d->k || be->shape[0] != d->k || y->shape[0] != d->n ||
      y->shape[1] != d->k)
    return 1;
  *sp = 1;
  for (int i = 0; i < 3; i++) *sp *= cl1_convnd_out(d, i);
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convnd_desc d;
  int64_t sp;
  if (dims_of(call, &d, &sp)) return 1;
  state27 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  size_t bytes = (size_t)(d.n * d.k * sp > 0 ? d.n * d.k * sp : 1) * sizeof(float);
  s->t = cl1_op_alloc(bytes);
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state27 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convnd_desc d;
  int64_t sp;
  const state27 *s = call->state;
  if (!s || dims_of(call, &d, &sp)) return 1;
  double groups, eps;
  if (cl1_op_attr(call, "num_groups", &groups) || cl1_op_attr(call, "eps", &eps)) return 1;
  int64_t G = (int64_t)groups;
  if (G < 1 || d.k % G) return 1;
  float *t = s->t;
  int rc = cl1_op_convnd(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         t, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDSWISH, t, t, d.n * d.k * sp, 0, 0);
  if (!rc) rc = cl1_op_groupnorm(call->stream, t, (const float *)call->params[2].data,
                                 (const float *)call->params[3].data, t, d.n, d.k, sp, G, eps);
  // mean over dims [2, 3, 4]: (N*K, sp, 1)
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, t, call->outputs[0].data, d.n * d.k,
                              sp, 1);
  return rc;
}
