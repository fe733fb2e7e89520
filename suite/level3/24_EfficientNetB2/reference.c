/* reference.c — level3/24_EfficientNetB2, PyTorch eager order: conv1 -> bn1 -> relu, the 5
 * MBConv blocks of a static table (1x1 expand conv -> bn -> relu; 3x3 depthwise conv -> bn ->
 * relu; KernelBench's squeeze-excitation as it is written: adaptive average pool to 1x1 ->
 * 1x1 conv to hid/4 -> relu -> 1x1 conv to hid -> sigmoid, never multiplied back, so the block
 * goes on from a 1x1 map; 1x1 project conv -> bn), conv_final -> bn_final -> relu, adaptive
 * average pool (a mean over H*W), fc. BatchNorm uses batch statistics (training mode). Every
 * convolution runs in full FP32 when attr conv_tf32 is 0 (see task.json notes). One walk over
 * the layers (include/cudal1/net_mb.h) serves both cl1_setup and cl1_forward; activations
 * rotate through three buffers. */
#include <cudal1/net_mb.h>

typedef struct { int64_t cin, cout, stride, expand; } block_spec;
static const block_spec BLOCKS[] = {
    {32, 96, 1, 3}, {96, 144, 2, 6}, {144, 192, 2, 6}, {192, 288, 2, 6}, {288, 384, 1, 6}};
enum { N_BLOCKS = sizeof BLOCKS / sizeof BLOCKS[0], C_STEM = 32, C_HEAD = 1408 };

static int run(const cl1_call *call, const cl1_mb_state *s, cl1_mb_walk *w) {
  double tf32;
  if (cl1_mb_begin(w, call, 3) || cl1_op_attr(call, "conv_tf32", &tf32)) return 1;
  w->nd = 1, w->no_tf32 = tf32 == 0;
  float *const *B = cl1_mb_bufs(s);
  int rc = cl1_mb_conv(w, (const float *)call->inputs[0].data, B[0], 3, C_STEM, 3, 2, 1, 1);
  if (!rc) rc = cl1_mb_bn(w, B[0], C_STEM);
  if (!rc) rc = cl1_mb_act(w, B[0], C_STEM, 0);
  int cur = 0;
  for (int i = 0; i < N_BLOCKS && !rc; i++) {
    const block_spec *b = &BLOCKS[i];
    int64_t hid = b->cin * b->expand, sq = hid / 4;
    int t1 = (cur + 1) % 3, t2 = (cur + 2) % 3;
    rc = cl1_mb_conv(w, B[cur], B[t1], b->cin, hid, 1, 1, 0, 1);
    if (!rc) rc = cl1_mb_bn(w, B[t1], hid);
    if (!rc) rc = cl1_mb_act(w, B[t1], hid, 0);
    if (!rc) rc = cl1_mb_conv(w, B[t1], B[t2], hid, hid, 3, b->stride, 1, hid);
    if (!rc) rc = cl1_mb_bn(w, B[t2], hid);
    if (!rc) rc = cl1_mb_act(w, B[t2], hid, 0);
    if (!rc) rc = cl1_mb_avgpool(w, B[t2], B[t1], hid);  // (N, hid, 1, 1)
    if (!rc) rc = cl1_mb_conv(w, B[t1], B[t2], hid, sq, 1, 1, 0, 1);
    if (!rc) rc = cl1_mb_act(w, B[t2], sq, 0);
    if (!rc) rc = cl1_mb_conv(w, B[t2], B[t1], sq, hid, 1, 1, 0, 1);
    if (!rc && !w->dry)
      rc = cl1_op_unary(call->stream, CL1_UNARY_SIGMOID, B[t1], B[t1], w->n * hid, 0, 0);
    if (!rc) rc = cl1_mb_conv(w, B[t1], B[t2], hid, b->cout, 1, 1, 0, 1);
    if (!rc) rc = cl1_mb_bn(w, B[t2], b->cout);
    cur = t2;
  }
  int out = (cur + 1) % 3, pooled = (cur + 2) % 3;
  if (!rc) rc = cl1_mb_conv(w, B[cur], B[out], BLOCKS[N_BLOCKS - 1].cout, C_HEAD, 1, 1, 0, 1);
  if (!rc) rc = cl1_mb_bn(w, B[out], C_HEAD);
  if (!rc) rc = cl1_mb_act(w, B[out], C_HEAD, 0);
  if (!rc) rc = cl1_mb_avgpool(w, B[out], B[pooled], C_HEAD);  // (N, C_HEAD)
  if (rc) return rc;
  int64_t classes = call->outputs[0].shape[1];
  const float *fw = cl1_mb_take(w, 2, classes, C_HEAD, 0, 0);
  const float *fb = cl1_mb_take(w, 1, classes, 0, 0, 0);
  if (!fw || !fb || w->next != call->n_params) return 1;
  if (w->dry) return 0;
  return cl1_op_linear(call->stream, B[pooled], fw, fb, (float *)call->outputs[0].data, w->n,
                       classes, C_HEAD);
}

CL1_EXPORT void cl1_teardown(void *state) { cl1_mb_teardown(state); }

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return cl1_mb_setup(call, state, run, 3, 0);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) { return cl1_mb_forward(call, run); }
