/* reference.c — level3/24_EfficientNetB2, PyTorch eager order: conv1 -> bn1 -> relu, the 5
 * MBConv blocks of a static table (1x1 expand conv -> bn -> relu; 3x3 depthwise conv -> bn ->
 * relu; KernelBench's squeeze-excitation as it is written: adaptive average pool to 1x1 ->
 * 1x1 conv to hid/4 -> relu -> 1x1 conv to hid -> sigmoid, never multiplied back, so the block
 * goes on from a 1x1 map; 1x1 project conv -> bn), conv_final -> bn_final -> relu, adaptive
 * average pool (a mean over H*W), fc. BatchNorm uses batch statistics (training mode). Every
 * convolution runs in full FP32 when attr conv_tf32 is 0 (see task.json notes). One walk over
 * the layers (include/cudal1/net.h) serves both cl1_setup and cl1_forward; activations
 * rotate through three buffers. */
#include <cudal1/net.h>

typedef struct { int64_t cin, cout, stride, expand; } block_spec;
static const block_spec BLOCKS[] = {
    {32, 96, 1, 3}, {96, 144, 2, 6}, {144, 192, 2, 6}, {192, 288, 2, 6}, {288, 384, 1, 6}};
enum { N_BLOCKS = sizeof BLOCKS / sizeof BLOCKS[0], C_STEM = 32, C_HEAD = 1408 };

#define B(i) cl1_net_buf(nt, i)

static void walk(cl1_net *nt) {
  cl1_net_act x;
  if (cl1_net_input(nt, 3, &x)) return;
  x = cl1_net_conv(nt, x, B(0), C_STEM, 3, 2, 1, 1, 0);
  x = cl1_net_bn(nt, x, x.p);
  cl1_net_relu(nt, x);
  int cur = 0;
  for (int i = 0; i < N_BLOCKS; i++) {
    const block_spec *b = &BLOCKS[i];
    int64_t hid = b->cin * b->expand, sq = hid / 4;
    int t1 = (cur + 1) % 3, t2 = (cur + 2) % 3;
    if (x.c != b->cin) nt->err = 1;
    cl1_net_act h = cl1_net_conv(nt, x, B(t1), hid, 1, 1, 0, 1, 0);
    h = cl1_net_bn(nt, h, h.p);
    cl1_net_relu(nt, h);
    h = cl1_net_conv(nt, h, B(t2), hid, 3, b->stride, 1, hid, 0);
    h = cl1_net_bn(nt, h, h.p);
    cl1_net_relu(nt, h);
    h = cl1_net_mean_hw(nt, h, B(t1));  // (N, hid, 1, 1)
    h = cl1_net_conv(nt, h, B(t2), sq, 1, 1, 0, 1, 0);
    cl1_net_relu(nt, h);
    h = cl1_net_conv(nt, h, B(t1), hid, 1, 1, 0, 1, 0);
    cl1_net_unary(nt, h, CL1_UNARY_SIGMOID, 0, 0);
    x = cl1_net_conv(nt, h, B(t2), b->cout, 1, 1, 0, 1, 0);
    x = cl1_net_bn(nt, x, x.p);
    cur = t2;
  }
  x = cl1_net_conv(nt, x, B((cur + 1) % 3), C_HEAD, 1, 1, 0, 1, 0);
  x = cl1_net_bn(nt, x, x.p);
  cl1_net_relu(nt, x);
  cl1_net_head(nt, x, B((cur + 2) % 3));  // adaptive average pool (N, C_HEAD), fc
}

/* eps, and attr conv_tf32 0: every convolution in full FP32 (cl1_op_convnd with no_tf32) */
static int attrs_of(const cl1_call *call, cl1_net *nt) {
  double tf32;
  if (cl1_op_attr(call, "eps", &nt->eps) || cl1_op_attr(call, "conv_tf32", &tf32)) return 1;
  nt->conv_nd = 1, nt->no_tf32 = tf32 == 0;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, 3, attrs_of, walk);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, attrs_of, walk); }
