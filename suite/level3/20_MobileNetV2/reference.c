/* reference.c — level3/20_MobileNetV2, PyTorch eager order, one op call per PyTorch op: the
 * stem, 17 inverted-residual blocks (no residual add, as in KernelBench) from the settings
 * table, the 1x1 head, adaptive average pool, linear, over the layer helpers of
 * cudal1/net_cnn.h. BatchNorm in training mode. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net_cnn.h>

/* inverted-residual settings: expansion t, out channels c, repeats n, first stride s */
static const int64_t setting[7][4] = {{1, 16, 1, 1},  {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                      {6, 96, 3, 1},  {6, 160, 3, 2}, {6, 320, 1, 1}};

/* conv 3x3/2 + bn + relu6; per block: [1x1 expand conv + bn + relu6 when t != 1], depthwise
 * 3x3 conv + bn + relu6, 1x1 project conv + bn (KernelBench never adds the residual); 1x1 conv
 * to 1280 + bn + relu6; adaptive average pool to 1x1; view(n, -1); dropout(0) (a no-op); linear */
static int walk(cl1_net_walker *t) {
  double eps;
  if (cl1_op_attr(t->call, "eps", &eps)) return 1;
  cl1_net_conv(t, 32, 3, 2, 1, 1, 0, 0), cl1_net_bn(t, eps), cl1_net_act(t, 1);
  for (int g = 0; g < 7; g++)
    for (int64_t i = 0; i < setting[g][2]; i++) {
      int64_t hid = t->c * setting[g][0], stride = i == 0 ? setting[g][3] : 1;
      if (setting[g][0] != 1)
        cl1_net_conv(t, hid, 1, 1, 0, 1, 0, 0), cl1_net_bn(t, eps), cl1_net_act(t, 1);
      cl1_net_conv(t, hid, 3, stride, 1, hid, 0, 0), cl1_net_bn(t, eps), cl1_net_act(t, 1);
      cl1_net_conv(t, setting[g][1], 1, 1, 0, 1, 0, 0), cl1_net_bn(t, eps);
    }
  cl1_net_conv(t, 1280, 1, 1, 0, 1, 0, 0), cl1_net_bn(t, eps), cl1_net_act(t, 1);
  cl1_net_mean_hw(t, 0);
  cl1_net_linear(t, -1, 1);
  return cl1_net_end(t);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, walk);
}
CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }
CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, walk); }
