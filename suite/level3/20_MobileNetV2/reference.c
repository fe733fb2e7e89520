/* reference.c — level3/20_MobileNetV2, PyTorch eager order, one op call per PyTorch op: the
 * stem, 17 inverted-residual blocks (no residual add, as in KernelBench) from the settings
 * table, the 1x1 head, adaptive average pool, linear, over the layer helpers of
 * cudal1/net.h. BatchNorm in training mode. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net.h>

/* inverted-residual settings: expansion t, out channels c, repeats n, first stride s */
static const int64_t setting[7][4] = {{1, 16, 1, 1},  {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                      {6, 96, 3, 1},  {6, 160, 3, 2}, {6, 320, 1, 1}};

/* conv 3x3/2 + bn + relu6; per block: [1x1 expand conv + bn + relu6 when t != 1], depthwise
 * 3x3 conv + bn + relu6, 1x1 project conv + bn (KernelBench never adds the residual); 1x1 conv
 * to 1280 + bn + relu6; adaptive average pool to 1x1; view(n, -1); dropout(0) (a no-op); linear */
/* conv + bn (in place) into the buffer x is not in, then relu6 when act */
static cl1_net_act conv_bn(cl1_net *nt, cl1_net_act x, int64_t k, int64_t r, int64_t stride,
                           int64_t pad, int64_t groups, int act) {
  x = cl1_net_conv(nt, x, cl1_net_other(nt, x), k, r, stride, pad, groups, 0);
  x = cl1_net_bn(nt, x, x.p);
  if (act) cl1_net_relu6(nt, x);
  return x;
}

static void walk(cl1_net *nt) {
  cl1_net_act x;
  if (cl1_net_input(nt, -1, &x)) return;
  x = conv_bn(nt, x, 32, 3, 2, 1, 1, 1);
  for (int g = 0; g < 7; g++)
    for (int64_t i = 0; i < setting[g][2]; i++) {
      int64_t hid = x.c * setting[g][0], stride = i == 0 ? setting[g][3] : 1;
      if (setting[g][0] != 1) x = conv_bn(nt, x, hid, 1, 1, 0, 1, 1);
      x = conv_bn(nt, x, hid, 3, stride, 1, hid, 1);
      x = conv_bn(nt, x, setting[g][1], 1, 1, 0, 1, 0);
    }
  x = conv_bn(nt, x, 1280, 1, 1, 0, 1, 1);
  x = cl1_net_mean_hw(nt, x, cl1_net_other(nt, x));
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
