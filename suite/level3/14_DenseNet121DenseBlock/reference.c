/* reference.c — level3/14_DenseNet121DenseBlock, PyTorch eager order per layer i: batch_norm of
 * the current concatenation x_i into scratch `t`, relu in place, 3x3 conv into feature slot i of
 * scratch `feat`, then torch.cat([x, f_0..f_i], 1) as one cl1_cat_part per part into scratch
 * `cat` (the last layer's into the output). Layer 0 reads the input x itself. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/net.h>

#define MAX_LAYERS 64

typedef struct {
  float *t;     // (N, C0 + (L-1)G, H, W): the widest normalised layer input
  float *feat;  // L x (N, G, H, W): each layer's new feature, a tensor of its own
  float *cat;   // (N, C0 + (L-1)G, H, W): x_i for 0 < i < L
} state14;

typedef struct {
  int64_t n, c0, g, h, w, layers;
} geom14;

/* Sizes from the shapes; 0 when every param and the output match them. */
static int describe(const cl1_call *call, geom14 *g) {
  double layers;
  if (cl1_op_attr(call, "num_layers", &layers) || layers < 1 || layers > MAX_LAYERS) return 1;
  g->layers = (int64_t)layers;
  if (call->n_inputs != 1 || call->n_params != 3 * g->layers || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *p = call->params;
  if (x->ndim != 4 || x->dtype != CL1_F32 || p[2].ndim != 4) return 1;
  g->n = x->shape[0], g->c0 = x->shape[1], g->h = x->shape[2], g->w = x->shape[3];
  g->g = p[2].shape[0];
  for (int64_t i = 0; i < g->layers; i++) {
    int64_t c = g->c0 + i * g->g;
    if (cl1_net_bad(&p[3 * i], 1, c, 0, 0, 0) || cl1_net_bad(&p[3 * i + 1], 1, c, 0, 0, 0) ||
        cl1_net_bad(&p[3 * i + 2], 4, g->g, c, 3, 3))
      return 1;
  }
  return cl1_net_bad(&call->outputs[0], 4, g->n, g->c0 + g->layers * g->g, g->h, g->w);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  geom14 g;
  if (describe(call, &g)) return 1;
  state14 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  size_t plane = (size_t)(g.n * g.h * g.w) * sizeof(float);
  size_t wide = plane * (size_t)(g.c0 + (g.layers - 1) * g.g);
  s->t = cl1_op_alloc(wide);
  s->feat = cl1_op_alloc(plane * (size_t)(g.layers * g.g));
  s->cat = cl1_op_alloc(wide);
  if (!s->t || !s->feat || !s->cat) {
    cl1_op_free(s->t), cl1_op_free(s->feat), cl1_op_free(s->cat), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state14 *s = state;
  if (!s) return;
  cl1_op_free(s->t), cl1_op_free(s->feat), cl1_op_free(s->cat);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  geom14 g;
  if (!call->state || describe(call, &g)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  const state14 *s = call->state;
  const cl1_tensor *p = call->params;
  void *st = call->stream;
  const float *x0 = (const float *)call->inputs[0].data;
  float *y = (float *)call->outputs[0].data;
  int64_t hw = g.h * g.w, fsz = g.n * g.g * hw;  // one feature: (N, G, H, W)
  const float *xi = x0;
  int rc = 0;
  for (int64_t i = 0; i < g.layers && !rc; i++) {
    int64_t c = g.c0 + i * g.g, cout = c + g.g;
    cl1_conv2d_desc d = {.n = g.n, .c = c, .h = g.h, .w = g.w, .k = g.g, .r = 3, .s = 3,
                         .stride_h = 1, .stride_w = 1, .pad_h = 1, .pad_w = 1, .dil_h = 1,
                         .dil_w = 1, .groups = 1};
    float *fi = s->feat + i * fsz, *dst = i == g.layers - 1 ? y : s->cat;
    rc = cl1_op_batchnorm_train(st, xi, (const float *)p[3 * i].data,
                                (const float *)p[3 * i + 1].data, s->t, g.n, c, hw, eps);
    if (!rc) rc = cl1_op_relu(st, s->t, s->t, g.n * c * hw);
    if (!rc) rc = cl1_op_conv2d(st, s->t, (const float *)p[3 * i + 2].data, NULL, fi, &d);
    // torch.cat(features, 1): x, then f_0..f_i
    if (!rc) rc = cl1_cat_part(st, x0, dst, g.n, g.c0 * hw, cout * hw, 0);
    for (int64_t j = 0; j <= i && !rc; j++)
      rc = cl1_cat_part(st, s->feat + j * fsz, dst, g.n, g.g * hw, cout * hw,
                           (g.c0 + j * g.g) * hw);
    xi = dst;
  }
  return rc;
}
