/* net.h — the one walker for the level-3 network references (LeNet5, AlexNet, VGG, MobileNet
 * V1/V2, GoogLeNet, ResNet, DenseNet, SqueezeNet, EfficientNet, ShuffleNet, RegNet): one eager
 * op-library call per PyTorch op, in PyTorch's order. A reference writes its network as
 * `void walk(cl1_net *nt)` of cl1_net_<layer> calls over explicit activations (cl1_net_act:
 * data pointer and (n, c, h, w)), each layer writing into a buffer the reference names
 * (cl1_net_buf(nt, i), cl1_net_other for a ping-pong, cl1_net_out for the output), so residual
 * adds, branches and torch.cat are as easy to write as a plain chain. It exports cl1_setup /
 * cl1_forward / cl1_teardown through cl1_net_setup / cl1_net_forward / cl1_net_teardown.
 *
 * The walk is made twice: in cl1_setup with exec = 0 and no buffers (every param and shape is
 * checked and the largest activation sizes the scratch buffers), then once per cl1_forward with
 * exec = 1 (the op calls, each activation checked against the buffers' size). Every layer is a
 * no-op for the ops once err is set, so a walk need not check it. */
#ifndef CUDAL1_NET_H
#define CUDAL1_NET_H
#include <stdlib.h>
#include "solution.h"
#include "ops.h"

#define CL1_NET_MAXBUF 8

typedef struct {
  const cl1_call *call;
  int exec;               // 0: shapes only, 1: run the ops
  int err;                // first failure: a shape mismatch or an op's non-zero return
  int pi;                 // the next param, in task.json (state_dict) order
  int64_t need;           // the largest activation seen, in elements (sizes the buffers)
  int64_t cap;            // exec: the buffers' size in elements; a larger activation is an error
  float *const *bufs;     // exec: the scratch buffers; NULL in the shapes-only walk
  int nbuf;
  double eps;             // BatchNorm eps, where the network has one (the init reads it)
  int conv_nd, no_tf32;   // conv_nd: convolutions through cl1_op_convnd, honouring no_tf32
  int cfg[8];             // network-specific integer attrs, filled by the reference's init
} cl1_net;

/* An activation (n, c, h, w) held in p (NULL while only shapes are walked); after a linear
 * h = w = 1. */
typedef struct {
  float *p;
  int64_t n, c, h, w;
} cl1_net_act;

/* The attrs into a fresh walk (nt is zeroed with call set before); 0 on success. */
typedef int (*cl1_net_init)(const cl1_call *call, cl1_net *nt);
/* The whole network. */
typedef void (*cl1_net_walk)(cl1_net *nt);

/* The scratch kept between calls: nbuf buffers of cap elements each. */
typedef struct {
  float *buf[CL1_NET_MAXBUF];
  int nbuf;
  int64_t cap;
} cl1_net_state;

/* 1 unless t is an f32 tensor of exactly the given shape (unused trailing dims 0); for the
 * single-block references, which check their params up front instead of walking. */
static inline int cl1_net_bad(const cl1_tensor *t, int nd, int64_t d0, int64_t d1, int64_t d2,
                              int64_t d3) {
  const int64_t want[4] = {d0, d1, d2, d3};
  if (t->dtype != CL1_F32 || t->ndim != nd) return 1;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != want[i]) return 1;
  return 0;
}

static inline int64_t cl1_net_numel(cl1_net_act a) { return a.n * a.c * a.h * a.w; }

/* Scratch buffer i, `off` elements in (NULL in the shapes-only walk). */
static inline float *cl1_net_buf_at(cl1_net *nt, int i, int64_t off) {
  if (i < 0 || (nt->bufs && i >= nt->nbuf)) return nt->err = 1, (float *)NULL;
  return nt->bufs ? nt->bufs[i] + off : NULL;
}
static inline float *cl1_net_buf(cl1_net *nt, int i) { return cl1_net_buf_at(nt, i, 0); }

/* The ping-pong partner of a: buffer 1 when a is in buffer 0, else buffer 0 (the shapes-only
 * walk needs no distinction: every buffer has the same size). */
static inline float *cl1_net_other(cl1_net *nt, cl1_net_act a) {
  return cl1_net_buf(nt, nt->bufs && a.p == nt->bufs[0] ? 1 : 0);
}

/* The network's output tensor's data. */
static inline float *cl1_net_out(cl1_net *nt) { return (float *)nt->call->outputs[0].data; }

/* An activation of shape (n, c, h, w) in p; counts towards the buffer size. */
static inline cl1_net_act cl1_net_at(cl1_net *nt, float *p, int64_t n, int64_t c, int64_t h,
                                     int64_t w) {
  cl1_net_act a = {p, n, c, h, w};
  if (h < 1 || w < 1 || (nt->exec && cl1_net_numel(a) > nt->cap)) nt->err = 1;
  if (cl1_net_numel(a) > nt->need) nt->need = cl1_net_numel(a);
  return a;
}

/* The network input: one f32 (N, c, H, W) tensor (c < 0: any channels) and one f32 output;
 * else err (returns 1). */
static inline int cl1_net_input(cl1_net *nt, int64_t c, cl1_net_act *x) {
  const cl1_tensor *xt = &nt->call->inputs[0];
  if (nt->call->n_inputs != 1 || nt->call->n_outputs != 1 || xt->ndim != 4 ||
      xt->dtype != CL1_F32 || (c >= 0 && xt->shape[1] != c) ||
      nt->call->outputs[0].dtype != CL1_F32)
    return nt->err = 1;
  *x = (cl1_net_act){(float *)xt->data, xt->shape[0], xt->shape[1], xt->shape[2], xt->shape[3]};
  return 0;
}

/* The next param, which must be f32 of exactly this shape. */
static inline const float *cl1_net_param(cl1_net *nt, int nd, int64_t d0, int64_t d1,
                                         int64_t d2, int64_t d3) {
  if (nt->err || nt->pi >= nt->call->n_params) return nt->err = 1, (const float *)NULL;
  const cl1_tensor *t = &nt->call->params[nt->pi++];
  if (cl1_net_bad(t, nd, d0, d1, d2, d3)) return nt->err = 1, (const float *)NULL;
  return (const float *)t->data;
}

/* The output must be y: (n, c*h*w) when 2-d, else exactly (n, c, h, w). */
static inline void cl1_net_output(cl1_net *nt, cl1_net_act y) {
  const cl1_tensor *o = &nt->call->outputs[0];
  if (y.p != cl1_net_out(nt)) nt->err = 1;
  if (o->ndim == 2 && (o->shape[0] != y.n || o->shape[1] != y.c * y.h * y.w)) nt->err = 1;
  if (o->ndim != 2 && cl1_net_bad(o, 4, y.n, y.c, y.h, y.w)) nt->err = 1;
}

/* nn.Conv2d(in.c, k, r, stride, pad, groups=groups, bias=bias) from the next params (weight
 * (k, in.c/groups, r, r), then with bias (k)); through cl1_op_convnd when nt->conv_nd. */
static inline cl1_net_act cl1_net_conv(cl1_net *nt, cl1_net_act in, float *out, int64_t k,
                                       int64_t r, int64_t stride, int64_t pad, int64_t groups,
                                       int bias) {
  if (groups < 1 || in.c % groups || k % groups) nt->err = 1, groups = 1;
  const float *w = cl1_net_param(nt, 4, k, in.c / groups, r, r);
  const float *b = bias ? cl1_net_param(nt, 1, k, 0, 0, 0) : NULL;
  if (nt->conv_nd) {
    cl1_convnd_desc d = {.nd = 2, .n = in.n, .c = in.c, .k = k, .groups = groups,
                         .in = {in.h, in.w}, .ker = {r, r}, .stride = {stride, stride},
                         .pad = {pad, pad}, .dil = {1, 1}, .no_tf32 = nt->no_tf32};
    if (!cl1_convnd_valid(&d)) nt->err = 1;
    cl1_net_act o = cl1_net_at(nt, out, in.n, k, cl1_convnd_out(&d, 0), cl1_convnd_out(&d, 1));
    if (nt->exec && !nt->err) nt->err = cl1_op_convnd(nt->call->stream, in.p, w, b, o.p, &d);
    return o;
  }
  cl1_conv2d_desc d = {.n = in.n, .c = in.c, .h = in.h, .w = in.w, .k = k, .r = r, .s = r,
                       .stride_h = stride, .stride_w = stride, .pad_h = pad, .pad_w = pad,
                       .dil_h = 1, .dil_w = 1, .groups = groups};
  cl1_net_act o = cl1_net_at(nt, out, in.n, k, cl1_conv2d_out_h(&d), cl1_conv2d_out_w(&d));
  if (nt->exec && !nt->err) nt->err = cl1_op_conv2d(nt->call->stream, in.p, w, b, o.p, &d);
  return o;
}

/* Training-mode BatchNorm2d from the next params (weight, bias): in -> out (may be in.p). */
static inline cl1_net_act cl1_net_bn(cl1_net *nt, cl1_net_act in, float *out) {
  const float *w = cl1_net_param(nt, 1, in.c, 0, 0, 0), *b = cl1_net_param(nt, 1, in.c, 0, 0, 0);
  cl1_net_act o = cl1_net_at(nt, out, in.n, in.c, in.h, in.w);
  if (nt->exec && !nt->err)
    nt->err = cl1_op_batchnorm_train(nt->call->stream, in.p, w, b, o.p, in.n, in.c,
                                     in.h * in.w, nt->eps);
  return o;
}

/* relu in place (ReLU(inplace=True) and F.relu on a fresh tensor alike). */
static inline void cl1_net_relu(cl1_net *nt, cl1_net_act a) {
  if (nt->exec && !nt->err) nt->err = cl1_op_relu(nt->call->stream, a.p, a.p, cl1_net_numel(a));
}

/* Another elementwise function in place, as cl1_op_unary(kind, a0, b0). */
static inline void cl1_net_unary(cl1_net *nt, cl1_net_act a, cl1_unary_kind kind, double a0,
                                 double b0) {
  if (nt->exec && !nt->err)
    nt->err = cl1_op_unary(nt->call->stream, kind, a.p, a.p, cl1_net_numel(a), a0, b0);
}

/* ReLU6 in place: hardtanh(0, 6), which is how PyTorch defines it. */
static inline void cl1_net_relu6(cl1_net *nt, cl1_net_act a) {
  cl1_net_unary(nt, a, CL1_UNARY_HARDTANH, 0.0, 6.0);
}

/* max_pool2d / avg_pool2d(k, s, p, ceil_mode) of in into out (avg counts padding, PyTorch's
 * default). */
static inline cl1_net_act cl1_net_pool(cl1_net *nt, int kind, cl1_net_act in, float *out,
                                       int64_t k, int64_t s, int64_t p, int ceil_mode) {
  cl1_pool_desc d = {.nsp = 2, .planes = in.n * in.c, .ceil_mode = ceil_mode,
                     .count_include_pad = 1};
  for (int i = 0; i < 2; i++) {
    d.in[i] = i ? in.w : in.h, d.k[i] = k, d.stride[i] = s, d.pad[i] = p, d.dil[i] = 1;
    d.out[i] = cl1_pool_out_len(d.in[i], k, s, p, 1, ceil_mode);
  }
  if (cl1_pool_desc_check(kind, &d)) nt->err = 1;
  cl1_net_act o = cl1_net_at(nt, out, in.n, in.c, d.out[0], d.out[1]);
  if (nt->exec && !nt->err) nt->err = cl1_op_pool(nt->call->stream, kind, in.p, o.p, &d);
  return o;
}

/* AdaptiveAvgPool2d((1, 1)): the mean over each (h, w) plane, into out (n, c, 1, 1). */
static inline cl1_net_act cl1_net_mean_hw(cl1_net *nt, cl1_net_act in, float *out) {
  cl1_net_act o = cl1_net_at(nt, out, in.n, in.c, 1, 1);
  if (nt->exec && !nt->err)
    nt->err = cl1_op_reduce(nt->call->stream, CL1_REDUCE_MEAN, in.p, o.p, in.n * in.c,
                            in.h * in.w, 1);
  return o;
}

/* nn.Linear(c*h*w, k) on the flattened activation (torch.flatten(x, 1) / x.view(n, -1) of a
 * contiguous tensor is free) from the next params (weight (k, c*h*w), bias (k)); k < 0 takes
 * k from the weight (num_classes). Result (n, k, 1, 1). */
static inline cl1_net_act cl1_net_linear(cl1_net *nt, cl1_net_act in, float *out, int64_t k) {
  if (k < 0 && nt->pi < nt->call->n_params && nt->call->params[nt->pi].ndim == 2)
    k = nt->call->params[nt->pi].shape[0];
  int64_t K = in.c * in.h * in.w;
  const float *w = cl1_net_param(nt, 2, k, K, 0, 0), *b = cl1_net_param(nt, 1, k, 0, 0, 0);
  cl1_net_act o = cl1_net_at(nt, out, in.n, k, 1, 1);
  if (nt->exec && !nt->err)
    nt->err = cl1_op_linear(nt->call->stream, in.p, 0, w, b, o.p, in.n, k, K);
  return o;
}

/* The classifier of LeNet5, AlexNet and VGG on the flattened activation: Linear(h1) + ReLU,
 * Linear(h2) + ReLU (ping-pong), Linear to num_classes into the output (the p = 0 dropouts
 * between them are no-ops). */
static inline void cl1_net_classifier(cl1_net *nt, cl1_net_act x, int64_t h1, int64_t h2) {
  x = cl1_net_linear(nt, x, cl1_net_other(nt, x), h1), cl1_net_relu(nt, x);
  x = cl1_net_linear(nt, x, cl1_net_other(nt, x), h2), cl1_net_relu(nt, x);
  cl1_net_output(nt, cl1_net_linear(nt, x, cl1_net_out(nt), -1));
}

/* torch.cat(parts, 1) into out: one strided copy per part (cl1_cat_part). */
static inline cl1_net_act cl1_net_cat(cl1_net *nt, const cl1_net_act *parts, int k, float *out) {
  int64_t c = 0;
  for (int i = 0; i < k; i++) {
    if (parts[i].n != parts[0].n || parts[i].h != parts[0].h || parts[i].w != parts[0].w)
      nt->err = 1;
    c += parts[i].c;
  }
  cl1_net_act o = cl1_net_at(nt, out, parts[0].n, c, parts[0].h, parts[0].w);
  int64_t hw = o.h * o.w, off = 0;
  for (int i = 0; i < k && nt->exec && !nt->err; off += parts[i++].c * hw)
    nt->err = cl1_cat_part(nt->call->stream, parts[i].p, o.p, o.n, parts[i].c * hw, c * hw, off);
  return o;
}

/* y += x (a residual add; the shapes must match). */
static inline void cl1_net_add(cl1_net *nt, cl1_net_act y, cl1_net_act x) {
  if (y.n != x.n || y.c != x.c || y.h != x.h || y.w != x.w) nt->err = 1;
  if (nt->exec && !nt->err)
    nt->err = cl1_op_binary(nt->call->stream, CL1_BINARY_ADD, y.p, x.p, y.p, cl1_net_numel(y));
}

/* Channel shuffle with g groups of in into out, as view (n, g, c/g, h, w) -> transpose(1, 2)
 * -> contiguous: out channel j*g + i is in channel i*(c/g) + j. One strided copy. */
static inline cl1_net_act cl1_net_shuffle(cl1_net *nt, cl1_net_act in, float *out, int64_t g) {
  if (g < 1 || in.c % g) nt->err = 1, g = 1;
  cl1_net_act o = cl1_net_at(nt, out, in.n, in.c, in.h, in.w);
  const int64_t hw = in.h * in.w, shape[4] = {in.n, in.c / g, g, hw},
                stride[4] = {in.c * hw, hw, (in.c / g) * hw, 1};
  if (nt->exec && !nt->err)
    nt->err = cl1_op_strided_copy(nt->call->stream, 4, shape, in.p, stride, o.p, NULL);
  return o;
}

/* adaptive_avg_pool2d(in, 1) + flatten into scratch `pooled` (N, C), then the Linear from the
 * next params into the output (N, num_classes). */
static inline void cl1_net_head(cl1_net *nt, cl1_net_act in, float *pooled) {
  cl1_net_act p = cl1_net_mean_hw(nt, in, pooled);
  cl1_net_output(nt, cl1_net_linear(nt, p, cl1_net_out(nt), -1));
}

/* A fresh walk's attrs (init NULL: none), the walk, and the check that it used every param. */
static inline int cl1_net_pass(cl1_net *nt, const cl1_call *call, cl1_net_init init,
                               cl1_net_walk walk, const cl1_net_state *s) {
  *nt = (cl1_net){.call = call};
  if (init && init(call, nt)) return 1;
  if (s) nt->exec = 1, nt->cap = s->cap, nt->bufs = s->buf, nt->nbuf = s->nbuf;
  walk(nt);
  if (nt->pi != call->n_params) nt->err = 1;
  return nt->err;
}

/* cl1_setup's body: the shapes-only walk, then nbuf scratch buffers of the largest activation. */
static inline int cl1_net_setup(const cl1_call *call, void **state, int nbuf, cl1_net_init init,
                                cl1_net_walk walk) {
  cl1_net nt;
  if (nbuf < 1 || nbuf > CL1_NET_MAXBUF || cl1_net_pass(&nt, call, init, walk, NULL)) return 1;
  cl1_net_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->nbuf = nbuf;
  for (int i = 0; i < nbuf; i++)
    if (!(s->buf[i] = cl1_op_alloc((size_t)(nt.need > 0 ? nt.need : 1) * sizeof(float))))
      nt.err = 1;
  if (nt.err) {
    for (int i = 0; i < nbuf; i++) cl1_op_free(s->buf[i]);
    return free(s), 1;
  }
  s->cap = nt.need;
  *state = s;
  return 0;
}

static inline void cl1_net_teardown(void *state) {
  cl1_net_state *s = state;
  if (!s) return;
  for (int i = 0; i < s->nbuf; i++) cl1_op_free(s->buf[i]);
  free(s);
}

/* cl1_forward's body: the walk that runs the ops in the buffers of cl1_net_setup (it re-checks
 * every shape as it goes). */
static inline int cl1_net_forward(const cl1_call *call, cl1_net_init init, cl1_net_walk walk) {
  cl1_net nt;
  if (!call->state) return 1;
  return cl1_net_pass(&nt, call, init, walk, call->state);
}

#endif
