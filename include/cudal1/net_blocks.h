/* net_blocks.h — shared walker for the level-3 CNN references whose activations live in named
 * scratch buffers (GoogLeNet, ResNet18/101, DenseNet121/201, SqueezeNet): residual adds,
 * branches and torch.cat need more than net_cnn.h's single ping-pong activation. One eager
 * op-library call per PyTorch op; the reference writes its network as
 * `void walk(cl1_nb_net *, float *const *bufs)` of cl1_nb_* calls and exports cl1_setup /
 * cl1_forward / cl1_teardown through cl1_nb_setup / cl1_nb_forward / cl1_nb_teardown.
 *
 * The walk is made twice: in cl1_setup with exec = 0 and bufs NULL (shapes only: validates every
 * param and sizes the scratch buffers) and once per cl1_forward with exec = 1 (the op calls).
 * Every step is a no-op for the ops once err is set, so a walk need not check it. */
#ifndef CUDAL1_NET_BLOCKS_H
#define CUDAL1_NET_BLOCKS_H
#include <stdlib.h>
#include "solution.h"
#include "ops.h"

#define CL1_NB_MAXBUF 8

typedef struct {
  const cl1_call *call;
  int exec;      // 0: shapes only, 1: run the ops
  int err;       // first failure: a shape mismatch or an op's non-zero return
  int pi;        // the next param, in task.json (state_dict) order
  int64_t need;  // the largest activation seen, in elements (sizes the scratch buffers)
  int64_t cap;   // exec: the buffers' size in elements; a larger activation is an error
  double eps;    // BatchNorm eps, where the network has one (cl1_nb_init reads it)
  int cfg[8];    // network-specific integer attrs, filled by the reference's init
} cl1_nb_net;

/* An activation (N, c, h, w) held in p (NULL while only shapes are walked). */
typedef struct {
  float *p;
  int64_t n, c, h, w;
} cl1_nb_act;

/* The attrs into a fresh walk (nt is zeroed with call set before); 0 on success. */
typedef int (*cl1_nb_init)(const cl1_call *call, cl1_nb_net *nt);
/* The whole network; bufs NULL in the shapes-only walk. */
typedef void (*cl1_nb_walk)(cl1_nb_net *nt, float *const *bufs);

/* The scratch kept between calls: nbuf buffers of cap elements each. */
typedef struct {
  float *buf[CL1_NB_MAXBUF];
  int nbuf;
  int64_t cap;
} cl1_nb_state;

/* 1 unless t is an f32 tensor of exactly the given shape (for the single-block references,
 * which check their params up front instead of walking). */
static inline int cl1_nb_bad(const cl1_tensor *t, int nd, int64_t d0, int64_t d1, int64_t d2,
                             int64_t d3) {
  const int64_t want[4] = {d0, d1, d2, d3};
  if (t->dtype != CL1_F32 || t->ndim != nd) return 1;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != want[i]) return 1;
  return 0;
}

static inline int64_t cl1_nb_numel(cl1_nb_act a) { return a.n * a.c * a.h * a.w; }

/* An output activation of shape (n, c, h, w) in buffer p; counts towards the buffer size. */
static inline cl1_nb_act cl1_nb_at(cl1_nb_net *nt, float *p, int64_t n, int64_t c, int64_t h,
                                   int64_t w) {
  cl1_nb_act a = {p, n, c, h, w};
  if (h < 1 || w < 1 || (nt->exec && cl1_nb_numel(a) > nt->cap)) nt->err = 1;
  if (cl1_nb_numel(a) > nt->need) nt->need = cl1_nb_numel(a);
  return a;
}

/* The network input: one f32 (N, c, H, W) tensor and one output; else err (return 1). */
static inline int cl1_nb_input(cl1_nb_net *nt, int64_t c, cl1_nb_act *x) {
  const cl1_tensor *xt = &nt->call->inputs[0];
  if (nt->call->n_inputs != 1 || nt->call->n_outputs != 1 || xt->ndim != 4 ||
      xt->dtype != CL1_F32 || xt->shape[1] != c)
    return nt->err = 1;
  *x = (cl1_nb_act){(float *)xt->data, xt->shape[0], c, xt->shape[2], xt->shape[3]};
  return 0;
}

/* The next param, which must be f32 of exactly this shape. */
static inline const float *cl1_nb_param(cl1_nb_net *nt, int nd, int64_t d0, int64_t d1,
                                        int64_t d2, int64_t d3) {
  const int64_t want[4] = {d0, d1, d2, d3};
  if (nt->err || nt->pi >= nt->call->n_params) return nt->err = 1, NULL;
  const cl1_tensor *t = &nt->call->params[nt->pi++];
  if (t->dtype != CL1_F32 || t->ndim != nd) return nt->err = 1, NULL;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != want[i]) return nt->err = 1, NULL;
  return (const float *)t->data;
}

/* nn.Conv2d(in.c, k, r, stride, pad, bias) from the next params (weight, then bias). */
static inline cl1_nb_act cl1_nb_conv(cl1_nb_net *nt, cl1_nb_act in, float *out, int64_t k,
                                     int64_t r, int64_t stride, int64_t pad, int bias) {
  cl1_conv2d_desc d = {.n = in.n, .c = in.c, .h = in.h, .w = in.w, .k = k, .r = r, .s = r,
                       .stride_h = stride, .stride_w = stride, .pad_h = pad, .pad_w = pad,
                       .dil_h = 1, .dil_w = 1, .groups = 1};
  const float *w = cl1_nb_param(nt, 4, k, in.c, r, r);
  const float *b = bias ? cl1_nb_param(nt, 1, k, 0, 0, 0) : NULL;
  cl1_nb_act o = cl1_nb_at(nt, out, in.n, k, cl1_conv2d_out_h(&d), cl1_conv2d_out_w(&d));
  if (nt->exec && !nt->err) nt->err = cl1_op_conv2d(nt->call->stream, in.p, w, b, o.p, &d);
  return o;
}

/* Training-mode BatchNorm2d from the next params (weight, bias): in -> out (may be in). */
static inline cl1_nb_act cl1_nb_bn(cl1_nb_net *nt, cl1_nb_act in, float *out) {
  const float *w = cl1_nb_param(nt, 1, in.c, 0, 0, 0), *b = cl1_nb_param(nt, 1, in.c, 0, 0, 0);
  cl1_nb_act o = cl1_nb_at(nt, out, in.n, in.c, in.h, in.w);
  if (nt->exec && !nt->err)
    nt->err = cl1_op_batchnorm_train(nt->call->stream, in.p, w, b, o.p, in.n, in.c,
                                     in.h * in.w, nt->eps);
  return o;
}

/* relu in place. */
static inline void cl1_nb_relu(cl1_nb_net *nt, cl1_nb_act a) {
  if (nt->exec && !nt->err)
    nt->err = cl1_op_relu(nt->call->stream, a.p, a.p, cl1_nb_numel(a));
}

/* max_pool2d / avg_pool2d(k, s, p, ceil_mode) of in into out. */
static inline cl1_nb_act cl1_nb_pool(cl1_nb_net *nt, int kind, cl1_nb_act in, float *out,
                                     int64_t k, int64_t s, int64_t p, int ceil_mode) {
  cl1_pool_desc d = {.nsp = 2, .planes = in.n * in.c, .ceil_mode = ceil_mode};
  for (int i = 0; i < 2; i++) {
    d.in[i] = i ? in.w : in.h, d.k[i] = k, d.stride[i] = s, d.pad[i] = p, d.dil[i] = 1;
    d.out[i] = cl1_pool_out_len(d.in[i], k, s, p, 1, ceil_mode);
  }
  if (cl1_pool_desc_check(kind, &d)) nt->err = 1;
  cl1_nb_act o = cl1_nb_at(nt, out, in.n, in.c, d.out[0], d.out[1]);
  if (nt->exec && !nt->err) nt->err = cl1_op_pool(nt->call->stream, kind, in.p, o.p, &d);
  return o;
}

/* torch.cat(parts, 1) into out: one cl1_op_cat_part per part. */
static inline cl1_nb_act cl1_nb_cat(cl1_nb_net *nt, const cl1_nb_act *parts, int k, float *out) {
  int64_t c = 0;
  for (int i = 0; i < k; i++) {
    if (parts[i].n != parts[0].n || parts[i].h != parts[0].h || parts[i].w != parts[0].w)
      nt->err = 1;
    c += parts[i].c;
  }
  cl1_nb_act o = cl1_nb_at(nt, out, parts[0].n, c, parts[0].h, parts[0].w);
  int64_t hw = o.h * o.w, off = 0;
  for (int i = 0; i < k && nt->exec && !nt->err; off += parts[i++].c * hw)
    nt->err = cl1_op_cat_part(nt->call->stream, parts[i].p, o.p, o.n, parts[i].c * hw, c * hw,
                              off);
  return o;
}

/* adaptive_avg_pool2d(in, 1) + flatten into scratch `pooled` (N, C), then the Linear from the
 * next params into the output (N, num_classes). */
static inline void cl1_nb_head(cl1_nb_net *nt, cl1_nb_act in, float *pooled) {
  const cl1_tensor *y = &nt->call->outputs[0];
  if (y->ndim != 2 || y->dtype != CL1_F32 || y->shape[0] != in.n) nt->err = 1;
  int64_t k = y->shape[1];
  const float *w = cl1_nb_param(nt, 2, k, in.c, 0, 0), *b = cl1_nb_param(nt, 1, k, 0, 0, 0);
  if (!nt->exec || nt->err) return;
  void *st = nt->call->stream;
  nt->err = cl1_op_reduce(st, CL1_REDUCE_MEAN, in.p, pooled, in.n * in.c, in.h * in.w, 1);
  if (!nt->err) nt->err = cl1_op_linear(st, pooled, w, b, (float *)y->data, in.n, k, in.c);
}

/* A fresh walk's attrs (init NULL: none), the walk, and the check that it used every param. */
static inline int cl1_nb_pass(cl1_nb_net *nt, const cl1_call *call, cl1_nb_init init,
                              cl1_nb_walk walk, const cl1_nb_state *s) {
  *nt = (cl1_nb_net){.call = call};
  if (init && init(call, nt)) return 1;
  if (s) nt->exec = 1, nt->cap = s->cap;
  walk(nt, s ? s->buf : NULL);
  if (nt->pi != call->n_params) nt->err = 1;
  return nt->err;
}

/* cl1_setup's body: the shapes-only walk, then nbuf scratch buffers of the largest activation. */
static inline int cl1_nb_setup(const cl1_call *call, void **state, int nbuf, cl1_nb_init init,
                               cl1_nb_walk walk) {
  cl1_nb_net nt;
  if (nbuf < 1 || nbuf > CL1_NB_MAXBUF || cl1_nb_pass(&nt, call, init, walk, NULL)) return 1;
  cl1_nb_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->nbuf = nbuf;
  for (int i = 0; i < nbuf; i++)
    if (!(s->buf[i] = cl1_op_alloc((size_t)nt.need * sizeof(float)))) nt.err = 1;
  if (nt.err) {
    for (int i = 0; i < nbuf; i++) cl1_op_free(s->buf[i]);
    return free(s), 1;
  }
  s->cap = nt.need;
  *state = s;
  return 0;
}

static inline void cl1_nb_teardown(void *state) {
  cl1_nb_state *s = state;
  if (!s) return;
  for (int i = 0; i < s->nbuf; i++) cl1_op_free(s->buf[i]);
  free(s);
}

/* cl1_forward's body: the walk that runs the ops in the buffers of cl1_nb_setup. */
static inline int cl1_nb_forward(const cl1_call *call, cl1_nb_init init, cl1_nb_walk walk) {
  cl1_nb_net nt;
  if (!call->state) return 1;
  return cl1_nb_pass(&nt, call, init, walk, call->state);
}

#endif
