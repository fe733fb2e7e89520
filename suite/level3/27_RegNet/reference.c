/* reference.c — level3/27_RegNet, PyTorch eager order: three stages from a static width table,
 * each conv 3x3 (pad 1, bias) -> bn -> relu -> conv 3x3 (pad 1, bias) -> bn -> relu ->
 * maxpool 2/2; then torch.mean over (H, W) and fc. BatchNorm uses batch statistics (training
 * mode). Shapes are checked in cl1_setup and again in cl1_forward by the same walk
 * (include/cudal1/net_mb.h; dry: no ops run); activations ping-pong between two buffers. */
#include <cudal1/net_mb.h>

static const int64_t WIDTHS[] = {64, 128, 256};
enum { N_STAGES = sizeof WIDTHS / sizeof WIDTHS[0] };

/* conv 3x3 pad 1 with bias -> bn -> relu, x (N, c, h, w) into y (N, k, h, w). */
static int conv_bn_relu(cl1_mb_walk *w, const float *x, float *y, int64_t c, int64_t k) {
  const float *wt = cl1_mb_take(w, 4, k, c, 3, 3), *b = cl1_mb_take(w, 1, k, 0, 0, 0);
  const float *g = cl1_mb_take(w, 1, k, 0, 0, 0), *beta = cl1_mb_take(w, 1, k, 0, 0, 0);
  if (!wt || !b || !g || !beta) return 1;
  int64_t n = w->n * k * w->h * w->w;
  cl1_mb_grow(w, n);
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

static int run(const cl1_call *call, const cl1_mb_state *s, cl1_mb_walk *w) {
  if (cl1_mb_begin(w, call, -1)) return 1;
  float *const *B = cl1_mb_bufs(s);
  const float *cur = (const float *)call->inputs[0].data;
  int64_t c = call->inputs[0].shape[1];
  int p = 1;  // cur's buffer (the input counts as buffer 1: stage one writes buffer 0 first)
  for (int i = 0; i < N_STAGES; i++) {
    int64_t k = WIDTHS[i];
    int o = 1 - p;
    if (conv_bn_relu(w, cur, B[o], c, k) || conv_bn_relu(w, B[o], B[p], k, k)) return 1;
    if (cl1_mb_maxpool(w, B[p], B[o], k, 2, 2, 0)) return 1;
    cur = B[o], c = k, p = o;
  }
  return cl1_mb_classify(w, s, cur, c);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_mb_teardown(state); }

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_mb_setup(call, state, run, 2, WIDTHS[N_STAGES - 1]);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_mb_forward(call, run); }
