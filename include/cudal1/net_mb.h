/* net_mb.h — shared layer helpers for the EfficientNet / ShuffleNet / RegNet references in
 * suite/level3 (21-27): one eager op-library call per PyTorch op, in the references' order.
 * A network reference writes `int run(const cl1_call *, const cl1_mb_state *, cl1_mb_walk *)`
 * of cl1_mb_<layer> calls; the same walk serves cl1_setup (dry: shapes checked, the largest
 * activation measured, no op runs) and cl1_forward (ops run), through cl1_mb_setup /
 * cl1_mb_forward / cl1_mb_teardown. Activations rotate through up to CL1_MB_MAX_BUF buffers of
 * the largest activation's size. Prefix cl1_mb_ keeps these apart from net_cnn.h's cl1_net_. */
#ifndef CUDAL1_NET_MB_H
#define CUDAL1_NET_MB_H
#include <assert.h>
#include <stdlib.h>
#include "solution.h"
#include "ops.h"

enum { CL1_MB_MAX_BUF = 4 };

typedef struct {
  const cl1_call *call;
  int next;         // next param to take (state_dict order)
  int dry;          // 1: check shapes only
  int nd;           // 1: convolutions through cl1_op_convnd (with no_tf32), else cl1_op_conv2d
  int no_tf32;      // with nd: full-FP32 convolutions (attr conv_tf32 == 0)
  int64_t n, h, w;  // batch and the current spatial size
  int64_t max_act;  // largest activation seen (floats)
  double eps;
} cl1_mb_walk;

typedef struct {
  float *buf[CL1_MB_MAX_BUF];  // rotating activations, each max_act floats (nbuf of them)
  float *pooled;               // (N, pooled_c), NULL when pooled_c is 0
  int nbuf;
} cl1_mb_state;

typedef int (*cl1_mb_plan)(const cl1_call *call, const cl1_mb_state *s, cl1_mb_walk *w);

/* 1 when t is f32 with shape (d0, ..., d[nd-1]). */
static inline int cl1_mb_shape_is(const cl1_tensor *t, int nd, int64_t d0, int64_t d1,
                                  int64_t d2, int64_t d3) {
  const int64_t d[4] = {d0, d1, d2, d3};
  if (t->dtype != CL1_F32 || t->ndim != nd) return 0;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != d[i]) return 0;
  return 1;
}

/* The next param, checked to be f32 with the given shape (unused trailing dims 0). */
static inline const float *cl1_mb_take(cl1_mb_walk *w, int nd, int64_t d0, int64_t d1,
                                       int64_t d2, int64_t d3) {
  if (w->next >= w->call->n_params) return NULL;
  const cl1_tensor *t = &w->call->params[w->next++];
  if (!cl1_mb_shape_is(t, nd, d0, d1, d2, d3)) return NULL;
  return w->dry ? (const float *)"" : (const float *)t->data;  // dry: any non-NULL marker
}

static inline void cl1_mb_grow(cl1_mb_walk *w, int64_t numel) {
  if (numel > w->max_act) w->max_act = numel;
}

/* The buffers of s, or NULLs for the dry walk (s NULL). */
static inline float *const *cl1_mb_bufs(const cl1_mb_state *s) {
  static float *const none[CL1_MB_MAX_BUF];
  return s ? s->buf : none;
}

/* Checks one f32 (N, cin, H, W) input (cin < 0: any) and one (N, classes) output, reads attr
 * eps and starts the walk at the input's spatial size; 0 on success. */
static inline int cl1_mb_begin(cl1_mb_walk *w, const cl1_call *call, int64_t cin) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->dtype != CL1_F32 || x->ndim != 4 || (cin >= 0 && x->shape[1] != cin)) return 1;
  if (y->dtype != CL1_F32 || y->ndim != 2 || y->shape[0] != x->shape[0]) return 1;
  if (cl1_op_attr(call, "eps", &w->eps)) return 1;
  w->n = x->shape[0], w->h = x->shape[2], w->w = x->shape[3];
  return 0;
}

/* y = conv2d(x) with a square kernel, no bias; updates w->h, w->w to the output size. */
static inline int cl1_mb_conv(cl1_mb_walk *w, const float *x, float *y, int64_t c, int64_t k,
                              int64_t r, int64_t stride, int64_t pad, int64_t groups) {
  const float *wt = cl1_mb_take(w, 4, k, c / groups, r, r);
  if (!wt) return 1;
  if (w->nd) {
    cl1_convnd_desc d = {.nd = 2, .n = w->n, .c = c, .k = k, .groups = groups,
                         .in = {w->h, w->w}, .ker = {r, r}, .stride = {stride, stride},
                         .pad = {pad, pad}, .dil = {1, 1}, .no_tf32 = w->no_tf32};
    if (!cl1_convnd_valid(&d)) return 1;
    w->h = cl1_convnd_out(&d, 0), w->w = cl1_convnd_out(&d, 1);
    cl1_mb_grow(w, w->n * k * w->h * w->w);
    return w->dry ? 0 : cl1_op_convnd(w->call->stream, x, wt, NULL, y, &d);
  }
  cl1_conv2d_desc d = {.n = w->n, .c = c, .h = w->h, .w = w->w, .k = k, .r = r, .s = r,
                       .stride_h = stride, .stride_w = stride, .pad_h = pad, .pad_w = pad,
                       .dil_h = 1, .dil_w = 1, .groups = groups};
  int64_t oh = cl1_conv2d_out_h(&d), ow = cl1_conv2d_out_w(&d);
  if (oh < 1 || ow < 1) return 1;
  w->h = oh, w->w = ow;
  cl1_mb_grow(w, w->n * k * oh * ow);
  return w->dry ? 0 : cl1_op_conv2d(w->call->stream, x, wt, NULL, y, &d);
}

/* BatchNorm2d(c) in training mode, in place on y (N, c, h, w). */
static inline int cl1_mb_bn(cl1_mb_walk *w, float *y, int64_t c) {
  const float *g = cl1_mb_take(w, 1, c, 0, 0, 0), *b = cl1_mb_take(w, 1, c, 0, 0, 0);
  if (!g || !b) return 1;
  return w->dry ? 0 : cl1_op_batchnorm_train(w->call->stream, y, g, b, y, w->n, c,
                                             w->h * w->w, w->eps);
}

/* relu6 (hardtanh 0..6, as nn.ReLU6) or relu in place on (N, c, h, w). */
static inline int cl1_mb_act(cl1_mb_walk *w, float *y, int64_t c, int relu6) {
  if (w->dry) return 0;
  int64_t n = w->n * c * w->h * w->w;
  return relu6 ? cl1_op_unary(w->call->stream, CL1_UNARY_HARDTANH, y, y, n, 0.0, 6.0)
               : cl1_op_relu(w->call->stream, y, y, n);
}

/* AdaptiveAvgPool2d((1, 1)): y (N, c, 1, 1) = mean of x (N, c, h, w) over h*w. */
static inline int cl1_mb_avgpool(cl1_mb_walk *w, const float *x, float *y, int64_t c) {
  int64_t hw = w->h * w->w;
  w->h = w->w = 1;
  cl1_mb_grow(w, w->n * c);
  return w->dry ? 0 : cl1_op_reduce(w->call->stream, CL1_REDUCE_MEAN, x, y, w->n * c, hw, 1);
}

/* MaxPool2d(k, stride, pad), floor mode, x (N, c, h, w) into y; updates w->h, w->w. */
static inline int cl1_mb_maxpool(cl1_mb_walk *w, const float *x, float *y, int64_t c,
                                 int64_t k, int64_t stride, int64_t pad) {
  cl1_pool_desc pd = {.nsp = 2, .planes = w->n * c};
  for (int i = 0; i < 2; i++) {
    pd.in[i] = i ? w->w : w->h;
    pd.k[i] = k, pd.stride[i] = stride, pd.pad[i] = pad, pd.dil[i] = 1;
    pd.out[i] = cl1_pool_out_len(pd.in[i], k, stride, pad, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, &pd)) return 1;
  w->h = pd.out[0], w->w = pd.out[1];
  return w->dry ? 0 : cl1_op_pool(w->call->stream, CL1_POOL_MAX, x, y, &pd);
}

/* Channel shuffle with g groups of x (n, c, hw) into y, as view (n, g, c/g, hw) ->
 * transpose(1, 2) -> contiguous: out channel j*g + i is in channel i*(c/g) + j. */
static inline int cl1_mb_shuffle(void *st, const float *x, float *y, int64_t n, int64_t c,
                                 int64_t g, int64_t hw) {
  const int64_t shape[4] = {n, c / g, g, hw}, stride[4] = {c * hw, hw, (c / g) * hw, 1};
  return cl1_op_view_copy(st, x, y, 4, shape, stride);
}

/* One EfficientNet MBConv block from B[cur] (3 rotating buffers); returns the buffer of its
 * output in *out. 1x1 expand conv -> bn -> relu6 (skipped at expand 1 unless always_expand),
 * depthwise kxk (stride, pad (k-1)/2) -> bn -> relu6, 1x1 project conv -> bn, + the input when
 * stride 1 and cin == cout. */
static inline int cl1_mb_mbconv(cl1_mb_walk *w, float *const *B, int cur, int64_t cin,
                                int64_t cout, int64_t k, int64_t stride, int64_t expand,
                                int always_expand, int *out) {
  int64_t hid = cin * expand, h0 = w->h, w0 = w->w;
  int t1 = (cur + 1) % 3, t2 = (cur + 2) % 3, src = cur, dw = t1, proj = t2, rc = 0;
  if (expand != 1 || always_expand) {
    rc = cl1_mb_conv(w, B[cur], B[t1], cin, hid, 1, 1, 0, 1);
    if (!rc) rc = cl1_mb_bn(w, B[t1], hid);
    if (!rc) rc = cl1_mb_act(w, B[t1], hid, 1);
    src = t1, dw = t2, proj = t1;
  }
  if (!rc) rc = cl1_mb_conv(w, B[src], B[dw], hid, hid, k, stride, (k - 1) / 2, hid);
  if (!rc) rc = cl1_mb_bn(w, B[dw], hid);
  if (!rc) rc = cl1_mb_act(w, B[dw], hid, 1);
  if (!rc) rc = cl1_mb_conv(w, B[dw], B[proj], hid, cout, 1, 1, 0, 1);
  if (!rc) rc = cl1_mb_bn(w, B[proj], cout);
  if (!rc && stride == 1 && cin == cout) {
    if (w->h != h0 || w->w != w0) return 1;
    if (!w->dry)
      rc = cl1_op_binary(w->call->stream, CL1_BINARY_ADD, B[proj], B[cur], B[proj],
                         w->n * cout * w->h * w->w);
  }
  *out = proj;
  return rc;
}

/* The classifier on x (N, c, h, w): mean over (h, w) into s->pooled (N, c), then
 * Linear(c, classes) into the output; checks every param was taken. */
static inline int cl1_mb_classify(cl1_mb_walk *w, const cl1_mb_state *s, const float *x,
                                  int64_t c) {
  const cl1_call *call = w->call;
  int64_t classes = call->outputs[0].shape[1];
  const float *fw = cl1_mb_take(w, 2, classes, c, 0, 0), *fb = cl1_mb_take(w, 1, classes, 0, 0, 0);
  if (!fw || !fb || w->next != call->n_params) return 1;
  if (w->dry) return 0;
  void *st = call->stream;
  int rc = cl1_op_reduce(st, CL1_REDUCE_MEAN, x, s->pooled, w->n * c, w->h * w->w, 1);
  if (!rc) rc = cl1_op_linear(st, s->pooled, fw, fb, (float *)call->outputs[0].data, w->n,
                              classes, c);
  return rc;
}

/* The head from B[cur] (cin channels, nbuf rotating buffers): 1x1 conv to chead -> bn ->
 * relu into the next buffer, then cl1_mb_classify. */
static inline int cl1_mb_head(cl1_mb_walk *w, const cl1_mb_state *s, float *const *B, int cur,
                              int nbuf, int64_t cin, int64_t chead) {
  int out = (cur + 1) % nbuf;
  int rc = cl1_mb_conv(w, B[cur], B[out], cin, chead, 1, 1, 0, 1);
  if (!rc) rc = cl1_mb_bn(w, B[out], chead);
  if (!rc) rc = cl1_mb_act(w, B[out], chead, 0);
  if (rc) return rc;
  return cl1_mb_classify(w, s, B[out], chead);
}

static inline void cl1_mb_teardown(void *state) {
  cl1_mb_state *s = state;
  if (!s) return;
  for (int i = 0; i < s->nbuf; i++) cl1_op_free(s->buf[i]);
  cl1_op_free(s->pooled);
  free(s);
}

/* cl1_setup's body: the dry walk, then nbuf buffers of its largest activation and, with
 * pooled_c > 0, the (N, pooled_c) pooled features. */
static inline int cl1_mb_setup(const cl1_call *call, void **state, cl1_mb_plan run, int nbuf,
                               int64_t pooled_c) {
  assert(nbuf >= 1 && nbuf <= CL1_MB_MAX_BUF);
  cl1_mb_walk w = {.call = call, .dry = 1};
  if (run(call, NULL, &w)) return 1;
  cl1_mb_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->nbuf = nbuf;
  int bad = 0;
  for (int i = 0; i < nbuf; i++)
    bad |= !(s->buf[i] = cl1_op_alloc((size_t)w.max_act * sizeof(float)));
  if (pooled_c > 0) bad |= !(s->pooled = cl1_op_alloc((size_t)(w.n * pooled_c) * sizeof(float)));
  if (bad) return cl1_mb_teardown(s), 1;
  *state = s;
  return 0;
}

/* cl1_forward's body: the walk with ops (it re-checks every shape as it goes). */
static inline int cl1_mb_forward(const cl1_call *call, cl1_mb_plan run) {
  if (!call->state) return 1;
  cl1_mb_walk w = {.call = call, .dry = 0};
  return run(call, call->state, &w);
}

#endif
