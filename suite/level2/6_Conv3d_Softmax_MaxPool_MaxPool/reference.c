/* reference.c — level2/6_Conv3d_Softmax_MaxPool_MaxPool, PyTorch eager order: t = conv3d(x, W,
 * b) into scratch, u = softmax(t, dim=1) into scratch, p = max_pool3d(u) into scratch,
 * y = max_pool3d(p). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t, *u;  // (N, K, D', H', W')
  float *p;      // (N, K, D'/p, H'/p, W'/p)
} state6;

static int describe(const cl1_call *call, cl1_convnd_desc *d, cl1_pool_desc *p1,
                    cl1_pool_desc *p2) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || y->ndim != 5) return 1;
  double pk;
  if (cl1_op_attr(call, "pool_kernel_size", &pk)) return 1;
  *d = (cl1_convnd_desc){.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                         .groups = 1};
  for (int i = 0; i < 3; i++)
    d->in[i] = x->shape[2 + i], d->ker[i] = w->shape[2 + i], d->stride[i] = 1, d->pad[i] = 0,
    d->dil[i] = 1;
  if (!cl1_convnd_valid(d) || w->shape[1] != d->c || b->shape[0] != d->k) return 1;
  *p1 = (cl1_pool_desc){.nsp = 3, .planes = d->n * d->k};
  for (int i = 0; i < 3; i++) {
    p1->in[i] = cl1_convnd_out(d, i);
    p1->k[i] = p1->stride[i] = (int64_t)pk, p1->pad[i] = 0, p1->dil[i] = 1;
    p1->out[i] = cl1_pool_out_len(p1->in[i], p1->k[i], p1->stride[i], 0, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, p1)) return 1;
  *p2 = *p1;
  for (int i = 0; i < 3; i++) {
    p2->in[i] = p1->out[i];
    p2->out[i] = cl1_pool_out_len(p2->in[i], p2->k[i], p2->stride[i], 0, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, p2)) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->k) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[2 + i] != p2->out[i]) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convnd_desc d;
  cl1_pool_desc p1, p2;
  if (describe(call, &d, &p1, &p2)) return 1;
  int64_t nk = d.n * d.k, nt = nk * p1.in[0] * p1.in[1] * p1.in[2];
  state6 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)nt * sizeof(float));
  s->u = cl1_op_alloc((size_t)nt * sizeof(float));
  s->p = cl1_op_alloc((size_t)(nk * p1.out[0] * p1.out[1] * p1.out[2]) * sizeof(float));
  if (!s->t || !s->u || !s->p) {
    cl1_op_free(s->t), cl1_op_free(s->u), cl1_op_free(s->p), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state6 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->u);
  cl1_op_free(s->p);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convnd_desc d;
  cl1_pool_desc p1, p2;
  const state6 *s = call->state;
  if (!s || describe(call, &d, &p1, &p2)) return 1;
  int64_t sp = p1.in[0] * p1.in[1] * p1.in[2];
  int rc = cl1_op_convnd(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->t, &d);
  if (!rc) rc = cl1_op_softmax_dim(call->stream, s->t, s->u, d.n, d.k, sp);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->u, s->p, &p1);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->p, (float *)call->outputs[0].data, &p2);
  return rc;
}
