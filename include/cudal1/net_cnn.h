/* net_cnn.h — shared walker for the plain feed-forward CNN references in suite/level3 (LeNet5,
 * AlexNet, VGG16/19, MobileNetV1/V2): one eager op-library call per PyTorch layer, no residual
 * adds. A reference writes its network as one function `int walk(cl1_net_walker *)` of
 * cl1_net_<layer> calls and exports cl1_setup / cl1_forward / cl1_teardown through
 * cl1_net_setup / cl1_net_forward / cl1_net_teardown.
 *
 * The walk is made twice: the sizing pass (run == 0, in cl1_setup, where the input carries its
 * shape only) checks every shape and finds the largest activation; the run pass (cl1_forward)
 * makes the op calls. Activations ping-pong between two buffers; the last layer writes the
 * output. Every layer is a no-op once an error is recorded, so a walk checks rc only at its end
 * (cl1_net_end). */
#ifndef CUDAL1_NET_CNN_H
#define CUDAL1_NET_CNN_H
#include <stdlib.h>
#include <string.h>
#include "solution.h"
#include "ops.h"

typedef struct {
  const cl1_call *call;
  int run, pi, rc;       /* pass; next param (state_dict order); first error */
  int64_t n, c, h, w;    /* current activation (n, c, h, w); after a linear h = w = 1 */
  float *cur;            /* its data: the input (read only), a buffer or the output */
  int at_input, at_output;
  float *buf[2];
  int64_t most;          /* largest intermediate, in floats */
} cl1_net_walker;

/* A reference's whole network: the layer calls, then `return cl1_net_end(t)`; 0 on success. */
typedef int (*cl1_net_plan)(cl1_net_walker *t);

/* The scratch kept between calls: two buffers of `most` floats each. */
typedef struct {
  float *buf[2];
  int64_t most;
} cl1_net_state;

/* Starts a pass over one (N, C, H, W) f32 input into one f32 output; buf NULL when sizing. */
static inline void cl1_net_begin(cl1_net_walker *t, const cl1_call *call, float *const *buf,
                                 int run) {
  memset(t, 0, sizeof *t);
  t->call = call, t->run = run, t->at_input = 1;
  if (buf) t->buf[0] = buf[0], t->buf[1] = buf[1];
  const cl1_tensor *x = &call->inputs[0];
  if (call->n_inputs != 1 || call->n_outputs != 1 || x->ndim != 4 || x->dtype != CL1_F32 ||
      call->outputs[0].dtype != CL1_F32) {
    t->rc = 1;
    return;
  }
  t->n = x->shape[0], t->c = x->shape[1], t->h = x->shape[2], t->w = x->shape[3];
  t->cur = (float *)x->data;
}

/* Where the next layer's (n, c, h, w) result goes: the output for the last layer, else the
 * buffer that does not hold the current activation. */
static inline float *cl1_net_dst(cl1_net_walker *t, int64_t c, int64_t h, int64_t w, int last) {
  float *d;
  if (last) {
    d = (float *)t->call->outputs[0].data;
    t->at_output = 1;
  } else {
    int64_t sz = t->n * c * h * w;
    if (sz > t->most) t->most = sz;
    d = t->buf[!t->at_input && t->cur == t->buf[0] ? 1 : 0];
  }
  t->at_input = 0, t->c = c, t->h = h, t->w = w;
  return d;
}

/* The next param if it is f32 with shape (d[0], ..., d[nd-1]); else records an error. */
static inline const float *cl1_net_param(cl1_net_walker *t, int nd, int64_t d0, int64_t d1,
                                         int64_t d2, int64_t d3) {
  const int64_t d[4] = {d0, d1, d2, d3};
  if (t->rc || t->pi >= t->call->n_params) return t->rc = 1, NULL;
  const cl1_tensor *p = &t->call->params[t->pi++];
  if (p->ndim != nd || p->dtype != CL1_F32) return t->rc = 1, NULL;
  for (int i = 0; i < nd; i++)
    if (p->shape[i] != d[i]) return t->rc = 1, NULL;
  return (const float *)p->data;
}

/* The output is (n, c) after a linear, else (n, c, h, w); every param was used. */
static inline int cl1_net_end(cl1_net_walker *t) {
  const cl1_tensor *y = &t->call->outputs[0];
  if (t->rc || !t->at_output || t->pi != t->call->n_params) return 1;
  if (y->ndim == 2) return y->shape[0] != t->n || y->shape[1] != t->c * t->h * t->w;
  return y->ndim != 4 || y->shape[0] != t->n || y->shape[1] != t->c || y->shape[2] != t->h ||
         y->shape[3] != t->w;
}

/* nn.Conv2d(c, k, r, stride, pad, groups=groups, bias=bias): params weight (k, c/groups, r, r)
 * then, with bias, bias (k). */
static inline void cl1_net_conv(cl1_net_walker *t, int64_t k, int64_t r, int64_t stride,
                                int64_t pad, int64_t groups, int bias, int last) {
  if (t->rc) return;
  cl1_conv2d_desc d = {t->n, t->c, t->h, t->w, k, r, r, stride, stride, pad, pad, 1, 1, groups};
  if (groups < 1 || t->c % groups || k % groups) return (void)(t->rc = 1);
  int64_t oh = cl1_conv2d_out_h(&d), ow = cl1_conv2d_out_w(&d);
  const float *w = cl1_net_param(t, 4, k, t->c / groups, r, r);
  const float *b = bias ? cl1_net_param(t, 1, k, 0, 0, 0) : NULL;
  if (t->rc || oh < 1 || ow < 1) return (void)(t->rc = 1);
  const float *x = t->cur;
  float *y = cl1_net_dst(t, k, oh, ow, last);
  if (t->run) t->rc = cl1_op_conv2d(t->call->stream, x, w, b, y, &d);
  t->cur = y;
}

/* An activation in place (ReLU(inplace=True) / F.relu on a fresh tensor alike): relu, or
 * ReLU6 as hardtanh(0, 6), which is how PyTorch defines it. */
static inline void cl1_net_act(cl1_net_walker *t, int relu6) {
  if (t->rc || t->at_input) return (void)(t->rc = 1);
  int64_t n = t->n * t->c * t->h * t->w;
  if (!t->run) return;
  t->rc = relu6 ? cl1_op_unary(t->call->stream, CL1_UNARY_HARDTANH, t->cur, t->cur, n, 0.0, 6.0)
                : cl1_op_relu(t->call->stream, t->cur, t->cur, n);
}

/* nn.BatchNorm2d(c) in training mode, in place: params weight (c), bias (c). */
static inline void cl1_net_bn(cl1_net_walker *t, double eps) {
  const float *w = cl1_net_param(t, 1, t->c, 0, 0, 0), *b = cl1_net_param(t, 1, t->c, 0, 0, 0);
  if (t->rc || t->at_input) return (void)(t->rc = 1);
  if (t->run)
    t->rc = cl1_op_batchnorm_train(t->call->stream, t->cur, w, b, t->cur, t->n, t->c,
                                   t->h * t->w, eps);
}

/* MaxPool2d / AvgPool2d(kernel, stride, pad), floor mode (AvgPool counts padding, PyTorch's
 * default; the pools here have none). */
static inline void cl1_net_pool(cl1_net_walker *t, int kind, int64_t k, int64_t s, int64_t p,
                                int last) {
  if (t->rc) return;
  cl1_pool_desc d;
  memset(&d, 0, sizeof d);
  d.nsp = 2, d.planes = t->n * t->c, d.count_include_pad = 1;
  d.in[0] = t->h, d.in[1] = t->w;
  for (int i = 0; i < 2; i++) {
    d.k[i] = k, d.stride[i] = s, d.pad[i] = p, d.dil[i] = 1;
    d.out[i] = cl1_pool_out_len(d.in[i], k, s, p, 1, 0);
  }
  if (cl1_pool_desc_check(kind, &d)) return (void)(t->rc = 1);
  const float *x = t->cur;
  float *y = cl1_net_dst(t, t->c, d.out[0], d.out[1], last);
  if (t->run) t->rc = cl1_op_pool(t->call->stream, kind, x, y, &d);
  t->cur = y;
}

/* AdaptiveAvgPool2d((1, 1)): the mean over each (h, w) plane. */
static inline void cl1_net_mean_hw(cl1_net_walker *t, int last) {
  if (t->rc) return;
  const float *x = t->cur;
  int64_t planes = t->n * t->c, hw = t->h * t->w;
  float *y = cl1_net_dst(t, t->c, 1, 1, last);
  if (t->run) t->rc = cl1_op_reduce(t->call->stream, CL1_REDUCE_MEAN, x, y, planes, hw, 1);
  t->cur = y;
}

/* nn.Linear(c*h*w, k) on the flattened activation (torch.flatten(x, 1) / x.view(n, -1) of a
 * contiguous tensor is free): params weight (k, c*h*w), bias (k); k < 0 takes k from the
 * weight (num_classes). */
static inline void cl1_net_linear(cl1_net_walker *t, int64_t k, int last) {
  if (t->rc || t->pi >= t->call->n_params) return (void)(t->rc = 1);
  if (k < 0) k = t->call->params[t->pi].shape[0];
  int64_t in = t->c * t->h * t->w;
  const float *w = cl1_net_param(t, 2, k, in, 0, 0), *b = cl1_net_param(t, 1, k, 0, 0, 0);
  if (t->rc) return;
  const float *x = t->cur;
  float *y = cl1_net_dst(t, k, 1, 1, last);
  if (t->run) t->rc = cl1_op_linear(t->call->stream, x, w, b, y, t->n, k, in);
  t->cur = y;
}

/* The classifier of LeNet5, AlexNet and VGG on the flattened activation: Linear(h1) + ReLU,
 * Linear(h2) + ReLU, Linear to num_classes into the output (the p = 0 dropouts between them
 * are no-ops); ends the walk. */
static inline int cl1_net_classifier(cl1_net_walker *t, int64_t h1, int64_t h2) {
  cl1_net_linear(t, h1, 0), cl1_net_act(t, 0);
  cl1_net_linear(t, h2, 0), cl1_net_act(t, 0);
  cl1_net_linear(t, -1, 1);
  return cl1_net_end(t);
}

/* cl1_setup's body: the sizing pass, then the two scratch buffers it asks for. */
static inline int cl1_net_setup(const cl1_call *call, void **state, cl1_net_plan walk) {
  cl1_net_walker t;
  cl1_net_begin(&t, call, NULL, 0);
  if (walk(&t)) return 1;
  cl1_net_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  for (int i = 0; i < 2; i++)
    if (!(s->buf[i] = cl1_op_alloc((size_t)(t.most > 0 ? t.most : 1) * sizeof(float)))) {
      cl1_op_free(s->buf[0]);
      return free(s), 1;
    }
  s->most = t.most;
  *state = s;
  return 0;
}

static inline void cl1_net_teardown(void *state) {
  cl1_net_state *s = state;
  if (!s) return;
  cl1_op_free(s->buf[0]), cl1_op_free(s->buf[1]);
  free(s);
}

/* cl1_forward's body: shapes first (nothing runs unless all of them hold and fit the buffers),
 * then the run pass. */
static inline int cl1_net_forward(const cl1_call *call, cl1_net_plan walk) {
  const cl1_net_state *s = call->state;
  if (!s) return 1;
  cl1_net_walker t;
  cl1_net_begin(&t, call, NULL, 0);
  if (walk(&t) || t.most > s->most) return 1;
  cl1_net_begin(&t, call, s->buf, 1);
  return walk(&t);
}

#endif
