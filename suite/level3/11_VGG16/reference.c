/* reference.c — level3/11_VGG16 and level3/12_VGG19 (its task.json names this file), PyTorch
 * eager order, one op call per PyTorch op: the feature stack (3x3 conv + ReLU, maxpool 2/2
 * after each block) from the table that attr `depth` (16 or 19) picks, then the classifier
 * (linear+ReLU, linear+ReLU, linear; the p = 0 dropouts are no-ops), over the layer helpers of
 * cudal1/net_cnn.h. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net_cnn.h>

/* features: a 3x3/pad-1 conv + ReLU per entry, 0 = maxpool 2/2; VGG16 has 13 convs, VGG19 16 */
static const int64_t cfg16[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0,
                                512, 512, 512, 0, 512, 512, 512, 0};
static const int64_t cfg19[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0,
                                512, 512, 512, 512, 0, 512, 512, 512, 512, 0};

/* features, flatten, classifier: linear+relu twice (dropouts have p = 0: no-ops), linear */
static int walk(cl1_net_walker *t) {
  double depth;
  if (cl1_op_attr(t->call, "depth", &depth)) return 1;
  const int64_t *cfg = depth == 16 ? cfg16 : depth == 19 ? cfg19 : NULL;
  size_t len = depth == 16 ? sizeof cfg16 / sizeof cfg16[0] : sizeof cfg19 / sizeof cfg19[0];
  if (!cfg) return 1;
  for (size_t i = 0; i < len; i++) {
    if (cfg[i]) cl1_net_conv(t, cfg[i], 3, 1, 1, 1, 1, 0), cl1_net_act(t, 0);
    else cl1_net_pool(t, CL1_POOL_MAX, 2, 2, 0, 0);
  }
  return cl1_net_classifier(t, 4096, 4096);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, walk);
}
CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }
CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, walk); }
