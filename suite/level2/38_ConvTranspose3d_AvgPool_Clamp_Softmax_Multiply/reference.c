/* reference.c — level2/38_ConvTranspose3d_AvgPool_Clamp_Softmax_Multiply (HEAD), PyTorch eager
 * order: p = avg_pool3d(x) into an intermediate, c = conv_transpose3d(p, W, b) into a second
 * one, c = clamp(c) in place, y = softmax over each (n, c) plane's D'*H'*W' values into the
 * output, y = y * scale (per channel) in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

/* p: (N, C_in, D/pk, H/pk, W/pk); c: (N, C_out, D', H', W') */
typedef struct { float *p, *c; } ref_state;

static int shapes(const cl1_call *call, cl1_pool_desc *pd, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *sc = &call->params[2], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || sc->ndim != 5 || y->ndim != 5) return 1;
  double s, p, op, pk;
  if (cl1_op_attr(call, "stride", &s) || cl1_op_attr(call, "padding", &p) ||
      cl1_op_attr(call, "output_padding", &op) || cl1_op_attr(call, "pool_kernel_size", &pk) ||
      pk < 1)
    return 1;
  *pd = (cl1_pool_desc){.nsp = 3, .planes = x->shape[0] * x->shape[1], .count_include_pad = 1};
  for (int i = 0; i < 3; i++) {
    pd->in[i] = x->shape[2 + i], pd->k[i] = pd->stride[i] = (int64_t)pk, pd->dil[i] = 1;
    pd->out[i] = cl1_pool_out_len(pd->in[i], pd->k[i], pd->stride[i], 0, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_AVG, pd)) return 1;
  *d = (cl1_convt_desc){.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  if (w->shape[0] != d->c_in || b->shape[0] != d->c_out) return 1;
  for (int i = 0; i < 3; i++) {
    d->in[i] = pd->out[i], d->k[i] = w->shape[2 + i], d->stride[i] = (int64_t)s;
    d->pad[i] = (int64_t)p, d->out_pad[i] = (int64_t)op, d->dil[i] = 1;
  }
  if (cl1_convt_check(d)) return 1;
  if (sc->shape[0] != 1 || sc->shape[1] != d->c_out || sc->shape[2] != 1 || sc->shape[3] != 1 ||
      sc->shape[4] != 1)
    return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->c_out) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[2 + i] != cl1_convt_out(d, i)) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_pool_desc pd;
  cl1_convt_desc d;
  if (shapes(call, &pd, &d)) return 1;
  ref_state *st = malloc(sizeof *st);
  if (!st) return 1;
  st->p = cl1_op_alloc((size_t)(pd.planes * pd.out[0] * pd.out[1] * pd.out[2]) * sizeof(float));
  st->c = cl1_op_alloc((size_t)cl1_op_numel(&call->outputs[0]) * sizeof(float));
  if (!st->p || !st->c) return cl1_op_free(st->p), cl1_op_free(st->c), free(st), 1;
  *state = st;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *st = state;
  if (!st) return;
  cl1_op_free(st->p);
  cl1_op_free(st->c);
  free(st);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_pool_desc pd;
  cl1_convt_desc d;
  if (shapes(call, &pd, &d) || !call->state) return 1;
  const ref_state *st = call->state;
  double lo, hi;
  if (cl1_op_attr(call, "clamp_min", &lo) || cl1_op_attr(call, "clamp_max", &hi)) return 1;
  const cl1_tensor *y = &call->outputs[0];
  int64_t n = cl1_op_numel(y), rows = d.n * d.c_out, sp = n / rows;
  float *out = (float *)y->data;
  int rc = cl1_op_pool(call->stream, CL1_POOL_AVG, (const float *)call->inputs[0].data, st->p,
                       &pd);
  if (!rc)
    rc = cl1_op_convtnd(call->stream, st->p, (const float *)call->params[0].data,
                        (const float *)call->params[1].data, st->c, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, st->c, st->c, n, lo, hi);
  if (!rc) rc = cl1_op_softmax(call->stream, st->c, out, rows, sp);
  if (!rc)
    rc = cl1_op_mul_channel(call->stream, out, (const float *)call->params[2].data, out, d.n,
                            d.c_out, sp);
  return rc;
}
