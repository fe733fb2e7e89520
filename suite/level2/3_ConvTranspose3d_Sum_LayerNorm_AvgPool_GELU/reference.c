/* reference.c — level2/3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU, PyTorch eager order:
 * conv_transpose3d(x, W, b) into scratch `conv`, + sum_weight (0-dim, one-channel broadcast) in
 * place, layer_norm over the last dim in place, avg_pool3d(2) into the output, exact GELU in
 * place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *conv;  // (N, C, 2D, 2H, 2W)
} state3;

/* Fills the transposed-conv descriptor from the shapes; 0 when it is valid. */
static int describe(const cl1_call *call, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0];
  return cl1_convt_desc_of(call, x, w, NULL, 3, d);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  if (describe(call, &d)) return 1;
  int64_t n = d.n * d.c_out * cl1_convt_out(&d, 0) * cl1_convt_out(&d, 1) * cl1_convt_out(&d, 2);
  state3 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->conv = cl1_op_alloc((size_t)n * sizeof(float));
  if (!s->conv) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state3 *s = state;
  if (!s) return;
  cl1_op_free(s->conv);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  if (!call->state || describe(call, &d)) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *sw = &call->params[2], *g = &call->params[3], *be = &call->params[4],
                   *y = &call->outputs[0];
  int64_t C = d.c_out;
  if (cb->ndim != 1 || cb->shape[0] != C || cl1_op_numel(sw) != 1 || g->ndim != 1 ||
      be->ndim != 1 || y->ndim != 5)
    return 1;
  double pk, eps;
  if (cl1_op_attr(call, "pool_kernel_size", &pk) || cl1_op_attr(call, "eps", &eps)) return 1;
  // LayerNorm((C,)) normalises the last dim, so it must have C entries (PyTorch raises else).
  int64_t ow = cl1_convt_out(&d, 2);
  if (g->shape[0] != ow || be->shape[0] != ow || ow != C) return 1;
  cl1_pool_desc p = {.nsp = 3, .planes = d.n * C};
  for (int i = 0; i < 3; i++) {
    p.in[i] = cl1_convt_out(&d, i);
    p.k[i] = p.stride[i] = (int64_t)pk, p.pad[i] = 0, p.dil[i] = 1;
    p.out[i] = cl1_pool_out_len(p.in[i], p.k[i], p.stride[i], 0, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_AVG, &p)) return 1;
  if (y->shape[0] != d.n || y->shape[1] != C) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[2 + i] != p.out[i]) return 1;
  const state3 *s = call->state;
  int64_t n = d.n * C * p.in[0] * p.in[1] * p.in[2];
  float *out = (float *)y->data;
  int rc = cl1_op_convtnd(call->stream, (const float *)x->data, (const float *)w->data,
                          (const float *)cb->data, s->conv, &d);
  if (!rc) rc = cl1_op_bias_add(call->stream, s->conv, (const float *)sw->data, s->conv, n, 1, 1);
  if (!rc) rc = cl1_op_layernorm(call->stream, s->conv, (const float *)g->data,
                                 (const float *)be->data, s->conv, n / ow, ow, eps);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_AVG, s->conv, out, &p);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, out, out, cl1_op_numel(y), 0, 0);
  return rc;
}
