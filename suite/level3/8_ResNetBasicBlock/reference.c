/* reference.c — level3/8_ResNetBasicBlock, PyTorch eager order: conv1 (3x3, stride) into
 * scratch `a`, bn1 and relu in place; conv2 (3x3) into the output, bn2 in place; the shortcut
 * conv (1x1, stride) into scratch `d`, its bn in place; output += d; relu in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/net.h>

typedef struct {
  float *a, *d;  // (N, K, OH, OW) each
} state8;

/* The three conv descriptors from the shapes; 0 when every tensor matches them. */
static int describe(const cl1_call *call, cl1_conv2d_desc *c1, cl1_conv2d_desc *c2,
                    cl1_conv2d_desc *ds) {
  if (call->n_inputs != 1 || call->n_params != 9 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *p = call->params;
  double stride;
  if (cl1_op_attr(call, "stride", &stride) || stride < 1) return 1;
  if (x->ndim != 4 || x->dtype != CL1_F32 || p[0].ndim != 4) return 1;
  int64_t n = x->shape[0], c = x->shape[1], k = p[0].shape[0], s = (int64_t)stride;
  *c1 = (cl1_conv2d_desc){.n = n, .c = c, .h = x->shape[2], .w = x->shape[3], .k = k, .r = 3,
                          .s = 3, .stride_h = s, .stride_w = s, .pad_h = 1, .pad_w = 1,
                          .dil_h = 1, .dil_w = 1, .groups = 1};
  int64_t oh = cl1_conv2d_out_h(c1), ow = cl1_conv2d_out_w(c1);
  if (oh < 1 || ow < 1) return 1;
  *c2 = *c1, c2->c = k, c2->h = oh, c2->w = ow, c2->stride_h = c2->stride_w = 1;
  *ds = *c1, ds->r = ds->s = 1, ds->pad_h = ds->pad_w = 0;
  if (cl1_conv2d_out_h(ds) != oh || cl1_conv2d_out_w(ds) != ow) return 1;
  if (cl1_net_bad(&p[0], 4, k, c, 3, 3) || cl1_net_bad(&p[3], 4, k, k, 3, 3) ||
      cl1_net_bad(&p[6], 4, k, c, 1, 1))
    return 1;
  const int vec[] = {1, 2, 4, 5, 7, 8};
  for (int i = 0; i < 6; i++)
    if (cl1_net_bad(&p[vec[i]], 1, k, 0, 0, 0)) return 1;
  return cl1_net_bad(&call->outputs[0], 4, n, k, oh, ow);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  cl1_conv2d_desc c1, c2, ds;
  if (describe(call, &c1, &c2, &ds)) return 1;
  state8 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  size_t bytes = (size_t)(c2.n * c2.k * c2.h * c2.w) * sizeof(float);
  s->a = cl1_op_alloc(bytes), s->d = cl1_op_alloc(bytes);
  if (!s->a || !s->d) return cl1_op_free(s->a), cl1_op_free(s->d), free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state8 *s = state;
  if (!s) return;
  cl1_op_free(s->a), cl1_op_free(s->d);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  cl1_conv2d_desc c1, c2, ds;
  if (!call->state || describe(call, &c1, &c2, &ds)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  const state8 *s = call->state;
  const cl1_tensor *p = call->params;
  const float *x = (const float *)call->inputs[0].data;
#define P(i) ((const float *)p[i].data)
  float *y = (float *)call->outputs[0].data;
  void *st = call->stream;
  int64_t n = c2.n, k = c2.k, hw = c2.h * c2.w;
  int rc = cl1_op_conv2d(st, x, P(0), NULL, s->a, &c1);
  if (!rc) rc = cl1_op_batchnorm_train(st, s->a, P(1), P(2), s->a, n, k, hw, eps);
  if (!rc) rc = cl1_op_relu(st, s->a, s->a, n * k * hw);
  if (!rc) rc = cl1_op_conv2d(st, s->a, P(3), NULL, y, &c2);
  if (!rc) rc = cl1_op_batchnorm_train(st, y, P(4), P(5), y, n, k, hw, eps);
  if (!rc) rc = cl1_op_conv2d(st, x, P(6), NULL, s->d, &ds);
  if (!rc) rc = cl1_op_batchnorm_train(st, s->d, P(7), P(8), s->d, n, k, hw, eps);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, y, s->d, y, n * k * hw);
  if (!rc) rc = cl1_op_relu(st, y, y, n * k * hw);
#undef P
  return rc;
}
