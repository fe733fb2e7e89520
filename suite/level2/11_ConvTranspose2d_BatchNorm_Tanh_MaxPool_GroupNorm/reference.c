/* reference.c — level2/11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm, PyTorch eager
 * order: conv_transpose2d(x, W, b) into scratch `conv`, batch_norm (training statistics) and
 * tanh in place there, max_pool2d(2, 2) into the output, group_norm in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *conv;  // (N, C, OH, OW)
} state11;

/* Fills the transposed-conv and pool descriptors from the shapes; 0 when they are valid. */
static int describe(const cl1_call *call, cl1_convt_desc *d, cl1_pool_desc *p) {
  if (call->n_inputs != 1 || call->n_params != 6 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0];
  if (x->ndim != 4 || w->ndim != 4) return 1;
  double stride, pad;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad)) return 1;
  *d = (cl1_convt_desc){.nd = 2, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  for (int i = 0; i < 2; i++) {
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i];
    d->stride[i] = (int64_t)stride, d->pad[i] = (int64_t)pad, d->out_pad[i] = 0, d->dil[i] = 1;
  }
  if (w->shape[0] != d->c_in || cl1_convt_check(d)) return 1;
  *p = (cl1_pool_desc){.nsp = 2, .planes = d->n * d->c_out};
  for (int i = 0; i < 2; i++) {
    p->in[i] = cl1_convt_out(d, i);
    p->k[i] = 2, p->stride[i] = 2, p->pad[i] = 0, p->dil[i] = 1;
    p->out[i] = cl1_pool_out_len(p->in[i], 2, 2, 0, 1, 0);
  }
  return cl1_pool_desc_check(CL1_POOL_MAX, p);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  cl1_pool_desc p;
  if (describe(call, &d, &p)) return 1;
  state11 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->conv = cl1_op_alloc((size_t)(d.n * d.c_out * p.in[0] * p.in[1]) * sizeof(float));
  if (!s->conv) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state11 *s = state;
  if (!s) return;
  cl1_op_free(s->conv);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  cl1_pool_desc p;
  if (!call->state || describe(call, &d, &p)) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *bw = &call->params[2], *bb = &call->params[3], *gw = &call->params[4],
                   *gb = &call->params[5], *y = &call->outputs[0];
  int64_t C = d.c_out;
  const cl1_tensor *vecs[] = {cb, bw, bb, gw, gb};
  for (int i = 0; i < 5; i++)
    if (vecs[i]->ndim != 1 || vecs[i]->shape[0] != C) return 1;
  if (y->ndim != 4 || y->shape[0] != d.n || y->shape[1] != C || y->shape[2] != p.out[0] ||
      y->shape[3] != p.out[1])
    return 1;
  double groups, eps;
  if (cl1_op_attr(call, "num_groups", &groups) || cl1_op_attr(call, "eps", &eps)) return 1;
  int64_t G = (int64_t)groups;
  if (G < 1 || C % G) return 1;
  const state11 *s = call->state;
  int64_t csp = p.in[0] * p.in[1], psp = p.out[0] * p.out[1];
  float *out = (float *)y->data;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)cb->data, s->conv, &d);
  if (!rc) rc = cl1_op_batchnorm_train(call->stream, s->conv, (const float *)bw->data,
                                       (const float *)bb->data, s->conv, d.n, C, csp, eps);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, s->conv, s->conv, d.n * C * csp, 0, 0);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->conv, out, &p);
  if (!rc) rc = cl1_op_groupnorm(call->stream, out, (const float *)gw->data,
                                 (const float *)gb->data, out, d.n, C, psp, G, eps);
  return rc;
}
