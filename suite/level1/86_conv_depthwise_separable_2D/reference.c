/* reference.c — level1/86_conv_depthwise_separable_2D, PyTorch eager order: t = depthwise
 * conv2d(x, Wd) (groups = C) into scratch, y = pointwise 1x1 conv2d(t, Wp). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *t; } state86; /* (N, C, OH, OW) */

static int describe(const cl1_call *call, cl1_convnd_desc *dw, cl1_convnd_desc *pw) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *wd = &call->params[0], *wp = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 4 || wd->ndim != 4 || wp->ndim != 4 || y->ndim != 4) return 1;
  double stride, pad, dil;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "padding", &pad) ||
      cl1_op_attr(call, "dilation", &dil))
    return 1;
  int64_t C = x->shape[1];
  *dw = (cl1_convnd_desc){.nd = 2, .n = x->shape[0], .c = C, .k = C, .groups = C};
  for (int i = 0; i < 2; i++)
    dw->in[i] = x->shape[2 + i], dw->ker[i] = wd->shape[2 + i], dw->stride[i] = (int64_t)stride,
    dw->pad[i] = (int64_t)pad, dw->dil[i] = (int64_t)dil;
  if (!cl1_convnd_valid(dw) || wd->shape[0] != C || wd->shape[1] != 1) return 1;
  *pw = (cl1_convnd_desc){.nd = 2, .n = dw->n, .c = C, .k = wp->shape[0], .groups = 1};
  for (int i = 0; i < 2; i++)
    pw->in[i] = cl1_convnd_out(dw, i), pw->ker[i] = 1, pw->stride[i] = 1, pw->pad[i] = 0,
    pw->dil[i] = 1;
  if (!cl1_convnd_valid(pw) || wp->shape[1] != C || wp->shape[2] != 1 || wp->shape[3] != 1)
    return 1;
  if (y->shape[0] != pw->n || y->shape[1] != pw->k || y->shape[2] != pw->in[0] ||
      y->shape[3] != pw->in[1])
    return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_convnd_desc dw, pw;
  if (describe(call, &dw, &pw)) return 1;
  state86 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->t = cl1_op_alloc((size_t)(dw.n * dw.k * pw.in[0] * pw.in[1]) * sizeof(float));
  if (!s->t) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state86 *s = state;
  if (!s) return;
  cl1_op_free(s->t);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_convnd_desc dw, pw;
  const state86 *s = call->state;
  if (!s || describe(call, &dw, &pw)) return 1;
  int rc = cl1_op_convnd(call->stream, (const float *)call->inputs[0].data,
                         (const float *)call->params[0].data, NULL, s->t, &dw);
  if (!rc)
    rc = cl1_op_convnd(call->stream, s->t, (const float *)call->params[1].data, NULL,
                       (float *)call->outputs[0].data, &pw);
  return rc;
}
