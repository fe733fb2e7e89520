/* reference.c — level3/25_ShuffleNetUnit, PyTorch eager order: 1x1 group conv -> bn1 -> relu,
 * depthwise 3x3 conv -> bn2, channel shuffle (view (N, g, C/g, H, W), transpose(1, 2),
 * .contiguous()), 1x1 group conv -> bn3 -> relu into the output, then out += shortcut(x):
 * x itself when in == out, else 1x1 conv -> bn (8 or 11 params). BatchNorm uses batch
 * statistics (training mode). */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cudal1/net.h>

typedef struct {
  float *a, *b;   // (N, mid, H, W)
  float *sc;      // (N, out, H, W): the projection shortcut, NULL for the identity one
} unit_state;

typedef struct {
  int64_t n, cin, cout, mid, g, h, w;
  int proj;  // 1: conv shortcut
  double eps;
} unit_shape;

static int describe(const cl1_call *call, unit_shape *u) {
  if (call->n_inputs != 1 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0], *p = call->params;
  double g, eps;
  if (cl1_op_attr(call, "groups", &g) || cl1_op_attr(call, "eps", &eps)) return 1;
  if (x->dtype != CL1_F32 || x->ndim != 4 || y->dtype != CL1_F32 || y->ndim != 4) return 1;
  u->n = x->shape[0], u->cin = x->shape[1], u->h = x->shape[2], u->w = x->shape[3];
  u->cout = y->shape[1], u->mid = u->cout / 4, u->g = (int64_t)g, u->eps = eps;
  u->proj = u->cin != u->cout;
  if (call->n_params != (u->proj ? 12 : 9)) return 1;
  if (u->cout % 4 || u->g < 1 || u->cin % u->g || u->mid % u->g || u->cout % u->g) return 1;
  if (y->shape[0] != u->n || y->shape[2] != u->h || y->shape[3] != u->w) return 1;
  int64_t m = u->mid, o = u->cout;
  if (cl1_net_bad(&p[0], 4, m, u->cin / u->g, 1, 1) ||
      cl1_net_bad(&p[3], 4, m, 1, 3, 3) || cl1_net_bad(&p[6], 4, o, m / u->g, 1, 1))
    return 1;
  const int64_t vec[] = {m, m, 0, m, m, 0, o, o};  // bn1, bn2, bn3 weight/bias at 1,2,4,5,7,8
  for (int i = 1; i < 9; i++)
    if (vec[i - 1] && cl1_net_bad(&p[i], 1, vec[i - 1], 0, 0, 0)) return 1;
  if (u->proj && (cl1_net_bad(&p[9], 4, o, u->cin, 1, 1) ||
                  cl1_net_bad(&p[10], 1, o, 0, 0, 0) ||
                  cl1_net_bad(&p[11], 1, o, 0, 0, 0)))
    return 1;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  unit_state *s = state;
  if (!s) return;
  cl1_op_free(s->a), cl1_op_free(s->b), cl1_op_free(s->sc);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  unit_shape u;
  if (describe(call, &u)) return 1;
  unit_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  size_t mid = (size_t)(u.n * u.mid * u.h * u.w) * sizeof(float);
  s->a = cl1_op_alloc(mid), s->b = cl1_op_alloc(mid);
  if (u.proj) s->sc = cl1_op_alloc((size_t)(u.n * u.cout * u.h * u.w) * sizeof(float));
  if (!s->a || !s->b || (u.proj && !s->sc)) return cl1_teardown(s), 1;
  *state = s;
  return 0;
}

static cl1_conv2d_desc conv_desc(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
                                 int64_t r, int64_t groups) {
  return (cl1_conv2d_desc){.n = n, .c = c, .h = h, .w = w, .k = k, .r = r, .s = r,
                           .stride_h = 1, .stride_w = 1, .pad_h = r / 2, .pad_w = r / 2,
                           .dil_h = 1, .dil_w = 1, .groups = groups};
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  unit_shape u;
  if (!call->state || describe(call, &u)) return 1;
  const unit_state *s = call->state;
  const float *x = (const float *)call->inputs[0].data;
  float *y = (float *)call->outputs[0].data;
  const float *P[12] = {0};
  for (int i = 0; i < call->n_params; i++) P[i] = (const float *)call->params[i].data;
  void *st = call->stream;
  int64_t hw = u.h * u.w, m = u.mid, o = u.cout;
  cl1_conv2d_desc c1 = conv_desc(u.n, u.cin, u.h, u.w, m, 1, u.g),
                  c2 = conv_desc(u.n, m, u.h, u.w, m, 3, m),
                  c3 = conv_desc(u.n, m, u.h, u.w, o, 1, u.g),
                  cs = conv_desc(u.n, u.cin, u.h, u.w, o, 1, 1);
  int rc = cl1_op_conv2d(st, x, P[0], NULL, s->a, &c1);
  if (!rc) rc = cl1_op_batchnorm_train(st, s->a, P[1], P[2], s->a, u.n, m, hw, u.eps);
  if (!rc) rc = cl1_op_relu(st, s->a, s->a, u.n * m * hw);
  if (!rc) rc = cl1_op_conv2d(st, s->a, P[3], NULL, s->b, &c2);
  if (!rc) rc = cl1_op_batchnorm_train(st, s->b, P[4], P[5], s->b, u.n, m, hw, u.eps);
  // channel shuffle: view (N, g, m/g, hw) read as (N, m/g, g, hw), made contiguous
  const int64_t shuf[4] = {u.n, m / u.g, u.g, hw}, shuf_stride[4] = {m * hw, hw, m / u.g * hw, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, shuf, s->b, shuf_stride, s->a, NULL);
  if (!rc) rc = cl1_op_conv2d(st, s->a, P[6], NULL, y, &c3);
  if (!rc) rc = cl1_op_batchnorm_train(st, y, P[7], P[8], y, u.n, o, hw, u.eps);
  if (!rc) rc = cl1_op_relu(st, y, y, u.n * o * hw);
  const float *sc = x;
  if (!rc && u.proj) {
    rc = cl1_op_conv2d(st, x, P[9], NULL, s->sc, &cs);
    if (!rc) rc = cl1_op_batchnorm_train(st, s->sc, P[10], P[11], s->sc, u.n, o, hw, u.eps);
    sc = s->sc;
  }
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, y, sc, y, u.n * o * hw);
  return rc;
}
