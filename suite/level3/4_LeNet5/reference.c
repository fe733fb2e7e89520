/* reference.c — level3/4_LeNet5, PyTorch eager order, one op call per PyTorch op: conv1,
 * relu, maxpool, conv2, relu, maxpool, fc1, relu, fc2, relu, fc3 (a table-free walk over the
 * layer helpers of cudal1/net.h). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net.h>

/* conv1, relu, maxpool 2/2, conv2, relu, maxpool 2/2, view(-1, 400), fc1, relu, fc2, relu, fc3
 * (fc1's (120, 400) weight pins the input to (1, 32, 32), as KernelBench's view does). */
static void walk(cl1_net *nt) {
  cl1_net_act x;
  if (cl1_net_input(nt, -1, &x)) return;
  x = cl1_net_conv(nt, x, cl1_net_other(nt, x), 6, 5, 1, 0, 1, 1), cl1_net_relu(nt, x);
  x = cl1_net_pool(nt, CL1_POOL_MAX, x, cl1_net_other(nt, x), 2, 2, 0, 0);
  x = cl1_net_conv(nt, x, cl1_net_other(nt, x), 16, 5, 1, 0, 1, 1), cl1_net_relu(nt, x);
  x = cl1_net_pool(nt, CL1_POOL_MAX, x, cl1_net_other(nt, x), 2, 2, 0, 0);
  cl1_net_classifier(nt, x, 120, 84);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, 2, NULL, walk);
}
CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }
CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, NULL, walk); }
