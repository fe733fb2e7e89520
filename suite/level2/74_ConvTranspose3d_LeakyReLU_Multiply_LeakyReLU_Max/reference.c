/* reference.c — level2/74_ConvTranspose3d_LeakyReLU_Multiply_LeakyReLU_Max, PyTorch eager
 * order: c = conv_transpose3d(x, W, b) into an intermediate, c = leaky_relu(c) in place,
 * c = c * multiplier (per channel) in place, c = leaky_relu(c) in place, y = max_pool3d(c) into
 * the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *c; } ref_state; /* c: (N, C_out, OD, OH, OW) */

static int shapes(const cl1_call *call, cl1_convt_desc *d, cl1_pool_desc *pd) {
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *m = &call->params[2], *y = &call->outputs[0];
  if (cb->ndim != 1 || m->ndim != 4 || y->ndim != 5) return 1;
  double pk;
  if (cl1_op_attr(call, "pool_kernel_size", &pk)) return 1;
  if (cl1_convt_desc_of(call, x, w, NULL, 3, d)) return 1;
  if (cb->shape[0] != d->c_out || m->shape[0] != d->c_out || m->shape[1] != 1 ||
      m->shape[2] != 1 || m->shape[3] != 1)
    return 1;
  *pd = (cl1_pool_desc){.nsp = 3, .planes = d->n * d->c_out};
  for (int i = 0; i < 3; i++) {
    pd->in[i] = cl1_convt_out(d, i), pd->k[i] = pd->stride[i] = (int64_t)pk, pd->dil[i] = 1;
    pd->out[i] = cl1_pool_out_len(pd->in[i], pd->k[i], pd->stride[i], 0, 1, 0);
    if (y->shape[2 + i] != pd->out[i]) return 1;
  }
  if (y->shape[0] != d->n || y->shape[1] != d->c_out) return 1;
  return cl1_pool_desc_check(CL1_POOL_MAX, pd);
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
  double slope;
  if (shapes(call, &d, &pd) || !call->state || cl1_op_attr(call, "negative_slope", &slope))
    return 1;
  const ref_state *st = call->state;
  int64_t vol = pd.in[0] * pd.in[1] * pd.in[2], n = pd.planes * vol;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, st->c, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_LEAKY_RELU, st->c, st->c, n, slope, 0);
  if (!rc)
    rc = cl1_op_mul_channel(call->stream, st->c, (const float *)call->params[2].data, st->c, d.n,
                            d.c_out, vol);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_LEAKY_RELU, st->c, st->c, n, slope, 0);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, st->c, call->outputs[0].data, &pd);
  return rc;
}
