/* reference.c — level2/96_ConvTranspose3d_Multiply_Max_GlobalAvgPool_Clamp, PyTorch eager
 * order: t = conv_transpose3d(x, W, b) into a scratch tensor, t = t * scale in place,
 * p = max_pool3d(t, k, k) into a second one, y = adaptive_avg_pool3d(p, 1) (a mean over the
 * spatial dims) into the output, y = clamp(y, 0, 1) in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  cl1_convt_desc cd;
  cl1_pool_desc pd;
  float *conv;  // (N, C_out, D', H', W')
  float *pool;  // (N, C_out, D'/k, H'/k, W'/k)
} state96;

CL1_EXPORT void cl1_teardown(void *state) {
  state96 *s = state;
  if (!s) return;
  cl1_op_free(s->conv);
  cl1_op_free(s->pool);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  if (call->n_inputs != 1 || call->n_params != 2) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0];
  if (x->ndim != 5 || w->ndim != 5) return 1;
  double stride, pad, pk;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "maxpool_kernel_size", &pk))
    return 1;
  state96 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  cl1_convt_desc *d = &s->cd;
  *d = (cl1_convt_desc){.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  cl1_pool_desc *p = &s->pd;
  *p = (cl1_pool_desc){.nsp = 3, .planes = d->n * d->c_out};
  for (int i = 0; i < 3; i++) {
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i];
    d->stride[i] = (int64_t)stride, d->pad[i] = (int64_t)pad, d->out_pad[i] = 0, d->dil[i] = 1;
  }
  if (w->shape[0] != d->c_in || cl1_convt_check(d)) return free(s), 1;
  int64_t cn = p->planes, pn = p->planes;
  for (int i = 0; i < 3; i++) {
    p->in[i] = cl1_convt_out(d, i), p->k[i] = p->stride[i] = (int64_t)pk, p->dil[i] = 1;
    p->out[i] = cl1_pool_out_len(p->in[i], p->k[i], p->stride[i], 0, 1, 0);
    cn *= p->in[i], pn *= p->out[i];
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, p)) return free(s), 1;
  s->conv = cl1_op_alloc((size_t)cn * sizeof(float));
  s->pool = cl1_op_alloc((size_t)pn * sizeof(float));
  if (!s->conv || !s->pool) return cl1_teardown(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1 || !call->state)
    return 1;
  const state96 *s = call->state;
  const cl1_convt_desc *d = &s->cd;
  const cl1_pool_desc *p = &s->pd;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 5 || b->ndim != 1 || b->shape[0] != d->c_out || y->ndim != 5) return 1;
  if (x->shape[0] != d->n || x->shape[1] != d->c_in || w->shape[1] != d->c_out) return 1;
  for (int i = 0; i < 3; i++)
    if (x->shape[2 + i] != d->in[i] || y->shape[2 + i] != 1) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->c_out) return 1;
  double scale;
  if (cl1_op_attr(call, "scale", &scale)) return 1;
  int64_t cn = p->planes * p->in[0] * p->in[1] * p->in[2];
  int64_t sp = p->out[0] * p->out[1] * p->out[2];
  float *out = (float *)y->data;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)b->data, s->conv, d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, s->conv, s->conv, cn, scale, 0);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->conv, s->pool, p);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, s->pool, out, p->planes, sp, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, out, out, p->planes, 0.0, 1.0);
  return rc;
}
