/* reference.c — level3/9_ResNet18 and level3/10_ResNet101 (its task.json names this file),
 * PyTorch eager order: conv1, bn1, relu, max_pool(3, 2, 1); four stages of widths 64..512 with
 * attrs stage0..stage3 blocks each ([2, 2, 2, 2] and [3, 4, 23, 3]); attr bottleneck picks the
 * block: 0, basic (conv3x3(stride)-bn-relu, conv3x3-bn), 1, bottleneck (conv1x1-bn-relu,
 * conv3x3(stride)-bn-relu, conv1x1(4x)-bn); then the 1x1 projection shortcut conv-bn where the
 * shape changes, add, relu; global mean, fc. Activations ping-pong among four scratch buffers;
 * BatchNorm and ReLU run in place, as PyTorch's inplace ReLU. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/net.h>

#define NBUF 4
enum { BOTTLENECK, STAGE0 };  // cl1_net.cfg: attr bottleneck, attrs stage0..stage3

/* The stages: width (a basic block outputs it, a bottleneck block 4x) and the first block's
 * stride; the block counts are attrs. */
static const struct { int64_t width, stride; } stages[4] = {{64, 1}, {128, 2}, {256, 2}, {512, 2}};

/* The whole network; its buffers are NULL in the shapes-only walk. */
static void walk(cl1_net *nt) {
  cl1_net_act x;
  if (cl1_net_input(nt, 3, &x)) return;
#define B(i) cl1_net_buf(nt, i)
  cl1_net_act t = cl1_net_conv(nt, x, B(0), 64, 7, 2, 3, 1, 0);
  t = cl1_net_bn(nt, t, t.p);
  cl1_net_relu(nt, t);
  x = cl1_net_pool(nt, CL1_POOL_MAX, t, B(1), 3, 2, 1, 0);
  int xi = 1;  // the buffer holding x
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < nt->cfg[STAGE0 + i]; j++) {
      int a = (xi + 1) % NBUF, b = (xi + 2) % NBUF, c = (xi + 3) % NBUF, yi;
      int64_t wd = stages[i].width, s = j ? 1 : stages[i].stride;
      cl1_net_act y;
      if (nt->cfg[BOTTLENECK]) {
        cl1_net_act t1 = cl1_net_conv(nt, x, B(a), wd, 1, 1, 0, 1, 0);
        t1 = cl1_net_bn(nt, t1, t1.p);
        cl1_net_relu(nt, t1);
        cl1_net_act t2 = cl1_net_conv(nt, t1, B(b), wd, 3, s, 1, 1, 0);
        t2 = cl1_net_bn(nt, t2, t2.p);
        cl1_net_relu(nt, t2);
        y = cl1_net_conv(nt, t2, B(a), 4 * wd, 1, 1, 0, 1, 0);  // t1 is dead: its buffer takes y
        y = cl1_net_bn(nt, y, y.p), yi = a;
      } else {
        cl1_net_act t1 = cl1_net_conv(nt, x, B(a), wd, 3, s, 1, 1, 0);
        t1 = cl1_net_bn(nt, t1, t1.p);
        cl1_net_relu(nt, t1);
        y = cl1_net_conv(nt, t1, B(b), wd, 3, 1, 1, 1, 0);
        y = cl1_net_bn(nt, y, y.p), yi = b;
      }
      cl1_net_act id = x;
      if (s != 1 || x.c != y.c) {
        id = cl1_net_conv(nt, x, B(c), y.c, 1, s, 0, 1, 0);
        id = cl1_net_bn(nt, id, id.p);
      }
      if (!nt->err && cl1_net_numel(id) != cl1_net_numel(y)) nt->err = 1;
      if (nt->exec && !nt->err)
        nt->err =
            cl1_op_binary(nt->call->stream, CL1_BINARY_ADD, y.p, id.p, y.p, cl1_net_numel(y));
      cl1_net_relu(nt, y);
      x = y, xi = yi;
    }
  cl1_net_head(nt, x, B((xi + 1) % NBUF));
#undef B
}

/* The attrs: eps, bottleneck (0 or 1), stage0..stage3 (1..64 blocks). */
static int attrs_of(const cl1_call *call, cl1_net *nt) {
  static const char *const names[4] = {"stage0", "stage1", "stage2", "stage3"};
  double v;
  if (cl1_op_attr(call, "eps", &nt->eps) || cl1_op_attr(call, "bottleneck", &v) ||
      (v != 0 && v != 1))
    return 1;
  nt->cfg[BOTTLENECK] = (int)v;
  for (int i = 0; i < 4; i++) {
    if (cl1_op_attr(call, names[i], &v) || v < 1 || v > 64 || v != (int)v) return 1;
    nt->cfg[STAGE0 + i] = (int)v;
  }
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, NBUF, attrs_of, walk);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, attrs_of, walk); }
