/* reference.c — level3/26_ShuffleNet, PyTorch eager order: conv1 3x3/2 -> bn1 -> relu ->
 * maxpool 3/2/1, three stages of ShuffleNet units from a static table (1x1 group conv -> bn ->
 * relu, depthwise 3x3 -> bn, channel shuffle as a strided copy, 1x1 group conv -> bn -> relu,
 * + shortcut: x, or 1x1 conv -> bn for a stage's first unit), conv5 -> bn5 -> relu, adaptive
 * average pool (a mean over H*W), fc. BatchNorm uses batch statistics (training mode). One
 * walk over the layers (include/cudal1/net.h) serves both cl1_setup and cl1_forward;
 * activations rotate through four buffers. */
#include <cudal1/net.h>

static const int64_t REPEATS[3] = {3, 7, 3}, WIDTHS[4] = {24, 240, 480, 960};
enum { GROUPS = 3, C_HEAD = 1024, N_BUF = 4 };

#define B(i) cl1_net_buf(nt, i)

/* One unit from x in buffer *cur into the next-but-two buffer (*cur gets it); the other two
 * buffers are scratch. */
static cl1_net_act unit(cl1_net *nt, cl1_net_act x, int *cur, int64_t cout) {
  int a = (*cur + 1) % N_BUF, b = (*cur + 2) % N_BUF, c = (*cur + 3) % N_BUF;
  int64_t mid = cout / 4;
  cl1_net_act t = cl1_net_conv(nt, x, B(a), mid, 1, 1, 0, GROUPS, 0);
  t = cl1_net_bn(nt, t, t.p);
  cl1_net_relu(nt, t);
  t = cl1_net_conv(nt, t, B(b), mid, 3, 1, 1, mid, 0);
  t = cl1_net_bn(nt, t, t.p);
  t = cl1_net_shuffle(nt, t, B(a), GROUPS);
  cl1_net_act y = cl1_net_conv(nt, t, B(c), cout, 1, 1, 0, GROUPS, 0);
  y = cl1_net_bn(nt, y, y.p);
  cl1_net_relu(nt, y);
  cl1_net_act sc = x;
  if (x.c != cout) {
    sc = cl1_net_conv(nt, x, B(b), cout, 1, 1, 0, 1, 0);
    sc = cl1_net_bn(nt, sc, sc.p);
  }
  cl1_net_add(nt, y, sc);
  *cur = c;
  return y;
}

static void walk(cl1_net *nt) {
  cl1_net_act x;
  if (cl1_net_input(nt, 3, &x)) return;
  x = cl1_net_conv(nt, x, B(1), WIDTHS[0], 3, 2, 1, 1, 0);
  x = cl1_net_bn(nt, x, x.p);
  cl1_net_relu(nt, x);
  x = cl1_net_pool(nt, CL1_POOL_MAX, x, B(0), 3, 2, 1, 0);
  int cur = 0;
  for (int sg = 0; sg < 3; sg++)
    for (int64_t i = 0; i < REPEATS[sg]; i++) x = unit(nt, x, &cur, WIDTHS[sg + 1]);
  x = cl1_net_conv(nt, x, B((cur + 1) % N_BUF), C_HEAD, 1, 1, 0, 1, 0);
  x = cl1_net_bn(nt, x, x.p);
  cl1_net_relu(nt, x);
  cl1_net_head(nt, x, B((cur + 2) % N_BUF));
}

static int eps_of(const cl1_call *call, cl1_net *nt) {
  return cl1_op_attr(call, "eps", &nt->eps);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, N_BUF, eps_of, walk);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, eps_of, walk); }
