/* reference.c — level3/22_EfficientNetB0 and 23_EfficientNetB1 (KernelBench's variants; attr
 * "variant" 0 or 1 picks the block table), PyTorch eager order: conv1 -> bn1 -> relu, the
 * MBConv blocks of the table (1x1 expand conv -> bn -> relu6, which B0 skips at expand 1 and
 * B1 keeps; depthwise conv -> bn -> relu6; 1x1 project conv -> bn; + identity when stride 1 and
 * in == out, which only B0's table has), conv2 -> bn2 -> relu, adaptive average pool to 1x1 (a
 * mean over H*W), fc. BatchNorm uses batch statistics (training mode). One walk over the
 * layers (include/cudal1/net_mb.h) serves both cl1_setup and cl1_forward; activations rotate
 * through three buffers. */
#include <cudal1/net_mb.h>

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

static int run(const cl1_call *call, const cl1_mb_state *s, cl1_mb_walk *w) {
  double variant;
  if (cl1_mb_begin(w, call, 3) || cl1_op_attr(call, "variant", &variant)) return 1;
  if (variant != 0 && variant != 1) return 1;
  const block_spec *blocks = VARIANTS[(int)variant].blocks;
  int n_blocks = VARIANTS[(int)variant].n_blocks;
  float *const *B = cl1_mb_bufs(s);
  int rc = cl1_mb_conv(w, (const float *)call->inputs[0].data, B[0], 3, C_STEM, 3, 2, 1, 1);
  if (!rc) rc = cl1_mb_bn(w, B[0], C_STEM);
  if (!rc) rc = cl1_mb_act(w, B[0], C_STEM, 0);
  int cur = 0;
  for (int i = 0; i < n_blocks && !rc; i++) {
    const block_spec *b = &blocks[i];
    rc = cl1_mb_mbconv(w, B, cur, b->cin, b->cout, b->k, b->stride, b->expand,
                       VARIANTS[(int)variant].always_expand, &cur);
  }
  if (rc) return rc;
  return cl1_mb_head(w, s, B, cur, 3, blocks[n_blocks - 1].cout, C_HEAD);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_mb_teardown(state); }

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_mb_setup(call, state, run, 3, C_HEAD);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_mb_forward(call, run); }
