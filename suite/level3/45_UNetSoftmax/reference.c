/* reference.c — level3/45_UNetSoftmax, PyTorch eager order: four encoder levels (DoubleConv,
 * then 2x2 max pool), the bottleneck DoubleConv, four decoder levels (ConvTranspose 2x2/2,
 * torch.cat((up, enc_i), dim=1) as two cat parts, DoubleConv), final 1x1 conv. DoubleConv is
 * conv 3x3 (bias) -> BatchNorm (batch statistics, training mode) -> softmax over the last dim
 * (W), twice. Convolutions and transposed convolutions run in full FP32 when attr conv_tf32 is
 * 0 (see task.json notes). One walk over the layers serves both cl1_setup (dry: shapes checked,
 * the largest scratch tensor measured) and cl1_forward (ops run). The encoder outputs live in
 * their own buffers for the skip connections; everything else rotates through three scratch
 * buffers S0..S2. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

enum { LEVELS = 4 };

typedef struct {
  float *enc[LEVELS];  // encoder outputs (N, f << i, H >> i, W >> i)
  float *s[3];         // scratch, each max_act floats
} net_state;

typedef struct {
  const cl1_call *call;
  int next;         // next param to take
  int dry;          // 1: check shapes only
  int no_tf32;      // 1: full-FP32 (transposed) convolutions (attr conv_tf32 == 0)
  int64_t n, h, w;  // batch and the current spatial size
  int64_t max_act;  // largest scratch tensor seen (floats)
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

static void grow(walk *w, int64_t c) {
  int64_t numel = w->n * c * w->h * w->w;
  if (numel > w->max_act) w->max_act = numel;
}

/* y = conv2d(x) + bias, square kernel r, stride 1, padding (r - 1) / 2: keeps h, w. */
static int conv(walk *w, const float *x, float *y, int64_t c, int64_t k, int64_t r) {
  const float *wt = take(w, 4, k, c, r, r), *b = take(w, 1, k, 0, 0, 0);
  if (!wt || !b) return 1;
  cl1_convnd_desc d = {.nd = 2, .n = w->n, .c = c, .k = k, .groups = 1, .in = {w->h, w->w},
                       .ker = {r, r}, .stride = {1, 1}, .pad = {(r - 1) / 2, (r - 1) / 2},
                       .dil = {1, 1}, .no_tf32 = w->no_tf32};
  if (!cl1_convnd_valid(&d) || cl1_convnd_out(&d, 0) != w->h || cl1_convnd_out(&d, 1) != w->w)
    return 1;
  grow(w, k);
  return w->dry ? 0 : cl1_op_convnd(w->call->stream, x, wt, b, y, &d);
}

/* BatchNorm2d(c) in training mode, in place on y (N, c, h, w). */
static int bnorm(walk *w, float *y, int64_t c) {
  const float *g = take(w, 1, c, 0, 0, 0), *b = take(w, 1, c, 0, 0, 0);
  if (!g || !b) return 1;
  return w->dry ? 0 : cl1_op_batchnorm_train(w->call->stream, y, g, b, y, w->n, c,
                                             w->h * w->w, w->eps);
}

/* nn.Softmax(dim=-1) on (N, c, h, w): rows of w. */
static int softmax(walk *w, const float *x, float *y, int64_t c) {
  return w->dry ? 0 : cl1_op_softmax(w->call->stream, x, y, w->n * c * w->h, w->w);
}

/* DoubleConv(c -> k) from x into y through scratch p and q: p must differ from x and y (q may
 * be x: the first conv has read x by then; y may be x or q). */
static int double_conv(walk *w, const float *x, float *y, float *p, float *q, int64_t c,
                       int64_t k) {
  int rc = conv(w, x, p, c, k, 3);
  if (!rc) rc = bnorm(w, p, k);
  if (!rc) rc = softmax(w, p, q, k);
  if (!rc) rc = conv(w, q, p, k, k, 3);
  if (!rc) rc = bnorm(w, p, k);
  if (!rc) rc = softmax(w, p, y, k);
  return rc;
}

/* MaxPool2d(2, 2) on (N, c, h, w); halves h and w (floor, as PyTorch). */
static int maxpool(walk *w, const float *x, float *y, int64_t c) {
  cl1_pool_desc d = {.nsp = 2, .planes = w->n * c, .in = {w->h, w->w},
                     .out = {w->h / 2, w->w / 2}, .k = {2, 2}, .stride = {2, 2},
                     .dil = {1, 1}};
  if (cl1_pool_desc_check(CL1_POOL_MAX, &d)) return 1;
  w->h /= 2, w->w /= 2;
  grow(w, c);
  return w->dry ? 0 : cl1_op_pool(w->call->stream, CL1_POOL_MAX, x, y, &d);
}

/* ConvTranspose2d(c -> k, 2, stride 2) + bias; doubles h and w. */
static int upconv(walk *w, const float *x, float *y, int64_t c, int64_t k) {
  const float *wt = take(w, 4, c, k, 2, 2), *b = take(w, 1, k, 0, 0, 0);
  if (!wt || !b) return 1;
  cl1_convt_desc d = {.nd = 2, .n = w->n, .c_in = c, .c_out = k, .in = {w->h, w->w},
                      .k = {2, 2}, .stride = {2, 2}, .dil = {1, 1}, .groups = 1,
                      .no_tf32 = w->no_tf32};
  if (cl1_convt_check(&d)) return 1;
  w->h = cl1_convt_out(&d, 0), w->w = cl1_convt_out(&d, 1);
  grow(w, k);
  if (w->dry) return 0;
  return cl1_op_convtnd(w->call->stream, x, wt, b, y, &d);
}

static int run(const cl1_call *call, const net_state *s, walk *w) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  double tf32, feat;
  if (cl1_op_attr(call, "eps", &w->eps) || cl1_op_attr(call, "conv_tf32", &tf32) ||
      cl1_op_attr(call, "features", &feat) || feat < 1)
    return 1;
  w->no_tf32 = tf32 == 0;
  if (x->dtype != CL1_F32 || x->ndim != 4 || y->dtype != CL1_F32 || y->ndim != 4) return 1;
  const int64_t f = (int64_t)feat, cin = x->shape[1], cout = y->shape[1];
  const int64_t H = x->shape[2], W = x->shape[3];
  w->n = x->shape[0], w->h = H, w->w = W;
  // torch.cat needs every upsampled map to match its encoder map: H, W divisible by 16
  if (H % 16 || W % 16 || y->shape[0] != w->n || y->shape[2] != H || y->shape[3] != W) return 1;
  float *const *E = s ? s->enc : (float *const[LEVELS]){NULL, NULL, NULL, NULL};
  float *const *S = s ? s->s : (float *const[3]){NULL, NULL, NULL};
  void *st = call->stream;
  // encoder: level i reads S0 (x at level 0), writes enc_i, pools it into S0
  int rc = 0;
  const float *in = (const float *)x->data;
  int64_t c = cin;
  for (int i = 0; i < LEVELS && !rc; i++) {
    rc = double_conv(w, in, E[i], S[1], S[2], c, f << i);
    c = f << i;
    if (!rc) rc = maxpool(w, E[i], S[0], c);
    in = S[0];
  }
  if (!rc) rc = double_conv(w, S[0], S[0], S[1], S[0], c, f << LEVELS);  // bottleneck
  c = f << LEVELS;
  // decoder: upconv S0 -> S1, cat (S1, enc_i) -> S2, DoubleConv S2 -> S0
  for (int i = LEVELS - 1; i >= 0 && !rc; i--) {
    int64_t k = f << i, hw = 0;
    rc = upconv(w, S[0], S[1], c, k);
    if (!rc && (w->h != H >> i || w->w != W >> i)) rc = 1;
    hw = w->h * w->w;
    grow(w, 2 * k);
    if (!rc && !w->dry) rc = cl1_cat_part(st, S[1], S[2], w->n, k * hw, 2 * k * hw, 0);
    if (!rc && !w->dry) rc = cl1_cat_part(st, E[i], S[2], w->n, k * hw, 2 * k * hw, k * hw);
    if (!rc) rc = double_conv(w, S[2], S[0], S[1], S[0], 2 * k, k);
    c = k;
  }
  if (!rc) rc = conv(w, S[0], (float *)y->data, f, cout, 1);  // final_conv
  if (!rc && w->next != call->n_params) rc = 1;
  return rc;
}

CL1_EXPORT void cl1_teardown(void *state) {
  net_state *s = state;
  if (!s) return;
  for (int i = 0; i < LEVELS; i++) cl1_op_free(s->enc[i]);
  for (int i = 0; i < 3; i++) cl1_op_free(s->s[i]);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  walk w = {.call = call, .dry = 1};
  if (run(call, NULL, &w)) return 1;
  double feat;
  if (cl1_op_attr(call, "features", &feat)) return 1;
  const cl1_tensor *x = &call->inputs[0];
  net_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  int bad = 0;
  for (int i = 0; i < LEVELS; i++) {
    size_t numel = (size_t)(x->shape[0] * ((int64_t)feat << i) * (x->shape[2] >> i) *
                            (x->shape[3] >> i));
    bad |= !(s->enc[i] = cl1_op_alloc(numel * sizeof(float)));
  }
  for (int i = 0; i < 3; i++) bad |= !(s->s[i] = cl1_op_alloc((size_t)w.max_act * sizeof(float)));
  if (bad) return cl1_teardown(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (!call->state) return 1;
  walk w = {.call = call, .dry = 0};
  return run(call, call->state, &w);
}
