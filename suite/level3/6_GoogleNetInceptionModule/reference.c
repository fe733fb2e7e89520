/* reference.c — level3/6_GoogleNetInceptionModule, PyTorch eager order, one op call per PyTorch
 * op: branch1x1 = conv1x1(x); branch3x3 = conv3x3(conv1x1(x)); branch5x5 = conv5x5(conv1x1(x));
 * branch_pool = conv1x1(maxpool3/1/1(x)); y = torch.cat of the four on channels (one
 * cl1_cat_part per part). Each branch's tensors are intermediates, as in eager. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

/* The six convolutions in state_dict order: branch1x1, branch3x3.0, branch3x3.1, branch5x5.0,
 * branch5x5.1, branch_pool.1 — kernel size and which tensor each reads. */
enum { SRC_X, SRC_R3, SRC_R5, SRC_POOL };
static const struct { int64_t k; int src; } convs[6] = {
    {1, SRC_X}, {1, SRC_X}, {3, SRC_R3}, {1, SRC_X}, {5, SRC_R5}, {1, SRC_POOL}};
/* Where each conv writes: the four branch outputs are cat parts 0..3 */
enum { DST_B1, DST_R3, DST_B3, DST_R5, DST_B5, DST_BP, DST_N };

typedef struct {
  float *t[DST_N]; /* conv outputs (n, k_i, h, w) */
  float *pool;     /* maxpool(x): (n, c, h, w) */
} incep_state;

/* Checks x (n, c, h, w), every weight (k_i, c_src, r, r) and bias (k_i), and y (n, sum of the
 * branch widths, h, w); the out channels into k[]. */
static int incep_shapes(const cl1_call *call, int64_t k[DST_N]) {
  if (call->n_inputs != 1 || call->n_params != 12 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->ndim != 4 || y->ndim != 4 || x->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  for (int i = 0; i < 6; i++) {
    const cl1_tensor *w = &call->params[2 * i], *b = &call->params[2 * i + 1];
    int64_t cin = convs[i].src == SRC_R3 ? k[DST_R3] : convs[i].src == SRC_R5 ? k[DST_R5]
                                                                                : x->shape[1];
    if (w->ndim != 4 || b->ndim != 1 || w->dtype != CL1_F32 || b->dtype != CL1_F32) return 1;
    if (w->shape[1] != cin || w->shape[2] != convs[i].k || w->shape[3] != convs[i].k ||
        b->shape[0] != w->shape[0])
      return 1;
    k[i] = w->shape[0];
  }
  return y->shape[0] != x->shape[0] || y->shape[2] != x->shape[2] ||
         y->shape[3] != x->shape[3] || y->shape[1] != k[DST_B1] + k[DST_B3] + k[DST_B5] + k[DST_BP];
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t k[DST_N];
  if (incep_shapes(call, k)) return 1;
  const cl1_tensor *x = &call->inputs[0];
  int64_t plane = x->shape[0] * x->shape[2] * x->shape[3];
  incep_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  int bad = !(s->pool = cl1_op_alloc((size_t)(plane * x->shape[1]) * sizeof(float)));
  for (int i = 0; i < DST_N; i++)
    bad |= !(s->t[i] = cl1_op_alloc((size_t)(plane * k[i]) * sizeof(float)));
  if (bad) {
    cl1_op_free(s->pool);
    for (int i = 0; i < DST_N; i++) cl1_op_free(s->t[i]);
    return free(s), 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  incep_state *s = state;
  if (!s) return;
  cl1_op_free(s->pool);
  for (int i = 0; i < DST_N; i++) cl1_op_free(s->t[i]);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t k[DST_N];
  const incep_state *s = call->state;
  if (!s || incep_shapes(call, k)) return 1;
  const cl1_tensor *x = &call->inputs[0];
  int64_t n = x->shape[0], c = x->shape[1], h = x->shape[2], w = x->shape[3];
  void *st = call->stream;
  int rc = 0;
  for (int i = 0; i < 6 && !rc; i++) {
    const float *src = convs[i].src == SRC_X ? (const float *)x->data
                       : convs[i].src == SRC_R3 ? s->t[DST_R3]
                       : convs[i].src == SRC_R5 ? s->t[DST_R5]
                                                 : s->pool;
    int64_t cin = convs[i].src == SRC_R3 ? k[DST_R3] : convs[i].src == SRC_R5 ? k[DST_R5] : c;
    if (convs[i].src == SRC_POOL) { /* branch_pool.0: MaxPool2d(3, stride 1, padding 1) */
      cl1_pool_desc pd = {0};
      pd.nsp = 2, pd.planes = n * c, pd.in[0] = pd.out[0] = h, pd.in[1] = pd.out[1] = w;
      for (int d = 0; d < 2; d++) pd.k[d] = 3, pd.stride[d] = 1, pd.pad[d] = 1, pd.dil[d] = 1;
      rc = cl1_op_pool(st, CL1_POOL_MAX, (const float *)x->data, s->pool, &pd);
      if (rc) break;
    }
    int64_t r = convs[i].k;
    cl1_conv2d_desc d = {n, cin, h, w, k[i], r, r, 1, 1, r / 2, r / 2, 1, 1, 1};
    rc = cl1_op_conv2d(st, src, (const float *)call->params[2 * i].data,
                       (const float *)call->params[2 * i + 1].data, s->t[i], &d);
  }
  /* torch.cat([b1, b3, b5, bp], 1): each part is (n, k_i*h*w) rows of (n, C_total*h*w) */
  static const int parts[4] = {DST_B1, DST_B3, DST_B5, DST_BP};
  int64_t hw = h * w, total = call->outputs[0].shape[1] * hw, off = 0;
  for (int p = 0; p < 4 && !rc; p++) {
    rc = cl1_cat_part(st, s->t[parts[p]], (float *)call->outputs[0].data, n, k[parts[p]] * hw,
                         total, off);
    off += k[parts[p]] * hw;
  }
  return rc;
}
