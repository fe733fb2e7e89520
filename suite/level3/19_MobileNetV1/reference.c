/* reference.c — level3/19_MobileNetV1 (alpha = 1), PyTorch eager order, one op call per
 * PyTorch op: conv_bn then 13 depthwise-separable blocks from a table, AvgPool2d, fc, over the
 * layer helpers of cudal1/net.h. BatchNorm in training mode (batch statistics), as
 * KernelBench runs the module. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net.h>

/* (out channels, stride) of the 13 conv_dw blocks; each block's in channels are the previous
 * block's out channels (alpha = 1) */
static const int64_t blocks[13][2] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},
                                      {512, 2}, {512, 1}, {512, 1}, {512, 1}, {512, 1},
                                      {512, 1}, {1024, 2}, {1024, 1}};

/* conv_bn(input_channels, 32, 2); conv_dw x13: depthwise 3x3 conv, bn, relu, pointwise 1x1
 * conv, bn, relu; AvgPool2d(avgpool_kernel) to (1024, 1, 1); view(n, -1); fc */
/* conv + bn (in place) + relu into the buffer x is not in */
static cl1_net_act conv_bn_relu(cl1_net *nt, cl1_net_act x, int64_t k, int64_t r,
                                int64_t stride, int64_t pad, int64_t groups) {
  x = cl1_net_conv(nt, x, cl1_net_other(nt, x), k, r, stride, pad, groups, 0);
  x = cl1_net_bn(nt, x, x.p);
  cl1_net_relu(nt, x);
  return x;
}

static void walk(cl1_net *nt) {
  double pool;
  cl1_net_act x;
  if (cl1_op_attr(nt->call, "avgpool_kernel", &pool)) return (void)(nt->err = 1);
  if (cl1_net_input(nt, -1, &x)) return;
  x = conv_bn_relu(nt, x, 32, 3, 2, 1, 1);
  for (int i = 0; i < 13; i++) {
    x = conv_bn_relu(nt, x, x.c, 3, blocks[i][1], 1, x.c);
    x = conv_bn_relu(nt, x, blocks[i][0], 1, 1, 0, 1);
  }
  x = cl1_net_pool(nt, CL1_POOL_AVG, x, cl1_net_other(nt, x), (int64_t)pool, (int64_t)pool, 0, 0);
  if (x.h != 1 || x.w != 1) nt->err = 1; /* fc takes exactly the 1024 pooled channels */
  cl1_net_output(nt, cl1_net_linear(nt, x, cl1_net_out(nt), -1));
}

static int eps_of(const cl1_call *call, cl1_net *nt) {
  return cl1_op_attr(call, "eps", &nt->eps);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, 2, eps_of, walk);
}
CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }
CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, eps_of, walk); }
