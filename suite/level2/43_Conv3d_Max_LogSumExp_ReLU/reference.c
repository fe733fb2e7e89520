/* reference.c — level2/43_Conv3d_Max_LogSumExp_ReLU, PyTorch eager order: t = conv3d(x, W, b)
 * into scratch, p = max_pool3d(t, 2, 2) into scratch, y = logsumexp(p, dim=1), y = relu(y) in
 * place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;  // (N, K, D', H', W')
  float *p;  // (N, K, D'/2, H'/2, W'/2)
} state43;

static int describe(const cl1_call *call, cl1_convnd_desc *d, cl1_pool_desc *p) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || y->ndim != 5) return 1;
  double stride, pad;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad)) return 1;
  *d = (cl1_convnd_desc){.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                         .groups = 1};
  for (int i = 0; i < 3; i++)
    d->in[i] = x->shape[2 + i], d->ker[i] = w->shape[2 + i], d->stride[i] = (int64_t)stride,
    d->pad[i] = (int64_t)pad, d->dil[i] = 1;
  if (!cl1_convnd_valid(d) || w->shape[1] != d->c || b->shape[0] != d->k) return 1;
  *p = (cl1_pool_desc){.nsp = 3, .planes = d->n * d->k};
  for (int i = 0; i < 3; i++) {
    p->in[i] = cl1_convnd_out(d, i);
    p->k[i] = p->stride[i] = 2, p->pad[i] = 0, p->dil[i] = 1;
    p->out[i] = cl1_pool_out_len(p->in[i], 2, 2, 0, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, p)) return 1;
  if (y->shape[0] != d->n || y->shape[1] != 1) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[2 + i] != p->out[i]) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convnd_desc d;
  cl1_pool_desc p;
  if (describe(call, &d, &p)) return 1;
  int64_t nk = d.n * d.k;
  state43 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(nk * p.in[0] * p.in[1] * p.in[2]) * sizeof(float));
  s->p = cl1_op_alloc((size_t)(nk * p.out[0] * p.out[1] * p.out[2]) * sizeof(float));
  if (!s->t || !s->p) {
    cl1_op_free(s->t), cl1_op_free(s->p), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state43 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->p);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convnd_desc d;
  cl1_pool_desc p;
  const state43 *s = call->state;
  if (!s || describe(call, &d, &p)) return 1;
  int64_t sp = p.out[0] * p.out[1] * p.out[2];
  float *y = (float *)call->outputs[0].data;
  int rc = cl1_op_convnd(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->t, &d);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->t, s->p, &p);
  if (!rc) rc = cl1_op_logsumexp(call->stream, s->p, y, d.n, d.k, sp);
  if (!rc) rc = cl1_op_relu(call->stream, y, y, d.n * sp);
  return rc;
}
