/* reference.c — level3/27_RegNet, PyTorch eager order: three stages from a static width table,
 * each conv 3x3 (pad 1, bias) -> bn -> relu -> conv 3x3 (pad 1, bias) -> bn -> relu ->
 * maxpool 2/2; then torch.mean over (H, W) and fc. BatchNorm uses batch statistics (training
 * mode). Shapes are checked in cl1_setup and again in cl1_forward by the same walk (dry: no ops
 * run); activations ping-pong between two buffers sized for the largest one. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

static const int64_t WIDTHS[] = {64, 128, 256};
enum { N_STAGES = sizeof WIDTHS / sizeof WIDTHS[0] };

typedef struct {
  float *buf[2];  // ping-pong activations, each max_act floats
  float *pooled;  // (N, WIDTHS[last])
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

/* conv 3x3 pad 1 with bias -> bn -> relu, x (N, c, h, w) into y (N, k, h, w). */
static int conv_bn_relu(walk *w, const float *x, float *y, int64_t c, int64_t k) {
  const float *wt = take(w, 4, k, c, 3, 3), *b = take(w, 1, k, 0, 0, 0);
  const float *g = take(w, 1, k, 0, 0, 0), *beta = take(w, 1, k, 0, 0, 0);
  if (!wt || !b || !g || !beta) return 1;
  int64_t n = w->n * k * w->h * w->w;
  if (n > w->max_act) w->max_act = n;
  if (w->dry) return 0;
  cl1_conv2d_desc d = {.n = w->n, .c = c, .h = w->h, .w = w->w, .k = k, .r = 3, .s = 3,
                       .stride_h = 1, .stride_w = 1, .pad_h = 1, .pad_w = 1, .dil_h = 1,
                       .dil_w = 1, .groups = 1};
  void *st = w->call->stream;
  int rc = cl1_op_conv2d(st, x, wt, b, y, &d);
  if (!rc) rc = cl1_op_batchnorm_train(st, y, g, beta, y, w->n, k, w->h * w->w, w->eps);
  if (!rc) rc = cl1_op_relu(st, y, y, n);
  return rc;
}

static int run(const cl1_call *call, const net_state *s, walk *w) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->dtype != CL1_F32 || x->ndim != 4) return 1;
  if (y->dtype != CL1_F32 || y->ndim != 2 || y->shape[0] != x->shape[0]) return 1;
  if (cl1_op_attr(call, "eps", &w->eps)) return 1;
  w->n = x->shape[0], w->h = x->shape[2], w->w = x->shape[3];
  float *const *B = s ? s->buf : (float *const[2]){NULL, NULL};
  void *st = call->stream;
  const float *cur = (const float *)x->data;
  int64_t c = x->shape[1];
  int p = 1;  // cur's buffer (the input counts as buffer 1: stage one writes buffer 0 first)
  for (int i = 0; i < N_STAGES; i++) {
    int64_t k = WIDTHS[i];
    int o = 1 - p;
    if (conv_bn_relu(w, cur, B[o], c, k) || conv_bn_relu(w, B[o], B[p], k, k)) return 1;
    cl1_pool_desc pd = {.nsp = 2, .planes = w->n * k};
    for (int j = 0; j < 2; j++) {
      pd.in[j] = j ? w->w : w->h;
      pd.k[j] = 2, pd.stride[j] = 2, pd.pad[j] = 0, pd.dil[j] = 1;
      pd.out[j] = cl1_pool_out_len(pd.in[j], 2, 2, 0, 1, 0);
    }
    if (cl1_pool_desc_check(CL1_POOL_MAX, &pd)) return 1;
    w->h = pd.out[0], w->w = pd.out[1];
    if (!w->dry && cl1_op_pool(st, CL1_POOL_MAX, B[p], B[o], &pd)) return 1;
    cur = B[o], c = k, p = o;
  }
  int64_t classes = y->shape[1];
  const float *fw = take(w, 2, classes, c, 0, 0), *fb = take(w, 1, classes, 0, 0, 0);
  if (!fw || !fb || w->next != call->n_params) return 1;
  if (w->dry) return 0;
  int rc = cl1_op_reduce(st, CL1_REDUCE_MEAN, cur, s->pooled, w->n * c, w->h * w->w, 1);
  if (!rc) rc = cl1_op_linear(st, s->pooled, fw, fb, (float *)y->data, w->n, classes, c);
  return rc;
}

CL1_EXPORT void cl1_teardown(void *state) {
  net_state *s = state;
  if (!s) return;
  cl1_op_free(s->buf[0]), cl1_op_free(s->buf[1]), cl1_op_free(s->pooled);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  walk w = {.call = call, .dry = 1};
  if (run(call, NULL, &w)) return 1;
  net_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  for (int i = 0; i < 2; i++) s->buf[i] = cl1_op_alloc((size_t)w.max_act * sizeof(float));
  s->pooled = cl1_op_alloc((size_t)(w.n * WIDTHS[N_STAGES - 1]) * sizeof(float));
  if (!s->buf[0] || !s->buf[1] || !s->pooled) return cl1_teardown(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (!call->state) return 1;
  walk w = {.call = call, .dry = 0};
  return run(call, call->state, &w);
}
