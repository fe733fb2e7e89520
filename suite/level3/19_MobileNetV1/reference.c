/* reference.c — level3/19_MobileNetV1 (alpha = 1), PyTorch eager order, one op call per
 * PyTorch op: conv_bn then 13 depthwise-separable blocks from a table, AvgPool2d, fc, over the
 * layer helpers of cudal1/net_cnn.h. BatchNorm in training mode (batch statistics), as
 * KernelBench runs the module. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net_cnn.h>

/* (out channels, stride) of the 13 conv_dw blocks; each block's in channels are the previous
 * block's out channels (alpha = 1) */
static const int64_t blocks[13][2] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},
                                      {512, 2}, {512, 1}, {512, 1}, {512, 1}, {512, 1},
                                      {512, 1}, {1024, 2}, {1024, 1}};

/* conv_bn(input_channels, 32, 2); conv_dw x13: depthwise 3x3 conv, bn, relu, pointwise 1x1
 * conv, bn, relu; AvgPool2d(avgpool_kernel) to (1024, 1, 1); view(n, -1); fc */
static int walk(cl1_net_walker *t) {
  double eps, pool;
  if (cl1_op_attr(t->call, "eps", &eps) || cl1_op_attr(t->call, "avgpool_kernel", &pool))
    return 1;
  cl1_net_conv(t, 32, 3, 2, 1, 1, 0, 0), cl1_net_bn(t, eps), cl1_net_act(t, 0);
  for (int i = 0; i < 13; i++) {
    cl1_net_conv(t, t->c, 3, blocks[i][1], 1, t->c, 0, 0), cl1_net_bn(t, eps);
    cl1_net_act(t, 0);
    cl1_net_conv(t, blocks[i][0], 1, 1, 0, 1, 0, 0), cl1_net_bn(t, eps), cl1_net_act(t, 0);
  }
  cl1_net_pool(t, CL1_POOL_AVG, (int64_t)pool, (int64_t)pool, 0, 0);
  if (t->h != 1 || t->w != 1) return 1; /* fc takes exactly the 1024 pooled channels */
  cl1_net_linear(t, -1, 1);
  return cl1_net_end(t);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, walk);
}
CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }
CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, walk); }
