/* reference.c — level2/35_Conv2d_Subtract_HardSwish_MaxPool_Mish, PyTorch eager order:
 * c = conv2d(x, W, b) into an intermediate, then in place c = c - subtract_value and
 * c = hardswish(c); y = max_pool2d(c) into the output; y = mish(y) in place. F.hardswish and
 * F.mish are one fused op each, as in PyTorch. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

/* c: (N, K, OH, OW), the pool's input (the output is only (N, K, PH, PW)) */
typedef struct { float *c; } ref_state;

static int shapes(const cl1_call *call, cl1_conv2d_desc *d, cl1_pool_desc *pd) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || y->ndim != 4) return 1;
  double pk;
  if (cl1_op_attr(call, "pool_kernel_size", &pk) || pk < 1) return 1;
  *d = (cl1_conv2d_desc){.n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                         .k = w->shape[0], .r = w->shape[2], .s = w->shape[3],
                         .stride_h = 1, .stride_w = 1, .pad_h = 0, .pad_w = 0,
                         .dil_h = 1, .dil_w = 1, .groups = 1};
  if (w->shape[1] != d->c || d->h < d->r || d->w < d->s || cb->shape[0] != d->k) return 1;
  *pd = (cl1_pool_desc){.nsp = 2, .planes = d->n * d->k, .in = {cl1_conv2d_out_h(d),
                        cl1_conv2d_out_w(d)}, .ceil_mode = 0, .count_include_pad = 1};
  for (int i = 0; i < 2; i++) {
    pd->k[i] = pd->stride[i] = (int64_t)pk, pd->pad[i] = 0, pd->dil[i] = 1;
    pd->out[i] = cl1_pool_out_len(pd->in[i], pd->k[i], pd->stride[i], 0, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, pd)) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->k || y->shape[2] != pd->out[0] ||
      y->shape[3] != pd->out[1])
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc d;
  cl1_pool_desc pd;
  if (shapes(call, &d, &pd)) return 1;
  ref_state *st = malloc(sizeof *st);
  if (!st) return 1;
  st->c = cl1_op_alloc((size_t)(pd.planes * pd.in[0] * pd.in[1]) * sizeof(float));
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
  cl1_conv2d_desc d;
  cl1_pool_desc pd;
  if (shapes(call, &d, &pd) || !call->state) return 1;
  const ref_state *st = call->state;
  double sub;
  if (cl1_op_attr(call, "subtract_value", &sub)) return 1;
  int64_t nc = pd.planes * pd.in[0] * pd.in[1], np = pd.planes * pd.out[0] * pd.out[1];
  float *out = (float *)call->outputs[0].data;
  int rc = cl1_op_conv2d(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         st->c, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_ADD_SCALAR, st->c, st->c, nc, -sub, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_HARDSWISH, st->c, st->c, nc, 0, 0);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, st->c, out, &pd);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MISH, out, out, np, 0, 0);
  return rc;
}
