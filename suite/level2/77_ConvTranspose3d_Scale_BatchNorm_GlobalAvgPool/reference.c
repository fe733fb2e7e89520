/* reference.c — level2/77_ConvTranspose3d_Scale_BatchNorm_GlobalAvgPool, PyTorch eager order:
 * t = conv_transpose3d(x, W, b) into scratch, t = t * scale_factor, t = batch_norm(t) (batch
 * statistics) in place, y = mean of t over (D', H', W'). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state77; /* (N, C_out, D', H', W') */

static int describe(const cl1_call *call, cl1_convt_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || y->ndim != 5) return 1;
  *d = (cl1_convt_desc){.nd = 3, .n = x->shape[0], .c_in = x->shape[1], .c_out = w->shape[1],
                        .groups = 1};
  for (int i = 0; i < 3; i++)
    d->in[i] = x->shape[2 + i], d->k[i] = w->shape[2 + i], d->stride[i] = 1, d->pad[i] = 0,
    d->out_pad[i] = 0, d->dil[i] = 1;
  if (w->shape[0] != d->c_in || cl1_convt_check(d)) return 1;
  for (int i = 1; i < 4; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != d->c_out) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->c_out || y->shape[2] != 1 || y->shape[3] != 1 ||
      y->shape[4] != 1)
    return 1;
  return 0;
}

static int64_t spatial(const cl1_convt_desc *d) {
  return cl1_convt_out(d, 0) * cl1_convt_out(d, 1) * cl1_convt_out(d, 2);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  if (describe(call, &d)) return 1;
  state77 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(d.n * d.c_out * spatial(&d)) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state77 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  const state77 *s = call->state;
  double scale, eps;
  if (!s || describe(call, &d) || cl1_op_attr(call, "scale_factor", &scale) ||
      cl1_op_attr(call, "eps", &eps))
    return 1;
  int64_t sp = spatial(&d), nc = d.n * d.c_out;
  const cl1_tensor *p = call->params;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)p[0].data, (const float *)p[1].data, s->t, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, s->t, s->t, nc * sp, scale, 0);
  if (!rc)
    rc = cl1_op_batchnorm_train(call->stream, s->t, (const float *)p[2].data,
                                (const float *)p[3].data, s->t, d.n, d.c_out, sp, eps);
  if (!rc)
    rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, s->t, call->outputs[0].data, nc, sp, 1);
  return rc;
}
