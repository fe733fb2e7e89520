/* reference.c — level3/5_AlexNet, PyTorch eager order, one op call per PyTorch op: five
 * conv+ReLU layers (maxpool 3/2 after the 1st, 2nd and 5th), then fc1+ReLU, fc2+ReLU, fc3;
 * the p = 0 dropouts are no-ops. Driven by a table of the conv layers over the layer helpers
 * of cudal1/net.h. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net.h>

/* (out channels, kernel, stride, padding, maxpool 3/2 after the ReLU) of conv1..conv5 */
static const int64_t convs[5][5] = {
    {96, 11, 4, 2, 1}, {256, 5, 1, 2, 1}, {384, 3, 1, 1, 0}, {384, 3, 1, 1, 0}, {256, 3, 1, 1, 1}};

/* conv+relu(+maxpool) x5, flatten, fc1+relu, fc2+relu (dropouts have p = 0: no-ops), fc3 */
static void walk(cl1_net *nt) {
  cl1_net_act x;
  if (cl1_net_input(nt, -1, &x)) return;
  for (int i = 0; i < 5; i++) {
    x = cl1_net_conv(nt, x, cl1_net_other(nt, x), convs[i][0], convs[i][1], convs[i][2],
                     convs[i][3], 1, 1);
    cl1_net_relu(nt, x);
    if (convs[i][4]) x = cl1_net_pool(nt, CL1_POOL_MAX, x, cl1_net_other(nt, x), 3, 2, 0, 0);
  }
  cl1_net_classifier(nt, x, 4096, 4096);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, 2, NULL, walk);
}
CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }
CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, NULL, walk); }
