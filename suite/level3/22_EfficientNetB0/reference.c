/* reference.c — level3/22_EfficientNetB0, PyTorch eager order: conv1 -> bn1 -> relu, the 13
 * MBConv blocks of a static table (1x1 expand conv -> bn -> relu6 when expand != 1, depthwise
 * conv -> bn -> relu6, 1x1 project conv -> bn, + identity when stride 1 and in == out), conv2
 * -> bn2 -> relu, adaptive average pool to 1x1 (a mean over H*W), fc. BatchNorm uses batch
 * statistics (training mode). One walk over the layers serves both cl1_setup (dry: shapes
 * checked, the largest activation measured) and cl1_forward (ops run); activations rotate
 * through three buffers of that size. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { int64_t cin, cout, k, stride, expand; } block_spec;
static const block_spec BLOCKS[] = {
    {32, 16, 3, 1, 1},   {16, 24, 3, 2, 6},   {24, 24, 3, 1, 6},   {24, 40, 5, 2, 6},
    {40, 40, 5, 1, 6},   {40, 80, 3, 2, 6},   {80, 80, 3, 1, 6},   {80, 112, 5, 1, 6},
    {112, 112, 5, 1, 6}, {112, 192, 5, 2, 6}, {192, 192, 5, 1, 6}, {192, 192, 5, 1, 6},
    {192, 320, 3, 1, 6}};
enum { N_BLOCKS = sizeof BLOCKS / sizeof BLOCKS[0], C_STEM = 32, C_HEAD = 1280 };

typedef struct {
  float *buf[3];  // rotating activations, each max_act floats
  float *pooled;  // (N, C_HEAD)
} net_state;

typedef struct {
  const cl1_call *call;
  int next;         // next param to take
  int dry;          // 1: check shapes only
  int64_t n, h, w;  // batch and the current spatial size
  int64_t max_act;  // largest activation seen (floats)
  double eps;
} walk;

/* The next param, checked to be f32 with the given shape (unused trailing dims 0). */
static const float *take(walk *w, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
  if (w->next >= w->call->n_params) return NULL;
  const cl1_tensor *t = &w->call->params[w->next++];
  const int64_t d[4] = {d0, d1, d2, d3};
  if (t->dtype != CL1_F32 || t->ndim != nd) return NULL;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != d[i]) return NULL;
  return w->dry ? (const float *)"" : (const float *)t->data;  // dry: any non-NULL marker
}

static void grow(walk *w, int64_t numel) {
  if (numel > w->max_act) w->max_act = numel;
}

/* y = conv2d(x) with a square kernel, no bias; updates w->h, w->w to the output size. */
static int conv(walk *w, const float *x, float *y, int64_t c, int64_t k, int64_t r,
                int64_t stride, int64_t pad, int64_t groups) {
  const float *wt = take(w, 4, k, c / groups, r, r);
  if (!wt) return 1;
  cl1_conv2d_desc d = {.n = w->n, .c = c, .h = w->h, .w = w->w, .k = k, .r = r, .s = r,
                       .stride_h = stride, .stride_w = stride, .pad_h = pad, .pad_w = pad,
                       .dil_h = 1, .dil_w = 1, .groups = groups};
  int64_t oh = cl1_conv2d_out_h(&d), ow = cl1_conv2d_out_w(&d);
  if (oh < 1 || ow < 1) return 1;
  w->h = oh, w->w = ow;
  grow(w, w->n * k * oh * ow);
  return w->dry ? 0 : cl1_op_conv2d(w->call->stream, x, wt, NULL, y, &d);
}

/* BatchNorm2d(c) in training mode, in place on y (N, c, h, w). */
static int bnorm(walk *w, float *y, int64_t c) {
  const float *g = take(w, 1, c, 0, 0, 0), *b = take(w, 1, c, 0, 0, 0);
  if (!g || !b) return 1;
  return w->dry ? 0 : cl1_op_batchnorm_train(w->call->stream, y, g, b, y, w->n, c,
                                             w->h * w->w, w->eps);
}

/* relu6 (hardtanh 0..6, as nn.ReLU6) or relu in place on (N, c, h, w). */
static int act(walk *w, float *y, int64_t c, int relu6) {
  if (w->dry) return 0;
  int64_t n = w->n * c * w->h * w->w;
  return relu6 ? cl1_op_unary(w->call->stream, CL1_UNARY_HARDTANH, y, y, n, 0.0, 6.0)
               : cl1_op_relu(w->call->stream, y, y, n);
}

static int run(const cl1_call *call, const net_state *s, walk *w) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->dtype != CL1_F32 || x->ndim != 4 || x->shape[1] != 3) return 1;
  if (y->dtype != CL1_F32 || y->ndim != 2 || y->shape[0] != x->shape[0]) return 1;
  if (cl1_op_attr(call, "eps", &w->eps)) return 1;
  w->n = x->shape[0], w->h = x->shape[2], w->w = x->shape[3];
  float *const *B = s ? s->buf : (float *const[3]){NULL, NULL, NULL};
  void *st = call->stream;
  int rc = conv(w, (const float *)x->data, B[0], 3, C_STEM, 3, 2, 1, 1);
  if (!rc) rc = bnorm(w, B[0], C_STEM);
  if (!rc) rc = act(w, B[0], C_STEM, 0);
  int cur = 0;
  for (int i = 0; i < N_BLOCKS && !rc; i++) {
    const block_spec *b = &BLOCKS[i];
    int64_t hid = b->cin * b->expand, h0 = w->h, w0 = w->w;
    int t1 = (cur + 1) % 3, t2 = (cur + 2) % 3, src = cur, dw = t1, proj = t2;
    if (b->expand != 1) {
      rc = conv(w, B[cur], B[t1], b->cin, hid, 1, 1, 0, 1);
      if (!rc) rc = bnorm(w, B[t1], hid);
      if (!rc) rc = act(w, B[t1], hid, 1);
      src = t1, dw = t2, proj = t1;
    }
    if (!rc) rc = conv(w, B[src], B[dw], hid, hid, b->k, b->stride, (b->k - 1) / 2, hid);
    if (!rc) rc = bnorm(w, B[dw], hid);
    if (!rc) rc = act(w, B[dw], hid, 1);
    if (!rc) rc = conv(w, B[dw], B[proj], hid, b->cout, 1, 1, 0, 1);
    if (!rc) rc = bnorm(w, B[proj], b->cout);
    if (!rc && b->stride == 1 && b->cin == b->cout) {
      if (w->h != h0 || w->w != w0) return 1;
      if (!w->dry)
        rc = cl1_op_binary(st, CL1_BINARY_ADD, B[proj], B[cur], B[proj],
                           w->n * b->cout * w->h * w->w);
    }
    cur = proj;
  }
  int out = (cur + 1) % 3;
  if (!rc) rc = conv(w, B[cur], B[out], BLOCKS[N_BLOCKS - 1].cout, C_HEAD, 1, 1, 0, 1);
  if (!rc) rc = bnorm(w, B[out], C_HEAD);
  if (!rc) rc = act(w, B[out], C_HEAD, 0);
  if (rc) return rc;
  int64_t classes = y->shape[1];
  const float *fw = take(w, 2, classes, C_HEAD, 0, 0), *fb = take(w, 1, classes, 0, 0, 0);
  if (!fw || !fb || w->next != call->n_params) return 1;
  if (w->dry) return 0;
  rc = cl1_op_reduce(st, CL1_REDUCE_MEAN, B[out], s->pooled, w->n * C_HEAD, w->h * w->w, 1);
  if (!rc) rc = cl1_op_linear(st, s->pooled, fw, fb, (float *)y->data, w->n, classes, C_HEAD);
  return rc;
}

CL1_EXPORT void cl1_teardown(void *state) {
  net_state *s = state;
  if (!s) return;
  for (int i = 0; i < 3; i++) cl1_op_free(s->buf[i]);
  cl1_op_free(s->pooled);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  walk w = {.call = call, .dry = 1};
  if (run(call, NULL, &w)) return 1;
  net_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  int bad = 0;
  for (int i = 0; i < 3; i++) bad |= !(s->buf[i] = cl1_op_alloc((size_t)w.max_act * sizeof(float)));
  bad |= !(s->pooled = cl1_op_alloc((size_t)(w.n * C_HEAD) * sizeof(float)));
  if (bad) return cl1_teardown(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (!call->state) return 1;
  walk w = {.call = call, .dry = 0};
  return run(call, call->state, &w);
}
