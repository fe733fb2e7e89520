/* reference.c — level3/26_ShuffleNet, PyTorch eager order: conv1 3x3/2 -> bn1 -> relu ->
 * maxpool 3/2/1, three stages of ShuffleNet units from a static table (1x1 group conv -> bn ->
 * relu, depthwise 3x3 -> bn, channel shuffle as a strided copy, 1x1 group conv -> bn -> relu,
 * + shortcut: x, or 1x1 conv -> bn for a stage's first unit), conv5 -> bn5 -> relu, adaptive
 * average pool (a mean over H*W), fc. BatchNorm uses batch statistics (training mode). One
 * walk over the layers serves both cl1_setup (dry: shapes checked, the largest activation
 * measured) and cl1_forward (ops run); activations rotate through four buffers of that size. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

static const int64_t REPEATS[3] = {3, 7, 3}, WIDTHS[4] = {24, 240, 480, 960};
enum { GROUPS = 3, C_HEAD = 1024, N_BUF = 4 };

typedef struct {
  float *buf[N_BUF];  // rotating activations, each max_act floats
  float *pooled;      // (N, C_HEAD)
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

static int relu(walk *w, float *y, int64_t c) {
  return w->dry ? 0 : cl1_op_relu(w->call->stream, y, y, w->n * c * w->h * w->w);
}

/* One unit from B[cur] (cin channels) into B[*out]; the other two buffers are scratch. */
static int unit(walk *w, float *const *B, int cur, int64_t cin, int64_t cout, int *out) {
  int a = (cur + 1) % N_BUF, b = (cur + 2) % N_BUF, c = (cur + 3) % N_BUF;
  int64_t mid = cout / 4, hw = w->h * w->w;
  void *st = w->call->stream;
  int rc = conv(w, B[cur], B[a], cin, mid, 1, 1, 0, GROUPS);
  if (!rc) rc = bnorm(w, B[a], mid);
  if (!rc) rc = relu(w, B[a], mid);
  if (!rc) rc = conv(w, B[a], B[b], mid, mid, 3, 1, 1, mid);
  if (!rc) rc = bnorm(w, B[b], mid);
  /* channel shuffle: out channel j*g + i is in channel i*(mid/g) + j */
  const int64_t shape[4] = {w->n, mid / GROUPS, GROUPS, hw},
                stride[4] = {mid * hw, hw, (mid / GROUPS) * hw, 1};
  if (!rc && !w->dry) rc = cl1_op_view_copy(st, B[b], B[a], 4, shape, stride);
  if (!rc) rc = conv(w, B[a], B[c], mid, cout, 1, 1, 0, GROUPS);
  if (!rc) rc = bnorm(w, B[c], cout);
  if (!rc) rc = relu(w, B[c], cout);
  int sc = cur;
  if (!rc && cin != cout) {
    rc = conv(w, B[cur], B[b], cin, cout, 1, 1, 0, 1);
    if (!rc) rc = bnorm(w, B[b], cout);
    sc = b;
  }
  if (!rc && !w->dry) rc = cl1_op_binary(st, CL1_BINARY_ADD, B[c], B[sc], B[c], w->n * cout * hw);
  *out = c;
  return rc;
}

static int run(const cl1_call *call, const net_state *s, walk *w) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->dtype != CL1_F32 || x->ndim != 4 || x->shape[1] != 3) return 1;
  if (y->dtype != CL1_F32 || y->ndim != 2 || y->shape[0] != x->shape[0]) return 1;
  if (cl1_op_attr(call, "eps", &w->eps)) return 1;
  w->n = x->shape[0], w->h = x->shape[2], w->w = x->shape[3];
  float *const *B = s ? s->buf : (float *const[N_BUF]){NULL, NULL, NULL, NULL};
  void *st = call->stream;
  int rc = conv(w, (const float *)x->data, B[1], 3, WIDTHS[0], 3, 2, 1, 1);
  if (!rc) rc = bnorm(w, B[1], WIDTHS[0]);
  if (!rc) rc = relu(w, B[1], WIDTHS[0]);
  if (rc) return rc;
  cl1_pool_desc pd = {.nsp = 2, .planes = w->n * WIDTHS[0]};
  for (int i = 0; i < 2; i++) {
    pd.in[i] = i ? w->w : w->h;
    pd.k[i] = 3, pd.stride[i] = 2, pd.pad[i] = 1, pd.dil[i] = 1;
    pd.out[i] = cl1_pool_out_len(pd.in[i], 3, 2, 1, 1, 0);
  }
  if (cl1_pool_desc_check(CL1_POOL_MAX, &pd)) return 1;
  w->h = pd.out[0], w->w = pd.out[1];
  if (!w->dry) rc = cl1_op_pool(st, CL1_POOL_MAX, B[1], B[0], &pd);
  int cur = 0;
  for (int sg = 0; sg < 3 && !rc; sg++)
    for (int64_t i = 0; i < REPEATS[sg] && !rc; i++)
      rc = unit(w, B, cur, i ? WIDTHS[sg + 1] : WIDTHS[sg], WIDTHS[sg + 1], &cur);
  int out = (cur + 1) % N_BUF;
  if (!rc) rc = conv(w, B[cur], B[out], WIDTHS[3], C_HEAD, 1, 1, 0, 1);
  if (!rc) rc = bnorm(w, B[out], C_HEAD);
  if (!rc) rc = relu(w, B[out], C_HEAD);
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
  for (int i = 0; i < N_BUF; i++) cl1_op_free(s->buf[i]);
  cl1_op_free(s->pooled);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  walk w = {.call = call, .dry = 1};
  if (run(call, NULL, &w)) return 1;
  net_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  int bad = 0;
  for (int i = 0; i < N_BUF; i++)
    bad |= !(s->buf[i] = cl1_op_alloc((size_t)w.max_act * sizeof(float)));
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
