/* reference.c — level3/18_SqueezeNet, PyTorch eager order: conv7x7/2 + relu, max_pool(3, 2,
 * ceil_mode); eight fire modules from a static table (squeeze 1x1 + relu; expand 1x1 + relu and
 * expand 3x3 + relu, each its own tensor; torch.cat), with ceil-mode max_pools after fire 3 and
 * fire 7; classifier conv1x1 + relu (Dropout(0.0) is a no-op), global mean into the output.
 * Scratch: two ping-pong trunk buffers, the squeeze output and the two expand outputs. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/net.h>

enum { A, B_, S, E1, E3, NBUF };

/* Fire modules: squeeze, expand 1x1, expand 3x3 channels; pool = a ceil-mode max_pool(3, 2)
 * follows the module. */
static const struct { int64_t s, e1, e3; int pool; } fire18[] = {
    {16, 64, 64, 0},   {16, 64, 64, 0},   {32, 128, 128, 1}, {32, 128, 128, 0},
    {48, 192, 192, 0}, {48, 192, 192, 0}, {64, 256, 256, 1}, {64, 256, 256, 0}};

/* The whole network; its buffers are NULL in the shapes-only walk. */
static void walk(cl1_net *nt) {
  const cl1_tensor *xt = &nt->call->inputs[0], *y = &nt->call->outputs[0];
  if (nt->call->n_inputs != 1 || nt->call->n_outputs != 1 || xt->ndim != 4 ||
      xt->dtype != CL1_F32 || xt->shape[1] != 3 || y->ndim != 2 || y->dtype != CL1_F32 ||
      y->shape[0] != xt->shape[0])
    return (void)(nt->err = 1);
#define B(i) cl1_net_buf(nt, i)
  cl1_net_act x = {(float *)xt->data, xt->shape[0], 3, xt->shape[2], xt->shape[3]};
  cl1_net_act t = cl1_net_conv(nt, x, B(B_), 96, 7, 2, 0, 1, 1);
  cl1_net_relu(nt, t);
  x = cl1_net_pool(nt, CL1_POOL_MAX, t, B(A), 3, 2, 0, 1);
  int xi = A;  // the trunk buffer holding x
  for (size_t i = 0; i < sizeof fire18 / sizeof fire18[0]; i++) {
    int o = xi == A ? B_ : A;
    cl1_net_act s = cl1_net_conv(nt, x, B(S), fire18[i].s, 1, 1, 0, 1, 1);
    cl1_net_relu(nt, s);
    cl1_net_act e[2];
    e[0] = cl1_net_conv(nt, s, B(E1), fire18[i].e1, 1, 1, 0, 1, 1);
    cl1_net_relu(nt, e[0]);
    e[1] = cl1_net_conv(nt, s, B(E3), fire18[i].e3, 3, 1, 1, 1, 1);
    cl1_net_relu(nt, e[1]);
    x = cl1_net_cat(nt, e, 2, B(o)), xi = o;
    if (fire18[i].pool) {
      o = xi == A ? B_ : A;
      x = cl1_net_pool(nt, CL1_POOL_MAX, x, B(o), 3, 2, 0, 1), xi = o;
    }
  }
  // (N, num_classes, h, w)
  t = cl1_net_conv(nt, x, B(xi == A ? B_ : A), y->shape[1], 1, 1, 0, 1, 1);
  cl1_net_relu(nt, t);
  // adaptive_avg_pool2d(1) + flatten: a mean over h*w straight into the output
  if (nt->exec && !nt->err)
    nt->err = cl1_op_reduce(nt->call->stream, CL1_REDUCE_MEAN, t.p, y->data, t.n * t.c,
                            t.h * t.w, 1);
#undef B
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, NBUF, NULL, walk);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, NULL, walk); }
