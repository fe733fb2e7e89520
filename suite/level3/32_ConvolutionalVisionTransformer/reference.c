/* reference.c — level3/32_ConvolutionalVisionTransformer, PyTorch eager order: c = conv1(x)
 * (cuDNN); t = linear_proj(flatten(c)); X = cat(cls expanded, t) as (B, 2, E) (two copies);
 * num_layers batch_first post-norm encoder layers (in_proj, heads, SDPA, merge, out_proj, + X,
 * norm1, linear1, relu, linear2, + X, norm2); y = fc_out(X[:, 0]). */
#include <math.h>
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

enum { P_CLS = 0, P_CONV_W, P_CONV_B, P_PROJ_W, P_PROJ_B, P_LAYER0 };
/* per-layer params, in state_dict order */
enum { L_IN_W = 0, L_IN_B, L_OUT_W, L_OUT_B, L_FC1_W, L_FC1_B, L_FC2_W, L_FC2_B, L_N1_W, L_N1_B,
       L_N2_W, L_N2_B, L_N };
enum { H_FC_W = 0, H_FC_B, H_N };
enum { T = 2 };  // tokens: cls and the projected image

typedef struct {
  cl1_conv2d_desc conv;
  int64_t B, E, np, layers, heads, hd, mlp, ncls;
} dims32;

typedef struct {
  float *conv;  // (B, E, g, g)
  float *t;     // (B, E)
  float *x;     // (B, T, E): the residual stream
  float *u;     // (B, T, E)
  float *qkv;   // (B, T, 3E)
  float *heads; // (3, B*heads, T, hd)
  float *o;     // (B*heads, T, hd)
  float *f;     // (B, T, mlp)
  float *c;     // (B, E)
} state32;

static int is_shape(const cl1_tensor *t, int nd, int64_t a, int64_t b, int64_t c, int64_t d) {
  const int64_t w[4] = {a, b, c, d};
  if (t->ndim != nd || t->dtype != CL1_F32) return 0;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != w[i]) return 0;
  return 1;
}

/* Reads and checks every shape; 0 when they are consistent. */
static int describe(const cl1_call *call, dims32 *d) {
  double ps, layers, heads;
  if (cl1_op_attr(call, "patch_size", &ps) || cl1_op_attr(call, "num_layers", &layers) ||
      cl1_op_attr(call, "num_heads", &heads))
    return 1;
  const int64_t p = (int64_t)ps;
  d->layers = (int64_t)layers, d->heads = (int64_t)heads;
  if (p < 1 || d->layers < 1 || d->heads < 1) return 1;
  if (call->n_inputs != 1 || call->n_outputs != 1 ||
      call->n_params != P_LAYER0 + L_N * d->layers + H_N)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *P = call->params;
  if (x->ndim != 4 || x->dtype != CL1_F32) return 1;
  d->B = x->shape[0], d->E = P[P_CONV_W].shape[0];
  d->conv = (cl1_conv2d_desc){.n = d->B, .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                              .k = d->E, .r = p, .s = p, .stride_h = p, .stride_w = p,
                              .dil_h = 1, .dil_w = 1, .groups = 1};
  const int64_t oh = cl1_conv2d_out_h(&d->conv), ow = cl1_conv2d_out_w(&d->conv), E = d->E;
  if (oh < 1 || ow < 1 || E % d->heads) return 1;
  d->np = oh * ow, d->hd = E / d->heads;
  const cl1_tensor *H = P + P_LAYER0 + L_N * d->layers;
  d->mlp = P[P_LAYER0 + L_FC1_W].shape[0], d->ncls = H[H_FC_W].shape[0];
  if (!is_shape(&P[P_CLS], 3, 1, 1, E, 0) || !is_shape(&P[P_CONV_W], 4, E, d->conv.c, p, p) ||
      !is_shape(&P[P_CONV_B], 1, E, 0, 0, 0) || !is_shape(&P[P_PROJ_W], 2, E, E * d->np, 0, 0) ||
      !is_shape(&P[P_PROJ_B], 1, E, 0, 0, 0))
    return 1;
  for (int64_t l = 0; l < d->layers; l++) {
    const cl1_tensor *L = P + P_LAYER0 + L_N * l;
    if (!is_shape(&L[L_IN_W], 2, 3 * E, E, 0, 0) || !is_shape(&L[L_IN_B], 1, 3 * E, 0, 0, 0) ||
        !is_shape(&L[L_OUT_W], 2, E, E, 0, 0) || !is_shape(&L[L_OUT_B], 1, E, 0, 0, 0) ||
        !is_shape(&L[L_FC1_W], 2, d->mlp, E, 0, 0) || !is_shape(&L[L_FC1_B], 1, d->mlp, 0, 0, 0) ||
        !is_shape(&L[L_FC2_W], 2, E, d->mlp, 0, 0) || !is_shape(&L[L_FC2_B], 1, E, 0, 0, 0))
      return 1;
    for (int i = L_N1_W; i <= L_N2_B; i++)
      if (!is_shape(&L[i], 1, E, 0, 0, 0)) return 1;
  }
  if (!is_shape(&H[H_FC_W], 2, d->ncls, E, 0, 0) || !is_shape(&H[H_FC_B], 1, d->ncls, 0, 0, 0))
    return 1;
  return is_shape(&call->outputs[0], 2, d->B, d->ncls, 0, 0) ? 0 : 1;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state32 *s = state;
  if (!s) return;
  float *bufs[] = {s->conv, s->t, s->x, s->u, s->qkv, s->heads, s->o, s->f, s->c};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) cl1_op_free(bufs[i]);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  dims32 d;
  if (describe(call, &d)) return 1;
  state32 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  const size_t f = sizeof(float), be = (size_t)(d.B * d.E);
  s->conv = cl1_op_alloc(be * (size_t)d.np * f);
  s->t = cl1_op_alloc(be * f);
  s->x = cl1_op_alloc(T * be * f);
  s->u = cl1_op_alloc(T * be * f);
  s->qkv = cl1_op_alloc(3 * T * be * f);
  s->heads = cl1_op_alloc(3 * T * be * f);
  s->o = cl1_op_alloc(T * be * f);
  s->f = cl1_op_alloc((size_t)(T * d.B * d.mlp) * f);
  s->c = cl1_op_alloc(be * f);
  if (!s->conv || !s->t || !s->x || !s->u || !s->qkv || !s->heads || !s->o || !s->f || !s->c) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

/* One batch_first nn.TransformerEncoderLayer (post-norm, ReLU) on s->x (B, T, E), in place. */
static int encoder_layer(void *st, const state32 *s, const dims32 *d, const float *const *L,
                         double eps) {
  const int64_t B = d->B, E = d->E, nh = d->heads, hd = d->hd, M = B * T, part = M * E;
  int rc = cl1_op_linear(st, s->x, 0, L[L_IN_W], L[L_IN_B], s->qkv, M, 3 * E, E);
  // qkv viewed (B, T, 3, nh, hd) -> (3, B, nh, T, hd) = (3, B*nh, T, hd)
  const int64_t sh1[5] = {3, B, nh, T, hd}, xs1[5] = {E, T * 3 * E, hd, 3 * E, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 5, sh1, s->qkv, xs1, s->heads, NULL);
  if (!rc) rc = cl1_op_sdpa(st, s->heads, s->heads + part, s->heads + 2 * part, s->o, B * nh,
                            T, T, hd, hd, 1.0 / sqrt((double)hd));
  // (B, nh, T, hd) -> (B, T, nh, hd)
  const int64_t sh2[4] = {B, T, nh, hd}, xs2[4] = {nh * T * hd, hd, T * hd, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, sh2, s->o, xs2, s->qkv, NULL);
  if (!rc) rc = cl1_op_linear(st, s->qkv, 0, L[L_OUT_W], L[L_OUT_B], s->u, M, E, E);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->x, s->u, s->u, part);
  if (!rc) rc = cl1_op_layernorm(st, s->u, L[L_N1_W], L[L_N1_B], s->x, M, E, eps);
  if (!rc) rc = cl1_op_linear(st, s->x, 0, L[L_FC1_W], L[L_FC1_B], s->f, M, d->mlp, E);
  if (!rc) rc = cl1_op_relu(st, s->f, s->f, M * d->mlp);
  if (!rc) rc = cl1_op_linear(st, s->f, 0, L[L_FC2_W], L[L_FC2_B], s->u, M, E, d->mlp);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->x, s->u, s->u, part);
  if (!rc) rc = cl1_op_layernorm(st, s->u, L[L_N2_W], L[L_N2_B], s->x, M, E, eps);
  return rc;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  dims32 d;
  if (!call->state || describe(call, &d)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  const state32 *s = call->state;
  void *st = call->stream;
  const float *P[P_LAYER0 + L_N * 64 + H_N];
  if (call->n_params > (int32_t)(sizeof P / sizeof *P)) return 1;
  for (int32_t i = 0; i < call->n_params; i++) P[i] = call->params[i].data;
  const int64_t B = d.B, E = d.E;
  int rc = cl1_op_conv2d(st, call->inputs[0].data, P[P_CONV_W], P[P_CONV_B], s->conv, &d.conv);
  if (!rc) rc = cl1_op_linear(st, s->conv, 0, P[P_PROJ_W], P[P_PROJ_B], s->t, B, E, E * d.np);
  // torch.cat((cls_token.expand(B, 1, E), t.unsqueeze(1)), dim=1)
  const int64_t shc[2] = {B, E}, xsc[2] = {0, 1}, ysc[2] = {T * E, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 2, shc, P[P_CLS], xsc, s->x, ysc);
  if (!rc) rc = cl1_cat_part(st, s->t, s->x, B, E, T * E, E);
  for (int64_t l = 0; l < d.layers && !rc; l++)
    rc = encoder_layer(st, s, &d, P + P_LAYER0 + L_N * l, eps);
  // x[:, 0]
  const int64_t sh3[2] = {B, E}, xs3[2] = {T * E, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 2, sh3, s->x, xs3, s->c, NULL);
  const float *const *H = P + P_LAYER0 + L_N * d.layers;
  if (!rc)
    rc = cl1_op_linear(st, s->c, 0, H[H_FC_W], H[H_FC_B], call->outputs[0].data, B, d.ncls, E);
  return rc;
}
