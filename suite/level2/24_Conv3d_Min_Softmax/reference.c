/* reference.c — level2/24_Conv3d_Min_Softmax, PyTorch eager order: t = conv3d(x, W, b) into
 * scratch, m = min(t, dim=2) into scratch, y = softmax(m, dim=1). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *t;  // (N, K, D', H', W')
  float *m;  // (N, K, H', W')
} state24;

static int describe(const cl1_call *call, cl1_convnd_desc *d) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *w = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 5 || w->ndim != 5 || b->ndim != 1 || y->ndim != 4) return 1;
  double dim;
  if (cl1_op_attr(call, "dim", &dim) || dim != 2) return 1;
  *d = (cl1_convnd_desc){.nd = 3, .n = x->shape[0], .c = x->shape[1], .k = w->shape[0],
                         .groups = 1};
  for (int i = 0; i < 3; i++)
    d->in[i] = x->shape[2 + i], d->ker[i] = w->shape[2 + i], d->stride[i] = 1, d->pad[i] = 0,
    d->dil[i] = 1;
  if (!cl1_convnd_valid(d) || w->shape[1] != d->c || b->shape[0] != d->k) return 1;
  if (y->shape[0] != d->n || y->shape[1] != d->k || y->shape[2] != cl1_convnd_out(d, 1) ||
      y->shape[3] != cl1_convnd_out(d, 2))
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convnd_desc d;
  if (describe(call, &d)) return 1;
  int64_t plane = cl1_convnd_out(&d, 1) * cl1_convnd_out(&d, 2), nk = d.n * d.k;
  state24 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(nk * cl1_convnd_out(&d, 0) * plane) * sizeof(float));
  s->m = cl1_op_alloc((size_t)(nk * plane) * sizeof(float));
  if (!s->t || !s->m) {
    cl1_op_free(s->t), cl1_op_free(s->m), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state24 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  cl1_op_free(s->m);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convnd_desc d;
  const state24 *s = call->state;
  if (!s || describe(call, &d)) return 1;
  int64_t od = cl1_convnd_out(&d, 0), plane = cl1_convnd_out(&d, 1) * cl1_convnd_out(&d, 2);
  int rc = cl1_op_convnd(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->t, &d);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MIN, s->t, s->m, d.n * d.k, od, plane);
  if (!rc)
    rc = cl1_op_softmax_dim(call->stream, s->m, (float *)call->outputs[0].data, d.n, d.k, plane);
  return rc;
}
