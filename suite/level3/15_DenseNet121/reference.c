/* reference.c — level3/15_DenseNet121 and level3/16_DenseNet201 (its task.json names this file),
 * PyTorch eager order: features (conv7x7/2, bn, relu, max_pool(3, 2, 1)); 4 dense blocks of
 * attrs block0..block3 layers ([6, 12, 24, 16] and [6, 12, 48, 32]), each layer i batch_norm +
 * relu of the current concatenation, 3x3 conv into its own feature tensor, then torch.cat([x,
 * f_0..f_i], 1) afresh (one cl1_cat_part per part, as eager copies them); transitions bn, relu,
 * 1x1 conv, avg_pool(2, 2); final bn, relu, global mean, classifier (Dropout(0.0) is a no-op).
 * Params are indexed as the state_dict orders them (all blocks, then all transitions), not in call
 * order. */
#include <stdio.h>
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/net.h>

enum { X0, FEAT, T, X, U, NBUF };  // block input, new features, bn out, concatenation, conv out
#define MAX_PARTS 64

#define NBLOCKS 4

/* Layers in dense block b (attr "block<b>"), 0 when the attr is missing or out of range. */
static int block_layers(const cl1_call *call, int b) {
  char name[16];
  snprintf(name, sizeof name, "block%d", b);
  double v;
  if (cl1_op_attr(call, name, &v) || v < 1 || v > MAX_PARTS - 1) return 0;
  return (int)v;
}
#define GROWTH 32

/* The whole network; its buffers are NULL in the shapes-only walk. */
static void walk(cl1_net *nt) {
  cl1_net_act x;
  if (cl1_net_input(nt, 3, &x)) return;
#define B(i) cl1_net_buf(nt, i)
  int total = 0;  // dense layers in all blocks
  for (int b = 0; b < NBLOCKS; b++) {
    if (!block_layers(nt->call, b)) return (void)(nt->err = 1);
    total += block_layers(nt->call, b);
  }
  cl1_net_act t = cl1_net_conv(nt, x, B(T), 64, 7, 2, 3, 1, 0);
  t = cl1_net_bn(nt, t, t.p);
  cl1_net_relu(nt, t);
  cl1_net_act x0 = cl1_net_pool(nt, CL1_POOL_MAX, t, B(X0), 3, 2, 1, 0);
  int first = 0;  // the block's first dense layer, over all blocks
  for (int b = 0; b < NBLOCKS; b++) {
    int L = block_layers(nt->call, b);
    if (L + 1 > MAX_PARTS) return (void)(nt->err = 1);
    cl1_net_at(nt, NULL, x0.n, L * GROWTH, x0.h, x0.w);  // the block's features share one buffer
    int64_t fsz = x0.n * GROWTH * x0.h * x0.w;       // one feature: (N, G, H, W)
    cl1_net_act parts[MAX_PARTS] = {x0}, xi = x0;
    for (int i = 0; i < L; i++) {
      nt->pi = 3 + 3 * (first + i);  // dense_blocks.b.layers.i: bn weight, bn bias, conv
      t = cl1_net_bn(nt, xi, B(T));
      cl1_net_relu(nt, t);
      parts[i + 1] = cl1_net_conv(nt, t, cl1_net_buf_at(nt, FEAT, i * fsz), GROWTH, 3, 1, 1, 1, 0);
      xi = cl1_net_cat(nt, parts, i + 2, B(X));
    }
    first += L;
    nt->pi = 3 + 3 * total + 3 * b;  // transition_layers.b, or final_bn after the last block
    if (b == NBLOCKS - 1) {
      t = cl1_net_bn(nt, xi, B(T));
      cl1_net_relu(nt, t);
      cl1_net_head(nt, t, B(U));
    } else {
      t = cl1_net_bn(nt, xi, B(T));
      cl1_net_relu(nt, t);
      cl1_net_act u = cl1_net_conv(nt, t, B(U), xi.c / 2, 1, 1, 0, 1, 0);
      x0 = cl1_net_pool(nt, CL1_POOL_AVG, u, B(X0), 2, 2, 0, 0);
    }
  }
#undef B
}

static int eps_of(const cl1_call *call, cl1_net *nt) {
  return cl1_op_attr(call, "eps", &nt->eps);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, NBUF, eps_of, walk);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, eps_of, walk); }
