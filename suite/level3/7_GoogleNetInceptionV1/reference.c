/* reference.c — level3/7_GoogleNetInceptionV1, PyTorch eager order: conv1 + relu, max_pool,
 * conv2 + relu, conv3 + relu, max_pool; nine inception modules from a static table (branches in
 * order 1x1; 1x1 -> 3x3; 1x1 -> 5x5; max_pool(3, 1, 1) -> 1x1, each branch its own tensor, then
 * torch.cat), with max_pool after 3b and 4e; global mean, fc (Dropout(0.0) is a no-op).
 * Scratch: two ping-pong buffers for the trunk, one per branch, one for the 1x1 reductions. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/net.h>

#define NBUF 7  // trunk x2, branch outputs x4, reduction

/* Inception modules: 1x1, 3x3 reduce, 3x3, 5x5 reduce, 5x5, pool projection; pool = a
 * max_pool(3, 2, 1) follows the module. */
static const struct { int64_t c1, r3, c3, r5, c5, cp; int pool; } incep7[] = {
    {64, 96, 128, 16, 32, 32, 0},     {128, 128, 192, 32, 96, 64, 1},  // 3a, 3b
    {192, 96, 208, 16, 48, 64, 0},    {160, 112, 224, 24, 64, 64, 0},  // 4a, 4b
    {128, 128, 256, 24, 64, 64, 0},   {112, 144, 288, 32, 64, 64, 0},  // 4c, 4d
    {256, 160, 320, 32, 128, 128, 1},                                  // 4e
    {256, 160, 320, 32, 128, 128, 0}, {384, 192, 384, 48, 128, 128, 0}};  // 5a, 5b

/* The whole network; its buffers are NULL in the shapes-only walk. */
static void walk(cl1_net *nt) {
  cl1_net_act x;
  if (cl1_net_input(nt, 3, &x)) return;
#define B(i) cl1_net_buf(nt, i)
  cl1_net_act t = cl1_net_conv(nt, x, B(0), 64, 7, 2, 3, 1, 1);
  cl1_net_relu(nt, t);
  x = cl1_net_pool(nt, CL1_POOL_MAX, t, B(1), 3, 2, 1, 0);
  t = cl1_net_conv(nt, x, B(0), 64, 1, 1, 0, 1, 1);
  cl1_net_relu(nt, t);
  x = cl1_net_conv(nt, t, B(1), 192, 3, 1, 1, 1, 1);
  cl1_net_relu(nt, x);
  x = cl1_net_pool(nt, CL1_POOL_MAX, x, B(0), 3, 2, 1, 0);
  int xi = 0;  // the trunk buffer holding x; 1 - xi is the other
  for (size_t i = 0; i < sizeof incep7 / sizeof incep7[0]; i++) {
    cl1_net_act br[4], r;
    br[0] = cl1_net_conv(nt, x, B(2), incep7[i].c1, 1, 1, 0, 1, 1);
    r = cl1_net_conv(nt, x, B(6), incep7[i].r3, 1, 1, 0, 1, 1);
    br[1] = cl1_net_conv(nt, r, B(3), incep7[i].c3, 3, 1, 1, 1, 1);
    r = cl1_net_conv(nt, x, B(6), incep7[i].r5, 1, 1, 0, 1, 1);
    br[2] = cl1_net_conv(nt, r, B(4), incep7[i].c5, 5, 1, 2, 1, 1);
    r = cl1_net_pool(nt, CL1_POOL_MAX, x, B(6), 3, 1, 1, 0);
    br[3] = cl1_net_conv(nt, r, B(5), incep7[i].cp, 1, 1, 0, 1, 1);
    x = cl1_net_cat(nt, br, 4, B(1 - xi)), xi = 1 - xi;
    if (incep7[i].pool) x = cl1_net_pool(nt, CL1_POOL_MAX, x, B(1 - xi), 3, 2, 1, 0), xi = 1 - xi;
  }
  cl1_net_head(nt, x, B(1 - xi));
#undef B
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, NBUF, NULL, walk);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, NULL, walk); }
