/* reference.c — level2/10_ConvTranspose2d_MaxPool_Hardtanh_Mean_Tanh, PyTorch eager order:
 * conv_transpose2d(x, W, b) into scratch `conv`, max_pool2d into scratch `pool`, hardtanh in
 * place there, mean over (H, W) into the (N, C, 1, 1) output, tanh in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *conv;  // (N, C, OH, OW)
  float *pool;  // (N, C, PH, PW)
} state10;

/* Fills the transposed-conv and pool descriptors from the shapes; 0 when they are valid. */
static int describe(const cl1_call *call, cl1_convt_desc *d, cl1_pool_desc *p) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0];
  if (x->ndim != 4 || w->ndim != 4) return 1;
  double stride, pad, pk, pst;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "maxpool_kernel_size", &pk) || cl1_op_attr(call, "maxpool_stride", &pst))
    return 1;
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
    p->k[i] = (int64_t)pk, p->stride[i] = (int64_t)pst, p->pad[i] = 0, p->dil[i] = 1;
    p->out[i] = cl1_pool_out_len(p->in[i], p->k[i], p->stride[i], 0, 1, 0);
  }
  return cl1_pool_desc_check(CL1_POOL_MAX, p);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  cl1_pool_desc p;
  if (describe(call, &d, &p)) return 1;
  int64_t nc = d.n * d.c_out;
  state10 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->conv = cl1_op_alloc((size_t)(nc * p.in[0] * p.in[1]) * sizeof(float));
  s->pool = cl1_op_alloc((size_t)(nc * p.out[0] * p.out[1]) * sizeof(float));
  if (!s->conv || !s->pool) {
    cl1_op_free(s->conv), cl1_op_free(s->pool), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state10 *s = state;
  if (!s) return;
  cl1_op_free(s->conv);
  cl1_op_free(s->pool);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  cl1_pool_desc p;
  if (!call->state || describe(call, &d, &p)) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *y = &call->outputs[0];
  if (cb->ndim != 1 || cb->shape[0] != d.c_out || y->ndim != 4) return 1;
  if (y->shape[0] != d.n || y->shape[1] != d.c_out || y->shape[2] != 1 || y->shape[3] != 1)
    return 1;
  double lo, hi;
  if (cl1_op_attr(call, "hardtanh_min", &lo) || cl1_op_attr(call, "hardtanh_max", &hi)) return 1;
  const state10 *s = call->state;
  int64_t nc = d.n * d.c_out, psp = p.out[0] * p.out[1];
  float *out = (float *)y->data;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)cb->data, s->conv, &d);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->conv, s->pool, &p);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDTANH, s->pool, s->pool, nc * psp, lo, hi);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, s->pool, out, nc, psp, 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_TANH, out, out, nc, 0, 0);
  return rc;
}
