/* reference.c — level3/22_EfficientNetB0 and 23_EfficientNetB1 (KernelBench's variants; attr
 * "variant" 0 or 1 picks the block table), PyTorch eager order: conv1 -> bn1 -> relu, the
 * MBConv blocks of the table (1x1 expand conv -> bn -> relu6, which B0 skips at expand 1 and
 * B1 keeps; depthwise conv -> bn -> relu6; 1x1 project conv -> bn; + identity when stride 1 and
 * in == out, which only B0's table has), conv2 -> bn2 -> relu, adaptive average pool to 1x1 (a
 * mean over H*W), fc. BatchNorm uses batch statistics (training mode). One walk over the
 * layers (include/cudal1/net.h) serves both cl1_setup and cl1_forward; activations rotate
 * through three buffers. */
#include <cudal1/net.h>

typedef struct { int64_t cin, cout, k, stride, expand; } block_spec;
static const block_spec B0[] = {
    {32, 16, 3, 1, 1},   {16, 24, 3, 2, 6},   {24, 24, 3, 1, 6},   {24, 40, 5, 2, 6},
    {40, 40, 5, 1, 6},   {40, 80, 3, 2, 6},   {80, 80, 3, 1, 6},   {80, 112, 5, 1, 6},
    {112, 112, 5, 1, 6}, {112, 192, 5, 2, 6}, {192, 192, 5, 1, 6}, {192, 192, 5, 1, 6},
    {192, 320, 3, 1, 6}};
static const block_spec B1[] = {
    {32, 16, 3, 1, 1},  {16, 24, 3, 2, 6},   {24, 40, 3, 2, 6},   {40, 80, 3, 2, 6},
    {80, 112, 3, 1, 6}, {112, 192, 3, 2, 6}, {192, 320, 3, 1, 6}};
static const struct {
  const block_spec *blocks;
  int n_blocks, always_expand;
} VARIANTS[] = {{B0, sizeof B0 / sizeof B0[0], 0}, {B1, sizeof B1 / sizeof B1[0], 1}};
enum { C_STEM = 32, C_HEAD = 1280 };
#define B(i) cl1_net_buf(nt, i)

/* One MBConv block from x in buffer *cur (3 rotating buffers): 1x1 expand conv -> bn -> relu6
 * (skipped at expand 1 unless always_expand), depthwise kxk (stride, pad (k-1)/2) -> bn ->
 * relu6, 1x1 project conv -> bn, + x when stride 1 and cin == cout; *cur gets the output's
 * buffer. */
static cl1_net_act mbconv(cl1_net *nt, cl1_net_act x, int *cur, const block_spec *b,
                          int always_expand) {
  int t1 = (*cur + 1) % 3, t2 = (*cur + 2) % 3, dw = t1, proj = t2;
  int64_t hid = b->cin * b->expand;
  if (x.c != b->cin) nt->err = 1;
  cl1_net_act h = x;
  if (b->expand != 1 || always_expand) {
    h = cl1_net_conv(nt, x, B(t1), hid, 1, 1, 0, 1, 0);
    h = cl1_net_bn(nt, h, h.p);
    cl1_net_relu6(nt, h);
    dw = t2, proj = t1;
  }
  h = cl1_net_conv(nt, h, B(dw), hid, b->k, b->stride, (b->k - 1) / 2, hid, 0);
  h = cl1_net_bn(nt, h, h.p);
  cl1_net_relu6(nt, h);
  h = cl1_net_conv(nt, h, B(proj), b->cout, 1, 1, 0, 1, 0);
  h = cl1_net_bn(nt, h, h.p);
  if (b->stride == 1 && b->cin == b->cout) cl1_net_add(nt, h, x);
  *cur = proj;
  return h;
}

/* stem conv -> bn -> relu, the MBConv blocks, 1x1 head conv -> bn -> relu, mean, fc */
static void walk(cl1_net *nt) {
  double variant;
  cl1_net_act x;
  if (cl1_op_attr(nt->call, "variant", &variant) || (variant != 0 && variant != 1))
    return (void)(nt->err = 1);
  if (cl1_net_input(nt, 3, &x)) return;
  const block_spec *blocks = VARIANTS[(int)variant].blocks;
  int n_blocks = VARIANTS[(int)variant].n_blocks, cur = 0;
  x = cl1_net_conv(nt, x, B(0), C_STEM, 3, 2, 1, 1, 0);
  x = cl1_net_bn(nt, x, x.p);
  cl1_net_relu(nt, x);
  for (int i = 0; i < n_blocks; i++)
    x = mbconv(nt, x, &cur, &blocks[i], VARIANTS[(int)variant].always_expand);
  x = cl1_net_conv(nt, x, B((cur + 1) % 3), C_HEAD, 1, 1, 0, 1, 0);
  x = cl1_net_bn(nt, x, x.p);
  cl1_net_relu(nt, x);
  cl1_net_head(nt, x, B((cur + 2) % 3));
}

static int eps_of(const cl1_call *call, cl1_net *nt) {
  return cl1_op_attr(call, "eps", &nt->eps);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_net_setup(call, state, 3, eps_of, walk);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_net_teardown(state); }

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_net_forward(call, eps_of, walk); }
