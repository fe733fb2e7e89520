/* reference.c — level3/7_GoogleNetInceptionV1, PyTorch eager order: conv1 + relu, max_pool,
 * conv2 + relu, conv3 + relu, max_pool; nine inception modules from a static table (branches in
 * order 1x1; 1x1 -> 3x3; 1x1 -> 5x5; max_pool(3, 1, 1) -> 1x1, each branch its own tensor, then
 * torch.cat), with max_pool after 3b and 4e; global mean, fc (Dropout(0.0) is a no-op).
 * Scratch: two ping-pong buffers for the trunk, one per branch, one for the 1x1 reductions. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

#define NBUF 7  // trunk x2, branch outputs x4, reduction
#define STATE state7
typedef struct {
  float *buf[NBUF];  // each holds the largest activation
  int64_t cap;       // their size in elements
} state7;

/* The network walk: run twice, once in cl1_setup with exec = 0 (shapes only: validates every
 * param and sizes the scratch buffers) and once per cl1_forward with exec = 1 (the op calls). */
typedef struct {
  const cl1_call *call;
  int exec;      // 0: shapes only, 1: run the ops
  int err;       // first failure: a shape mismatch or an op's non-zero return
  int pi;        // the next param, in task.json (state_dict) order
  int64_t need;  // the largest activation seen, in elements (sizes the scratch buffers)
  int64_t cap;   // exec: the buffers' size in elements; a larger activation is an error
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

/* Inception modules: 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection; pool = a
 * max_pool(3, 2, 1) follows the module. */
static const struct { int64_t c1, r3, c3, r5, c5, cp; int pool; } incep7[] = {
    {64, 96, 128, 16, 32, 32, 0},     {128, 128, 192, 32, 96, 64, 1},  // 3a, 3b
    {192, 96, 208, 16, 48, 64, 0},    {160, 112, 224, 24, 64, 64, 0},  // 4a, 4b
    {128, 128, 256, 24, 64, 64, 0},   {112, 144, 288, 32, 64, 64, 0},  // 4c, 4d
    {256, 160, 320, 32, 128, 128, 1},                                  // 4e
    {256, 160, 320, 32, 128, 128, 0}, {384, 192, 384, 48, 128, 128, 0}};  // 5a, 5b

/* The whole network; bufs NULL in the shapes-only walk. */
static void walk(net *nt, float *const *bufs) {
  const cl1_tensor *xt = &nt->call->inputs[0];
  if (nt->call->n_inputs != 1 || nt->call->n_outputs != 1 || xt->ndim != 4 ||
      xt->dtype != CL1_F32 || xt->shape[1] != 3)
    return (void)(nt->err = 1);
#define B(i) (bufs ? bufs[i] : NULL)
  act x = {(float *)xt->data, xt->shape[0], 3, xt->shape[2], xt->shape[3]};
  act t = conv(nt, x, B(0), 64, 7, 2, 3, 1);
  relu(nt, t);
  x = pool(nt, CL1_POOL_MAX, t, B(1), 3, 2, 1, 0);
  t = conv(nt, x, B(0), 64, 1, 1, 0, 1);
  relu(nt, t);
  x = conv(nt, t, B(1), 192, 3, 1, 1, 1);
  relu(nt, x);
  x = pool(nt, CL1_POOL_MAX, x, B(0), 3, 2, 1, 0);
  int xi = 0;  // the trunk buffer holding x; 1 - xi is the other
  for (size_t i = 0; i < sizeof incep7 / sizeof incep7[0]; i++) {
    act br[4], r;
    br[0] = conv(nt, x, B(2), incep7[i].c1, 1, 1, 0, 1);
    r = conv(nt, x, B(6), incep7[i].r3, 1, 1, 0, 1);
    br[1] = conv(nt, r, B(3), incep7[i].c3, 3, 1, 1, 1);
    r = conv(nt, x, B(6), incep7[i].r5, 1, 1, 0, 1);
    br[2] = conv(nt, r, B(4), incep7[i].c5, 5, 1, 2, 1);
    r = pool(nt, CL1_POOL_MAX, x, B(6), 3, 1, 1, 0);
    br[3] = conv(nt, r, B(5), incep7[i].cp, 1, 1, 0, 1);
    x = cat(nt, br, 4, B(1 - xi)), xi = 1 - xi;
    if (incep7[i].pool) x = pool(nt, CL1_POOL_MAX, x, B(1 - xi), 3, 2, 1, 0), xi = 1 - xi;
  }
  head(nt, x, B(1 - xi));
#undef B
  if (nt->pi != nt->call->n_params) nt->err = 1;
}


CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  net nt = {.call = call};
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
  net nt = {.call = call};
  if (!call->state) return 1;
  const STATE *s = call->state;
  nt.exec = 1, nt.cap = s->cap;
  walk(&nt, s->buf);
  return nt.err;
}
