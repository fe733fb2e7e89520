/* reference.c — level2/8_Conv3d_Divide_Max_GlobalAvgPool_BiasAdd_Sum, PyTorch eager order:
 * conv3d(x, W, b) into scratch `conv`, / divisor in place, max_pool3d into scratch `pool`,
 * adaptive avg pool to 1x1x1 (a mean over the pooled spatial dims) into scratch `avg`,
 * + bias (per channel) in place, sum over channels into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *conv;  // (N, C, OD, OH, OW)
  float *pool;  // (N, C, PD, PH, PW)
  float *avg;   // (N, C)
} state8;

/* Fills the conv and pool descriptors from the shapes; 0 when they are valid. */
static int describe(const cl1_call *call, cl1_convnd_desc *d, cl1_pool_desc *p) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0];
  if (x->ndim != 5 || w->ndim != 5) return 1;
  double ps;
  if (cl1_op_attr(call, "pool_size", &ps)) return 1;
  *d = (cl1_convnd_desc){.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                         .groups = 1};
  for (int i = 0; i < 3; i++) {
    d->in[i] = x->shape[2 + i], d->ker[i] = w->shape[2 + i];
    d->stride[i] = 1, d->pad[i] = 0, d->dil[i] = 1;
  }
  if (w->shape[1] != d->c || !cl1_convnd_valid(d)) return 1;
  *p = (cl1_pool_desc){.nsp = 3, .planes = d->n * d->k};
  for (int i = 0; i < 3; i++) {
    p->in[i] = cl1_convnd_out(d, i);
    p->k[i] = p->stride[i] = (int64_t)ps, p->pad[i] = 0, p->dil[i] = 1;
    p->out[i] = cl1_pool_out_len(p->in[i], p->k[i], p->stride[i], 0, 1, 0);
  }
  return cl1_pool_desc_check(CL1_POOL_MAX, p);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convnd_desc d;
  cl1_pool_desc p;
  if (describe(call, &d, &p)) return 1;
  int64_t nc = d.n * d.k, csp = p.in[0] * p.in[1] * p.in[2], psp = p.out[0] * p.out[1] * p.out[2];
  state8 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->conv = cl1_op_alloc((size_t)(nc * csp) * sizeof(float));
  s->pool = cl1_op_alloc((size_t)(nc * psp) * sizeof(float));
  s->avg = cl1_op_alloc((size_t)nc * sizeof(float));
  if (!s->conv || !s->pool || !s->avg) {
    cl1_op_free(s->conv), cl1_op_free(s->pool), cl1_op_free(s->avg), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state8 *s = state;
  if (!s) return;
  cl1_op_free(s->conv);
  cl1_op_free(s->pool);
  cl1_op_free(s->avg);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convnd_desc d;
  cl1_pool_desc p;
  if (!call->state || describe(call, &d, &p)) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *b = &call->params[2], *y = &call->outputs[0];
  if (cb->ndim != 1 || b->ndim != 4 || y->ndim != 4) return 1;
  if (cb->shape[0] != d.k || b->shape[0] != d.k || b->shape[1] != 1 || b->shape[2] != 1 ||
      b->shape[3] != 1)
    return 1;
  if (y->shape[0] != d.n || y->shape[1] != 1 || y->shape[2] != 1 || y->shape[3] != 1) return 1;
  double div, sum_dim;
  if (cl1_op_attr(call, "divisor", &div) || cl1_op_attr(call, "sum_dim", &sum_dim)) return 1;
  if (div == 0 || sum_dim != 1) return 1;
  const state8 *s = call->state;
  int64_t nc = d.n * d.k, csp = p.in[0] * p.in[1] * p.in[2], psp = p.out[0] * p.out[1] * p.out[2];
  int rc = cl1_op_convnd(call->stream, (const float *)x->data, (const float *)w->data,
                         (const float *)cb->data, s->conv, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, s->conv, s->conv, nc * csp,
                             1.0 / div, 0);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->conv, s->pool, &p);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, s->pool, s->avg, nc, psp, 1);
  if (!rc) rc = cl1_op_bias_add(call->stream, s->avg, (const float *)b->data, s->avg, d.n, d.k, 1);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_SUM, s->avg, y->data, d.n, d.k, 1);
  return rc;
}
