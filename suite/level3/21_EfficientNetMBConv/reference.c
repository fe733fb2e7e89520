/* reference.c — level3/21_EfficientNetMBConv, PyTorch eager order: 1x1 expand conv -> BN ->
 * ReLU6 (when expand_ratio != 1: the params then hold the expand conv), depthwise kxk conv
 * (stride, padding (k-1)/2) -> BN -> ReLU6, 1x1 project conv -> BN into the output, + x when
 * stride 1 and in == out. BatchNorm uses batch statistics (training mode). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net.h>

typedef struct {
  float *hid;  // (N, hidden, H, W): the expand output
  float *dw;   // (N, hidden, OH, OW): the depthwise output
} mb_state;

typedef struct {
  int64_t n, cin, cout, hid, k, stride, h, w, oh, ow;
  int expand;  // 1 when the block has its expand conv
  double eps;
} mb_shape;

/* Checks every tensor and attr against the block's structure; 0 when they fit. */
static int describe(const cl1_call *call, mb_shape *m) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  if (call->n_params != 9 && call->n_params != 6) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0], *p = call->params;
  double stride, eps;
  if (cl1_op_attr(call, "stride", &stride) || cl1_op_attr(call, "eps", &eps)) return 1;
  if (x->dtype != CL1_F32 || x->ndim != 4 || y->dtype != CL1_F32 || y->ndim != 4) return 1;
  m->expand = call->n_params == 9;
  m->n = x->shape[0], m->cin = x->shape[1], m->h = x->shape[2], m->w = x->shape[3];
  m->stride = (int64_t)stride, m->eps = eps, m->cout = y->shape[1];
  const cl1_tensor *q = p + (m->expand ? 3 : 0);  // the depthwise conv's weight
  if (q->ndim != 4) return 1;
  m->hid = q->shape[0], m->k = q->shape[2];
  if (m->stride < 1 || m->k < 1 || m->k % 2 == 0 || (!m->expand && m->hid != m->cin)) return 1;
  if (m->expand && (cl1_net_bad(&p[0], 4, m->hid, m->cin, 1, 1) ||
                    cl1_net_bad(&p[1], 1, m->hid, 0, 0, 0) ||
                    cl1_net_bad(&p[2], 1, m->hid, 0, 0, 0)))
    return 1;
  if (cl1_net_bad(&q[0], 4, m->hid, 1, m->k, m->k) ||
      cl1_net_bad(&q[1], 1, m->hid, 0, 0, 0) || cl1_net_bad(&q[2], 1, m->hid, 0, 0, 0) ||
      cl1_net_bad(&q[3], 4, m->cout, m->hid, 1, 1) ||
      cl1_net_bad(&q[4], 1, m->cout, 0, 0, 0) || cl1_net_bad(&q[5], 1, m->cout, 0, 0, 0))
    return 1;
  int64_t pad = (m->k - 1) / 2;
  m->oh = (m->h + 2 * pad - m->k) / m->stride + 1;
  m->ow = (m->w + 2 * pad - m->k) / m->stride + 1;
  if (y->shape[0] != m->n || y->shape[2] != m->oh || y->shape[3] != m->ow) return 1;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  mb_state *s = state;
  if (!s) return;
  cl1_op_free(s->hid), cl1_op_free(s->dw);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  mb_shape m;
  if (describe(call, &m)) return 1;
  mb_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->hid = cl1_op_alloc((size_t)(m.n * m.hid * m.h * m.w) * sizeof(float));
  s->dw = cl1_op_alloc((size_t)(m.n * m.hid * m.oh * m.ow) * sizeof(float));
  if (!s->hid || !s->dw) return cl1_teardown(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  mb_shape m;
  if (!call->state || describe(call, &m)) return 1;
  const mb_state *s = call->state;
  const float *x = (const float *)call->inputs[0].data;
  float *y = (float *)call->outputs[0].data;
  const cl1_tensor *p = call->params;
  void *st = call->stream;
  int64_t hw = m.h * m.w, ohw = m.oh * m.ow;
  int rc = 0;
  const float *src = x;
  if (m.expand) {
    cl1_conv2d_desc e = {.n = m.n, .c = m.cin, .h = m.h, .w = m.w, .k = m.hid, .r = 1, .s = 1,
                         .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
    rc = cl1_op_conv2d(st, x, (const float *)p[0].data, NULL, s->hid, &e);
    if (!rc) rc = cl1_op_batchnorm_train(st, s->hid, (const float *)p[1].data,
                                         (const float *)p[2].data, s->hid, m.n, m.hid, hw, m.eps);
    if (!rc) rc = cl1_op_unary(st, CL1_UNARY_HARDTANH, s->hid, s->hid, m.n * m.hid * hw, 0, 6);
    src = s->hid, p += 3;
  }
  int64_t pad = (m.k - 1) / 2;
  cl1_conv2d_desc d = {.n = m.n, .c = m.hid, .h = m.h, .w = m.w, .k = m.hid, .r = m.k,
                       .s = m.k, .stride_h = m.stride, .stride_w = m.stride, .pad_h = pad,
                       .pad_w = pad, .dil_h = 1, .dil_w = 1, .groups = m.hid};
  if (!rc) rc = cl1_op_conv2d(st, src, (const float *)p[0].data, NULL, s->dw, &d);
  if (!rc) rc = cl1_op_batchnorm_train(st, s->dw, (const float *)p[1].data,
                                       (const float *)p[2].data, s->dw, m.n, m.hid, ohw, m.eps);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_HARDTANH, s->dw, s->dw, m.n * m.hid * ohw, 0, 6);
  cl1_conv2d_desc pr = {.n = m.n, .c = m.hid, .h = m.oh, .w = m.ow, .k = m.cout, .r = 1, .s = 1,
                        .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
  if (!rc) rc = cl1_op_conv2d(st, s->dw, (const float *)p[3].data, NULL, y, &pr);
  if (!rc) rc = cl1_op_batchnorm_train(st, y, (const float *)p[4].data, (const float *)p[5].data,
                                       y, m.n, m.cout, ohw, m.eps);
  if (!rc && m.stride == 1 && m.cin == m.cout)
    rc = cl1_op_binary(st, CL1_BINARY_ADD, y, x, y, m.n * m.cout * ohw);
  return rc;
}
