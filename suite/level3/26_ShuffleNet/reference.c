/* reference.c — level3/26_ShuffleNet, PyTorch eager order: conv1 3x3/2 -> bn1 -> relu ->
 * maxpool 3/2/1, three stages of ShuffleNet units from a static table (1x1 group conv -> bn ->
 * relu, depthwise 3x3 -> bn, channel shuffle as a strided copy, 1x1 group conv -> bn -> relu,
 * + shortcut: x, or 1x1 conv -> bn for a stage's first unit), conv5 -> bn5 -> relu, adaptive
 * average pool (a mean over H*W), fc. BatchNorm uses batch statistics (training mode). One
 * walk over the layers (include/cudal1/net_mb.h) serves both cl1_setup and cl1_forward;
 * activations rotate through four buffers. */
#include <cudal1/net_mb.h>

static const int64_t REPEATS[3] = {3, 7, 3}, WIDTHS[4] = {24, 240, 480, 960};
enum { GROUPS = 3, C_HEAD = 1024, N_BUF = 4 };

/* One unit from B[cur] (cin channels) into B[*out]; the other two buffers are scratch. */
static int unit(cl1_mb_walk *w, float *const *B, int cur, int64_t cin, int64_t cout, int *out) {
  int a = (cur + 1) % N_BUF, b = (cur + 2) % N_BUF, c = (cur + 3) % N_BUF;
  int64_t mid = cout / 4, hw = w->h * w->w;
  void *st = w->call->stream;
  int rc = cl1_mb_conv(w, B[cur], B[a], cin, mid, 1, 1, 0, GROUPS);
  if (!rc) rc = cl1_mb_bn(w, B[a], mid);
  if (!rc) rc = cl1_mb_act(w, B[a], mid, 0);
  if (!rc) rc = cl1_mb_conv(w, B[a], B[b], mid, mid, 3, 1, 1, mid);
  if (!rc) rc = cl1_mb_bn(w, B[b], mid);
  if (!rc && !w->dry) rc = cl1_mb_shuffle(st, B[b], B[a], w->n, mid, GROUPS, hw);
  if (!rc) rc = cl1_mb_conv(w, B[a], B[c], mid, cout, 1, 1, 0, GROUPS);
  if (!rc) rc = cl1_mb_bn(w, B[c], cout);
  if (!rc) rc = cl1_mb_act(w, B[c], cout, 0);
  int sc = cur;
  if (!rc && cin != cout) {
    rc = cl1_mb_conv(w, B[cur], B[b], cin, cout, 1, 1, 0, 1);
    if (!rc) rc = cl1_mb_bn(w, B[b], cout);
    sc = b;
  }
  if (!rc && !w->dry) rc = cl1_op_binary(st, CL1_BINARY_ADD, B[c], B[sc], B[c], w->n * cout * hw);
  *out = c;
  return rc;
}

static int run(const cl1_call *call, const cl1_mb_state *s, cl1_mb_walk *w) {
  if (cl1_mb_begin(w, call, 3)) return 1;
  float *const *B = cl1_mb_bufs(s);
  int rc = cl1_mb_conv(w, (const float *)call->inputs[0].data, B[1], 3, WIDTHS[0], 3, 2, 1, 1);
  if (!rc) rc = cl1_mb_bn(w, B[1], WIDTHS[0]);
  if (!rc) rc = cl1_mb_act(w, B[1], WIDTHS[0], 0);
  if (!rc) rc = cl1_mb_maxpool(w, B[1], B[0], WIDTHS[0], 3, 2, 1);
  int cur = 0;
  for (int sg = 0; sg < 3 && !rc; sg++)
    for (int64_t i = 0; i < REPEATS[sg] && !rc; i++)
      rc = unit(w, B, cur, i ? WIDTHS[sg + 1] : WIDTHS[sg], WIDTHS[sg + 1], &cur);
  if (rc) return rc;
  return cl1_mb_head(w, s, B, cur, N_BUF, WIDTHS[3], C_HEAD);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_mb_teardown(state); }

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_mb_setup(call, state, run, N_BUF, C_HEAD);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_mb_forward(call, run); }
