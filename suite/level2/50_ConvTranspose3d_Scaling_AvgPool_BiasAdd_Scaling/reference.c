/* reference.c — level2/50_ConvTranspose3d_Scaling_AvgPool_BiasAdd_Scaling, PyTorch eager order:
 * c = conv_transpose3d(x, W, b) into an intermediate, c = c * scale1 in place, y =
 * avg_pool3d(c, 2) into the output, then in place y + bias (per channel) and y * scale2. The
 * 0-dim scales are multiplied as a one-channel broadcast so that they are read on the device. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *c; } ref_state; /* c: (N, C_out, OD, OH, OW) */

static int shapes(const cl1_call *call, cl1_convt_desc *d, cl1_pool_desc *pd) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *s1 = &call->params[2], *bi = &call->params[3], *s2 = &call->params[4],
                   *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || y->ndim != 5) return 1;
  if (cl1_op_numel(s1) != 1 || cl1_op_numel(s2) != 1) return 1;
  double s, p;
  if (cl1_op_attr(call, "stride", &s) || cl1_op_attr(call, "padding", &p)) return 1;
  *d = (cl1_convt_desc){.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  if (w->shape[0] != d->c_in || b->shape[0] != d->c_out) return 1;
  if (bi->ndim != 4 || bi->shape[0] != d->c_out || bi->shape[1] != 1 || bi->shape[2] != 1 ||
      bi->shape[3] != 1)
    return 1;
  for (int i = 0; i < 3; i++) {
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i], d->stride[i] = (int64_t)s;
    d->pad[i] = (int64_t)p, d->out_pad[i] = 0, d->dil[i] = 1;
  }
  if (cl1_convt_check(d)) return 1;
  *pd = (cl1_pool_desc){.nsp = 3, .planes = d->n * d->c_out, .count_include_pad = 1};
  for (int i = 0; i < 3; i++) {
    pd->in[i] = cl1_convt_out(d, i), pd->k[i] = pd->stride[i] = 2, pd->dil[i] = 1;
    pd->out[i] = cl1_pool_out_len(pd->in[i], 2, 2, 0, 1, 0);
    if (y->shape[2 + i] != pd->out[i]) return 1;
  }
  if (y->shape[0] != d->n || y->shape[1] != d->c_out) return 1;
  return cl1_pool_desc_check(CL1_POOL_AVG, pd);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  cl1_pool_desc pd;
  if (shapes(call, &d, &pd)) return 1;
  ref_state *st = malloc(sizeof *st);
  if (!st) return 1;
  st->c = cl1_op_alloc((size_t)(pd.planes * pd.in[0] * pd.in[1] * pd.in[2]) * sizeof(float));
  if (!st->c) return free(st), 1;
  *state = st;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *st = state;
  if (!st) return;
  cl1_op_free(st->c);
  free(st);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  cl1_pool_desc pd;
  if (shapes(call, &d, &pd) || !call->state) return 1;
  const ref_state *st = call->state;
  float *out = (float *)call->outputs[0].data;
  int64_t nc = pd.planes * pd.in[0] * pd.in[1] * pd.in[2];
  int64_t sp = pd.out[0] * pd.out[1] * pd.out[2];
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, st->c, &d);
  if (!rc)
    rc = cl1_op_mul_channel(call->stream, st->c, (const float *)call->params[2].data, st->c, 1,
                            1, nc);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_AVG, st->c, out, &pd);
  if (!rc)
    rc = cl1_op_bias_add(call->stream, out, (const float *)call->params[3].data, out, d.n,
                         d.c_out, sp);
  if (!rc)
    rc = cl1_op_mul_channel(call->stream, out, (const float *)call->params[4].data, out, 1, 1,
                            pd.planes * sp);
  return rc;
}
