/* reference.c — level3/27_RegNet, PyTorch eager order: three stages from a static width table,
 * each conv 3x3 (pad 1, bias) -> bn -> relu -> conv 3x3 (pad 1, bias) -> bn -> relu ->
 * maxpool 2/2; then torch.mean over (H, W) and fc. BatchNorm uses batch statistics (training
 * mode). Shapes are checked in cl1_setup and again in cl1_forward by the same walk
 * (include/cudal1/net.h; dry: no ops run); activations ping-pong between two buffers. */
#include <cudal1/net.h>

static const int64_t WIDTHS[] = {64, 128, 256};
enum { N_STAGES = sizeof WIDTHS / sizeof WIDTHS[0] };

#define B(i) cl1_net_buf(nt, i)

/* conv 3x3 pad 1 with bias -> bn -> relu, x (N, c, h, w) into y (N, k, h, w). */
static cl1_net_act conv_bn_relu(cl1_net *nt, cl1_net_act x, float *y, int64_t k) {
  cl1_net_act t = cl1_net_conv(nt, x, y, k, 3, 1, 1, 1, 1);
  t = cl1_net_bn(nt, t, t.p);
  cl1_net_relu(nt, t);
  return t;
}

/* the stages ping-pong between buffers 0 and 1 (the input counts as buffer 1: stage one writes
 * buffer 0 first); buffer 2 holds the pooled features */
static void walk(cl1_net *nt) {
  cl1_net_act x;
  if (cl1_net_input(nt, -1, &x)) return;
  int p = 1;
  for (int i = 0; i < N_STAGES; i++) {
    int o = 1 - p;
    x = conv_bn_relu(nt, x, B(o), WIDTHS[i]);
    x = conv_bn_relu(nt, x, B(p), WIDTHS[i]);
    x = cl1_net_pool(nt, CL1_POOL_MAX, x, B(o), 2, 2, 0, 0);
    p = o;
  }
  cl1_net_head(nt, x, B(2));
}

static int eps_of(const cl1_call *call, cl1_net *nt) {
  return cl1_op_attr(call, "eps", &nt->eps);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, 3, eps_of, walk);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, eps_of, walk); }
