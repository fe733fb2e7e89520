/* reference.c — level3/9_ResNet18 and level3/10_ResNet101 (its task.json names this file),
 * PyTorch eager order: conv1, bn1, relu, max_pool(3, 2, 1); four stages of widths 64..512 with
 * attrs stage0..stage3 blocks each ([2, 2, 2, 2] and [3, 4, 23, 3]); attr bottleneck picks the
 * block: 0, basic (conv3x3(stride)-bn-relu, conv3x3-bn), 1, bottleneck (conv1x1-bn-relu,
 * conv3x3(stride)-bn-relu, conv1x1(4x)-bn); then the 1x1 projection shortcut conv-bn where the
 * shape changes, add, relu; global mean, fc. Activations ping-pong among four scratch buffers;
 * BatchNorm and ReLU run in place, as PyTorch's inplace ReLU. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define NBUF 4
typedef struct {
  float *buf[NBUF];  // each holds the largest activation
  int64_t cap;       // their size in elements
} resnet_state;

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
  int bottleneck;  // attr: 0 basic blocks (ResNet18), 1 bottleneck blocks (ResNet101)
  int blocks[4];   // attrs stage0..stage3: blocks per stage
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

/* The stages: width (a basic block outputs it, a bottleneck block 4x) and the first block's
 * stride; the block counts are attrs. */
static const struct { int64_t width, stride; } stages[4] = {{64, 1}, {128, 2}, {256, 2}, {512, 2}};

/* The whole network; bufs NULL in the shapes-only walk. */
static void walk(net *nt, float *const *bufs) {
  const cl1_tensor *xt = &nt->call->inputs[0];
  if (nt->call->n_inputs != 1 || nt->call->n_outputs != 1 || xt->ndim != 4 ||
      xt->dtype != CL1_F32 || xt->shape[1] != 3)
    return (void)(nt->err = 1);
#define B(i) (bufs ? bufs[i] : NULL)
  act x = {(float *)xt->data, xt->shape[0], 3, xt->shape[2], xt->shape[3]};
  act t = conv(nt, x, B(0), 64, 7, 2, 3, 0);
  t = bnorm(nt, t, t.p);
  relu(nt, t);
  x = pool(nt, CL1_POOL_MAX, t, B(1), 3, 2, 1, 0);
  int xi = 1;  // the buffer holding x
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < nt->blocks[i]; j++) {
      int a = (xi + 1) % NBUF, b = (xi + 2) % NBUF, c = (xi + 3) % NBUF, yi;
      int64_t wd = stages[i].width, s = j ? 1 : stages[i].stride;
      act y;
      if (nt->bottleneck) {
        act t1 = conv(nt, x, B(a), wd, 1, 1, 0, 0);
        t1 = bnorm(nt, t1, t1.p);
        relu(nt, t1);
        act t2 = conv(nt, t1, B(b), wd, 3, s, 1, 0);
        t2 = bnorm(nt, t2, t2.p);
        relu(nt, t2);
        y = conv(nt, t2, B(a), 4 * wd, 1, 1, 0, 0);  // t1 is dead: its buffer takes y
        y = bnorm(nt, y, y.p), yi = a;
      } else {
        act t1 = conv(nt, x, B(a), wd, 3, s, 1, 0);
        t1 = bnorm(nt, t1, t1.p);
        relu(nt, t1);
        y = conv(nt, t1, B(b), wd, 3, 1, 1, 0);
        y = bnorm(nt, y, y.p), yi = b;
      }
      act id = x;
      if (s != 1 || x.c != y.c) {
        id = conv(nt, x, B(c), y.c, 1, s, 0, 0);
        id = bnorm(nt, id, id.p);
      }
      if (!nt->err && act_numel(id) != act_numel(y)) nt->err = 1;
      if (nt->exec && !nt->err)
        nt->err = cl1_op_binary(nt->call->stream, CL1_BINARY_ADD, y.p, id.p, y.p, act_numel(y));
      relu(nt, y);
      x = y, xi = yi;
    }
  head(nt, x, B((xi + 1) % NBUF));
#undef B
  if (nt->pi != nt->call->n_params) nt->err = 1;
}

/* The attrs into a fresh walk: eps, bottleneck (0 or 1), stage0..stage3 (1..64 blocks). */
static int attrs_of(const cl1_call *call, net *nt) {
  static const char *const names[4] = {"stage0", "stage1", "stage2", "stage3"};
  double v;
  *nt = (net){.call = call};
  if (cl1_op_attr(call, "eps", &nt->eps) || cl1_op_attr(call, "bottleneck", &v) ||
      (v != 0 && v != 1))
    return 1;
  nt->bottleneck = (int)v;
  for (int i = 0; i < 4; i++) {
    if (cl1_op_attr(call, names[i], &v) || v < 1 || v > 64 || v != (int)v) return 1;
    nt->blocks[i] = (int)v;
  }
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  net nt;
  if (attrs_of(call, &nt)) return 1;
  walk(&nt, NULL);
  if (nt.err) return 1;
  resnet_state *s = calloc(1, sizeof *s);
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
  resnet_state *s = state;
  if (!s) return;
  for (int i = 0; i < NBUF; i++) cl1_op_free(s->buf[i]);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  net nt;
  if (!call->state || attrs_of(call, &nt)) return 1;
  const resnet_state *s = call->state;
  nt.exec = 1, nt.cap = s->cap;
  walk(&nt, s->buf);
  return nt.err;
}
