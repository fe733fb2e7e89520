/* reference.c — level2/67_Conv2d_GELU_GlobalAvgPool, PyTorch eager order: c = conv2d(x, W, b)
 * into an intermediate, c = gelu(c) in place, y = adaptive_avg_pool2d(c, 1) (a mean over the
 * H'*W' positions of each plane) into the output; the squeezes are views. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *c; } ref_state; /* c: (N, K, OH, OW) */

static int shapes(const cl1_call *call, cl1_conv2d_desc *d, int64_t *oh, int64_t *ow) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *cb = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || w->ndim != 4 || cb->ndim != 1 || y->ndim != 2) return 1;
  *d = (cl1_conv2d_desc){.n = x->shape[0], .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                         .k = w->shape[0], .r = w->shape[2], .s = w->shape[3],
                         .stride_h = 1, .stride_w = 1, .pad_h = 0, .pad_w = 0,
                         .dil_h = 1, .dil_w = 1, .groups = 1};
  if (w->shape[1] != d->c || d->h < d->r || d->w < d->s || cb->shape[0] != d->k) return 1;
  *oh = cl1_conv2d_out_h(d), *ow = cl1_conv2d_out_w(d);
  return y->shape[0] != d->n || y->shape[1] != d->k;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc d;
  int64_t oh, ow;
  if (shapes(call, &d, &oh, &ow)) return 1;
  ref_state *st = malloc(sizeof *st);
  if (!st) return 1;
  st->c = cl1_op_alloc((size_t)(d.n * d.k * oh * ow) * sizeof(float));
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
  int64_t oh, ow;
  if (shapes(call, &d, &oh, &ow) || !call->state) return 1;
  const ref_state *st = call->state;
  int64_t planes = d.n * d.k;
  int rc = cl1_op_conv2d(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         st->c, &d);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, st->c, st->c, planes * oh * ow, 0, 0);
  if (!rc)
    rc = cl1_op_reduce(call->stream, CL1_REDUCE_MEAN, st->c, call->outputs[0].data, planes,
                       oh * ow, 1);
  return rc;
}
