/* reference.c — level3/17_SqueezeNetFireModule, PyTorch eager order: squeeze conv (1x1) into
 * scratch `s`, relu in place; expand1x1 conv into scratch `e1`, relu in place; expand3x3 conv
 * (padding 1) into scratch `e3`, relu in place; torch.cat([e1, e3], 1) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/net.h>

typedef struct {
  float *s;   // (N, S, H, W)
  float *e1;  // (N, E1, H, W)
  float *e3;  // (N, E3, H, W)
} state17;

/* The three conv descriptors from the shapes; 0 when every tensor matches them. */
static int describe(const cl1_call *call, cl1_conv2d_desc *sq, cl1_conv2d_desc *e1,
                    cl1_conv2d_desc *e3) {
  if (call->n_inputs != 1 || call->n_params != 6 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *p = call->params;
  if (x->ndim != 4 || x->dtype != CL1_F32 || p[0].ndim != 4 || p[2].ndim != 4 || p[4].ndim != 4)
    return 1;
  int64_t n = x->shape[0], c = x->shape[1], h = x->shape[2], w = x->shape[3];
  int64_t s = p[0].shape[0], k1 = p[2].shape[0], k3 = p[4].shape[0];
  if (cl1_net_bad(&p[0], 4, s, c, 1, 1) || cl1_net_bad(&p[1], 1, s, 0, 0, 0) ||
      cl1_net_bad(&p[2], 4, k1, s, 1, 1) || cl1_net_bad(&p[3], 1, k1, 0, 0, 0) ||
      cl1_net_bad(&p[4], 4, k3, s, 3, 3) || cl1_net_bad(&p[5], 1, k3, 0, 0, 0))
    return 1;
  *sq = (cl1_conv2d_desc){.n = n, .c = c, .h = h, .w = w, .k = s, .r = 1, .s = 1, .stride_h = 1,
                          .stride_w = 1, .dil_h = 1, .dil_w = 1, .groups = 1};
  *e1 = *sq, e1->c = s, e1->k = k1;
  *e3 = *e1, e3->k = k3, e3->r = e3->s = 3, e3->pad_h = e3->pad_w = 1;
  return cl1_net_bad(&call->outputs[0], 4, n, k1 + k3, h, w);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc sq, e1, e3;
  if (describe(call, &sq, &e1, &e3)) return 1;
  state17 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  size_t plane = (size_t)(sq.n * sq.h * sq.w) * sizeof(float);
  s->s = cl1_op_alloc(plane * (size_t)sq.k);
  s->e1 = cl1_op_alloc(plane * (size_t)e1.k);
  s->e3 = cl1_op_alloc(plane * (size_t)e3.k);
  if (!s->s || !s->e1 || !s->e3) {
    cl1_op_free(s->s), cl1_op_free(s->e1), cl1_op_free(s->e3), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state17 *s = state;
  if (!s) return;
  cl1_op_free(s->s), cl1_op_free(s->e1), cl1_op_free(s->e3);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_conv2d_desc sq, e1, e3;
  if (!call->state || describe(call, &sq, &e1, &e3)) return 1;
  const state17 *s = call->state;
  const cl1_tensor *p = call->params;
#define P(i) ((const float *)p[i].data)
  void *st = call->stream;
  float *y = (float *)call->outputs[0].data;
  int64_t n = sq.n, hw = sq.h * sq.w;
  int rc = cl1_op_conv2d(st, (const float *)call->inputs[0].data, P(0), P(1), s->s, &sq);
  if (!rc) rc = cl1_op_relu(st, s->s, s->s, n * sq.k * hw);
  if (!rc) rc = cl1_op_conv2d(st, s->s, P(2), P(3), s->e1, &e1);
  if (!rc) rc = cl1_op_relu(st, s->e1, s->e1, n * e1.k * hw);
  if (!rc) rc = cl1_op_conv2d(st, s->s, P(4), P(5), s->e3, &e3);
  if (!rc) rc = cl1_op_relu(st, s->e3, s->e3, n * e3.k * hw);
  if (!rc) rc = cl1_cat_part(st, s->e1, y, n, e1.k * hw, (e1.k + e3.k) * hw, 0);
  if (!rc) rc = cl1_cat_part(st, s->e3, y, n, e3.k * hw, (e1.k + e3.k) * hw, e1.k * hw);
#undef P
  return rc;
}
