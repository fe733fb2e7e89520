/* reference.c — level3/11_VGG16 and level3/12_VGG19 (its task.json names this file), PyTorch
 * eager order, one op call per PyTorch op: the feature stack (3x3 conv + ReLU, maxpool 2/2
 * after each block) from the table that attr `depth` (16 or 19) picks, then the classifier
 * (linear+ReLU, linear+ReLU, linear; the p = 0 dropouts are no-ops), over the layer helpers of
 * cudal1/net.h. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net.h>

/* features: a 3x3/pad-1 conv + ReLU per entry, 0 = maxpool 2/2; VGG16 has 13 convs, VGG19 16 */
static const int64_t cfg16[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0,
                                512, 512, 512, 0, 512, 512, 512, 0};
static const int64_t cfg19[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0,
                                512, 512, 512, 512, 0, 512, 512, 512, 512, 0};

/* features, flatten, classifier: linear+relu twice (dropouts have p = 0: no-ops), linear */
static void walk(cl1_net *nt) {
  double depth;
  cl1_net_act x;
  if (cl1_op_attr(nt->call, "depth", &depth) || (depth != 16 && depth != 19))
    return (void)(nt->err = 1);
  if (cl1_net_input(nt, -1, &x)) return;
  const int64_t *cfg = depth == 16 ? cfg16 : cfg19;
  size_t len = depth == 16 ? sizeof cfg16 / sizeof cfg16[0] : sizeof cfg19 / sizeof cfg19[0];
  for (size_t i = 0; i < len; i++) {
    if (cfg[i])
      x = cl1_net_conv(nt, x, cl1_net_other(nt, x), cfg[i], 3, 1, 1, 1, 1), cl1_net_relu(nt, x);
    else
      x = cl1_net_pool(nt, CL1_POOL_MAX, x, cl1_net_other(nt, x), 2, 2, 0, 0);
  }
  cl1_net_classifier(nt, x, 4096, 4096);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, 2, NULL, walk);
}
CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }
CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, NULL, walk); }
