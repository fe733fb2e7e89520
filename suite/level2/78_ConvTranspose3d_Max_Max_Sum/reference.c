/* reference.c — level2/78_ConvTranspose3d_Max_Max_Sum, PyTorch eager order: t =
 * conv_transpose3d(x, W, b) into scratch, p = max_pool3d(t, 2) into scratch, q =
 * max_pool3d(p, 3) into scratch, y = sum(q, dim=1). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t, *p, *q; } state78;

static int describe(const cl1_call *call, cl1_convt_desc *d, cl1_pool_desc *p1,
                    cl1_pool_desc *p2) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || y->ndim != 5) return 1;
  double stride, pad;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad)) return 1;
  *d = (cl1_convt_desc){.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  for (int i = 0; i < 3; i++)
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i], d->stride[i] = (int64_t)stride,
    d->pad[i] = (int64_t)pad, d->out_pad[i] = 0, d->dil[i] = 1;
  if (w->shape[0] != d->c_in || cl1_convt_check(d) || b->shape[0] != d->c_out) return 1;
  *p1 = (cl1_pool_desc){.nsp = 3, .planes = d->n * d->c_out};
  *p2 = *p1;
  for (int i = 0; i < 3; i++) {
    p1->in[i] = cl1_convt_out(d, i);
    p1->k[i] = p1->stride[i] = 2, p1->pad[i] = 0, p1->dil[i] = 1;
    p1->out[i] = cl1_pool_out_len(p1->in[i], 2, 2, 0, 1, 0);
    p2->in[i] = p1->out[i];
    p2->k[i] = p2->stride[i] = 3, p2->pad[i] = 0, p2->dil[i] = 1;
    p2->out[i] = cl1_pool_out_len(p2->in[i], 3, 3, 0, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, p1) || cl1_pool_desc_check(CL1_POOL_MAX, p2)) return 1;
  if (y->shape[0] != d->n || y->shape[1] != 1) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[2 + i] != p2->out[i]) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  cl1_pool_desc p1, p2;
  if (describe(call, &d, &p1, &p2)) return 1;
  int64_t nc = d.n * d.c_out;
  state78 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(nc * p1.in[0] * p1.in[1] * p1.in[2]) * sizeof(float));
  s->p = cl1_op_alloc((size_t)(nc * p1.out[0] * p1.out[1] * p1.out[2]) * sizeof(float));
  s->q = cl1_op_alloc((size_t)(nc * p2.out[0] * p2.out[1] * p2.out[2]) * sizeof(float));
  if (!s->t || !s->p || !s->q) {
    cl1_op_free(s->t), cl1_op_free(s->p), cl1_op_free(s->q), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state78 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->p);
  cl1_op_free(s->q);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  cl1_pool_desc p1, p2;
  const state78 *s = call->state;
  if (!s || describe(call, &d, &p1, &p2)) return 1;
  int64_t sp = p2.out[0] * p2.out[1] * p2.out[2];
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, s->t, &d);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->t, s->p, &p1);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->p, s->q, &p2);
  if (!rc)
    rc = cl1_op_reduce(call->stream, CL1_REDUCE_SUM, s->q, call->outputs[0].data, d.n, d.c_out, sp);
  return rc;
}
