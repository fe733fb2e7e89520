/* reference.c — level3/15_DenseNet121 and level3/16_DenseNet201 (its task.json names this file),
 * PyTorch eager order: features (conv7x7/2, bn, relu, max_pool(3, 2, 1)); 4 dense blocks of
 * attrs block0..block3 layers ([6, 12, 24, 16] and [6, 12, 48, 32]), each layer i batch_norm +
 * relu of the current concatenation, 3x3 conv into its own feature tensor, then torch.cat([x,
 * f_0..f_i], 1) afresh (one cl1_op_cat_part per part, as eager copies them); transitions bn, relu,
 * 1x1 conv, avg_pool(2, 2); final bn, relu, global mean, classifier (Dropout(0.0) is a no-op).
 * Params are indexed as the state_dict orders them (all blocks, then all transitions), not in call
 * order. */
#include <stdio.h>
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

enum { X0, FEAT, T, X, U, NBUF };  // block input, new features, bn out, concatenation, conv out
#define STATE densenet_state
#define MAX_PARTS 64
typedef struct {
  float *buf[NBUF];  // each holds the largest activation (or a block's features)
  int64_t cap;       // their size in elements
} densenet_state;

/* The network walk: run twice, once in cl1_setup with exec = 0 (shapes only: validates every
 * param and sizes the scratch buffers) and once per cl1_forward with exec = 1 (the op calls). */
typedef struct {
  const cl1_call *call;
  int exec;      // 0: shapes only, 1: run the ops
  int err;       // first failure: a shape mismatch or an op's non-zero return
  int pi;        // the next param, in task.json (state_dict) order
  int64_t need;  // the largest activation seen, in elements (sizes the scratch buffers)
  int64_t cap;   // exec: the buffers' size in elements; a larger activation is an error
  double eps;
} net;

/* An activation (N, c, h, w) held in p (NULL while only shapes are walked). */
typedef struct {
  float *p;
  int64_t n, c, h, w;
} act;

static int64_t act_numel(act a) { return a.n * a.c * a.h * a.w; }

/* An output activation of shape (n, c, h, w) in buffer p; counts towards the buffer size. */
static act act_at(net *nt, float *p, int64_t n, int64_t c, int64_t h, int64_t w) {
  act a = {p, n, c, h, w};
  if (h < 1 || w < 1 || (nt->exec && act_numel(a) > nt->cap)) nt->err = 1;
  if (act_numel(a) > nt->need) nt->need = act_numel(a);
  return a;
}

/* The next param, which must be f32 of exactly this shape; NULL in the shapes-only walk. */
static const float *param(net *nt, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
  const int64_t want[4] = {d0, d1, d2, d3};
  if (nt->err || nt->pi >= nt->call->n_params) return nt->err = 1, NULL;
  const cl1_tensor *t = &nt->call->params[nt->pi++];
  if (t->dtype != CL1_F32 || t->ndim != nd) return nt->err = 1, NULL;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != want[i]) return nt->err = 1, NULL;
  return (const float *)t->data;
}

/* nn.Conv2d(in.c, k, r, stride, pad, bias) from the next params (weight, then bias). */
static act conv(net *nt, act in, float *out, int64_t k, int64_t r, int64_t stride, int64_t pad,
                int bias) {
  cl1_conv2d_desc d = {.n = in.n, .c = in.c, .h = in.h, .w = in.w, .k = k, .r = r, .s = r,
                       .stride_h = stride, .stride_w = stride, .pad_h = pad, .pad_w = pad,
                       .dil_h = 1, .dil_w = 1, .groups = 1};
  const float *w = param(nt, 4, k, in.c, r, r), *b = bias ? param(nt, 1, k, 0, 0, 0) : NULL;
  act o = act_at(nt, out, in.n, k, cl1_conv2d_out_h(&d), cl1_conv2d_out_w(&d));
  if (nt->exec && !nt->err) nt->err = cl1_op_conv2d(nt->call->stream, in.p, w, b, o.p, &d);
  return o;
}

/* Training-mode BatchNorm2d from the next params (weight, bias): in -> out (may be in). */
static act bnorm(net *nt, act in, float *out) {
  const float *w = param(nt, 1, in.c, 0, 0, 0), *b = param(nt, 1, in.c, 0, 0, 0);
  act o = act_at(nt, out, in.n, in.c, in.h, in.w);
  if (nt->exec && !nt->err)
    nt->err = cl1_op_batchnorm_train(nt->call->stream, in.p, w, b, o.p, in.n, in.c,
                                     in.h * in.w, nt->eps);
  return o;
}

/* relu in place. */
static void relu(net *nt, act a) {
  if (nt->exec && !nt->err) nt->err = cl1_op_relu(nt->call->stream, a.p, a.p, act_numel(a));
}

/* max_pool2d / avg_pool2d(k, s, p, ceil_mode) of in into out. */
static act pool(net *nt, int kind, act in, float *out, int64_t k, int64_t s, int64_t p,
                int ceil_mode) {
  cl1_pool_desc d = {.nsp = 2, .planes = in.n * in.c, .ceil_mode = ceil_mode};
  for (int i = 0; i < 2; i++) {
    d.in[i] = i ? in.w : in.h, d.k[i] = k, d.stride[i] = s, d.pad[i] = p, d.dil[i] = 1;
    d.out[i] = cl1_pool_out_len(d.in[i], k, s, p, 1, ceil_mode);
  }
  if (cl1_pool_desc_check(kind, &d)) nt->err = 1;
  act o = act_at(nt, out, in.n, in.c, d.out[0], d.out[1]);
  if (nt->exec && !nt->err) nt->err = cl1_op_pool(nt->call->stream, kind, in.p, o.p, &d);
  return o;
}

/* torch.cat(parts, 1) into out: one cl1_op_cat_part per part. */
static act cat(net *nt, const act *parts, int k, float *out) {
  int64_t c = 0;
  for (int i = 0; i < k; i++) {
    if (parts[i].n != parts[0].n || parts[i].h != parts[0].h || parts[i].w != parts[0].w)
      nt->err = 1;
    c += parts[i].c;
  }
  act o = act_at(nt, out, parts[0].n, c, parts[0].h, parts[0].w);
  int64_t hw = o.h * o.w, off = 0;
  for (int i = 0; i < k && nt->exec && !nt->err; off += parts[i++].c * hw)
    nt->err = cl1_op_cat_part(nt->call->stream, parts[i].p, o.p, o.n, parts[i].c * hw, c * hw, off);
  return o;
}

/* adaptive_avg_pool2d(in, 1) + flatten into scratch `pooled` (N, C), then the Linear from the
 * next params into the output (N, num_classes). */
static void head(net *nt, act in, float *pooled) {
  const cl1_tensor *y = &nt->call->outputs[0];
  if (y->ndim != 2 || y->dtype != CL1_F32 || y->shape[0] != in.n) nt->err = 1;
  int64_t k = y->shape[1];
  const float *w = param(nt, 2, k, in.c, 0, 0), *b = param(nt, 1, k, 0, 0, 0);
  if (!nt->exec || nt->err) return;
  void *st = nt->call->stream;
  nt->err = cl1_op_reduce(st, CL1_REDUCE_MEAN, in.p, pooled, in.n * in.c, in.h * in.w, 1);
  if (!nt->err) nt->err = cl1_op_linear(st, pooled, w, b, (float *)y->data, in.n, k, in.c);
}

#define NBLOCKS 4

/* Layers in dense block b (attr "block<b>"), 0 when the attr is missing or out of range. */
static int block_layers(const cl1_call *call, int b) {
  char name[16];
  snprintf(name, sizeof name, "block%d", b);
  double v;
  if (cl1_op_attr(call, name, &v) || v < 1 || v > MAX_PARTS - 1) return 0;
  return (int)v;
}
#define GROWTH 32

/* The whole network; bufs NULL in the shapes-only walk. */
static void walk(net *nt, float *const *bufs) {
  const cl1_tensor *xt = &nt->call->inputs[0];
  if (nt->call->n_inputs != 1 || nt->call->n_outputs != 1 || xt->ndim != 4 ||
      xt->dtype != CL1_F32 || xt->shape[1] != 3)
    return (void)(nt->err = 1);
#define B(i) (bufs ? bufs[i] : NULL)
  int total = 0;  // dense layers in all blocks
  for (int b = 0; b < NBLOCKS; b++) {
    if (!block_layers(nt->call, b)) return (void)(nt->err = 1);
    total += block_layers(nt->call, b);
  }
  act x = {(float *)xt->data, xt->shape[0], 3, xt->shape[2], xt->shape[3]};
  act t = conv(nt, x, B(T), 64, 7, 2, 3, 0);
  t = bnorm(nt, t, t.p);
  relu(nt, t);
  act x0 = pool(nt, CL1_POOL_MAX, t, B(X0), 3, 2, 1, 0);
  int first = 0;  // the block's first dense layer, over all blocks
  for (int b = 0; b < NBLOCKS; b++) {
    int L = block_layers(nt->call, b);
    if (L + 1 > MAX_PARTS) return (void)(nt->err = 1);
    act_at(nt, NULL, x0.n, L * GROWTH, x0.h, x0.w);  // the block's features share one buffer
    int64_t fsz = x0.n * GROWTH * x0.h * x0.w;       // one feature: (N, G, H, W)
    act parts[MAX_PARTS] = {x0}, xi = x0;
    for (int i = 0; i < L; i++) {
      nt->pi = 3 + 3 * (first + i);  // dense_blocks.b.layers.i: bn weight, bn bias, conv
      t = bnorm(nt, xi, B(T));
      relu(nt, t);
      parts[i + 1] = conv(nt, t, bufs ? bufs[FEAT] + i * fsz : NULL, GROWTH, 3, 1, 1, 0);
      xi = cat(nt, parts, i + 2, B(X));
    }
    first += L;
    nt->pi = 3 + 3 * total + 3 * b;  // transition_layers.b, or final_bn after the last block
    if (b == NBLOCKS - 1) {
      t = bnorm(nt, xi, B(T));
      relu(nt, t);
      head(nt, t, B(U));
    } else {
      t = bnorm(nt, xi, B(T));
      relu(nt, t);
      act u = conv(nt, t, B(U), xi.c / 2, 1, 1, 0, 0);
      x0 = pool(nt, CL1_POOL_AVG, u, B(X0), 2, 2, 0, 0);
    }
  }
#undef B
  if (nt->pi != nt->call->n_params) nt->err = 1;
}

static int eps_of(const cl1_call *call, net *nt) {
  *nt = (net){.call = call};
  return cl1_op_attr(call, "eps", &nt->eps);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  net nt;
  if (eps_of(call, &nt)) return 1;
  walk(&nt, NULL);
  if (nt.err) return 1;
  STATE *s = calloc(1, sizeof *s);
  if (!s) return 1;
  for (int i = 0; i < NBUF; i++)
    if (!(s->buf[i] = cl1_op_alloc((size_t)nt.need * sizeof(float)))) nt.err = 1;
  if (nt.err) {
    for (int i = 0; i < NBUF; i++) cl1_op_free(s->buf[i]);
    return free(s), 1;
  }
  s->cap = nt.need;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  STATE *s = state;
  if (!s) return;
  for (int i = 0; i < NBUF; i++) cl1_op_free(s->buf[i]);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  net nt;
  if (!call->state || eps_of(call, &nt)) return 1;
  const STATE *s = call->state;
  nt.exec = 1, nt.cap = s->cap;
  walk(&nt, s->buf);
  return nt.err;
}
