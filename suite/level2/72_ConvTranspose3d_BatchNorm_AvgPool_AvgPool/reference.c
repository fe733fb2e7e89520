/* reference.c — level2/72_ConvTranspose3d_BatchNorm_AvgPool_AvgPool, PyTorch eager order:
 * c = conv_transpose3d(x, W, b) into an intermediate, c = batch_norm(c) (training mode) in
 * place, p = avg_pool3d(c) into a second intermediate, y = avg_pool3d(p) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *c, *p; } ref_state; /* c: (N, C_out, OD, OH, OW); p: pooled once */

static int shapes(const cl1_call *call, cl1_convt_desc *d, cl1_pool_desc *p1, cl1_pool_desc *p2) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *y = &call->outputs[0];
  if (y->ndim != 5 || w->ndim != 5) return 1;
  for (int i = 1; i < 4; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != w->shape[1]) return 1;
  double pk;
  if (cl1_op_attr(call, "pool_kernel_size", &pk)) return 1;
  if (cl1_convt_desc_of(call, x, w, NULL, 3, d)) return 1;
  *p1 = (cl1_pool_desc){.nsp = 3, .planes = d->n * d->c_out, .count_include_pad = 1};
  for (int i = 0; i < 3; i++) {
    p1->in[i] = cl1_convt_out(d, i), p1->k[i] = p1->stride[i] = (int64_t)pk, p1->dil[i] = 1;
    p1->out[i] = cl1_pool_out_len(p1->in[i], p1->k[i], p1->stride[i], 0, 1, 0);
  }
  *p2 = *p1;
  for (int i = 0; i < 3; i++) {
    p2->in[i] = p1->out[i];
    p2->out[i] = cl1_pool_out_len(p2->in[i], p2->k[i], p2->stride[i], 0, 1, 0);
    if (y->shape[2 + i] != p2->out[i]) return 1;
  }
  if (y->shape[0] != d->n || y->shape[1] != d->c_out) return 1;
  return cl1_pool_desc_check(CL1_POOL_AVG, p1) || cl1_pool_desc_check(CL1_POOL_AVG, p2);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convt_desc d;
  cl1_pool_desc p1, p2;
  if (shapes(call, &d, &p1, &p2)) return 1;
  ref_state *st = malloc(sizeof *st);
  if (!st) return 1;
  st->c = cl1_op_alloc((size_t)(p1.planes * p1.in[0] * p1.in[1] * p1.in[2]) * sizeof(float));
  st->p = cl1_op_alloc((size_t)(p1.planes * p1.out[0] * p1.out[1] * p1.out[2]) * sizeof(float));
  if (!st->c || !st->p) return cl1_op_free(st->c), cl1_op_free(st->p), free(st), 1;
  *state = st;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *st = state;
  if (!st) return;
  cl1_op_free(st->c);
  cl1_op_free(st->p);
  free(st);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convt_desc d;
  cl1_pool_desc p1, p2;
  double eps;
  if (shapes(call, &d, &p1, &p2) || !call->state || cl1_op_attr(call, "eps", &eps)) return 1;
  const ref_state *st = call->state;
  int rc = cl1_op_convtnd(call->stream, (const float *)call->inputs[0].data,
                          (const float *)call->params[0].data,
                          (const float *)call->params[1].data, st->c, &d);
  if (!rc)
    rc = cl1_op_batchnorm_train(call->stream, st->c, (const float *)call->params[2].data,
                                (const float *)call->params[3].data, st->c, d.n, d.c_out,
                                p1.in[0] * p1.in[1] * p1.in[2], eps);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_AVG, st->c, st->p, &p1);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_AVG, st->p, call->outputs[0].data, &p2);
  return rc;
}
