/* reference.c — level3/28_VisionTransformer, PyTorch eager order: patches = img unfolded
 * (strided copy); pe = patch_to_embedding(patches); x = cat(cls expanded, pe) (two copies);
 * x += pos_embedding; `depth` post-norm encoder layers over the (seq = batch, tokens, dim) view
 * (in_proj, heads, SDPA, merge, out_proj, + x, norm1, linear1, relu, linear2, + x, norm2);
 * c = x[:, 0]; y = mlp_head(c) (Linear, exact GELU, Linear). */
#include <math.h>
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

enum { P_POS = 0, P_CLS, P_EMB_W, P_EMB_B, P_LAYER0 };
/* per-layer params, in state_dict order */
enum { L_IN_W = 0, L_IN_B, L_OUT_W, L_OUT_B, L_FC1_W, L_FC1_B, L_FC2_W, L_FC2_B, L_N1_W, L_N1_B,
       L_N2_W, L_N2_B, L_N };
enum { H_FC1_W = 0, H_FC1_B, H_FC2_W, H_FC2_B, H_N };

typedef struct {
  int64_t B, C, img, p, g, N, Nt, pd, dim, depth, heads, hd, mlp, ncls;
} dims28;

typedef struct {
  float *patches; // (B, N, pd)
  float *pe;      // (B, N, dim)
  float *x;       // (B, Nt, dim) = (seq, batch', dim): the residual stream
  float *t;       // (B, Nt, dim)
  float *qkv;     // (B, Nt, 3 dim)
  float *heads;   // (3, Nt*heads, B, hd)
  float *o;       // (Nt*heads, B, hd)
  float *f;       // (B, Nt, mlp)
  float *c;       // (B, dim)
  float *h;       // (B, mlp)
} state28;

static int is_shape(const cl1_tensor *t, int nd, int64_t a, int64_t b, int64_t c) {
  const int64_t w[3] = {a, b, c};
  if (t->ndim != nd || t->dtype != CL1_F32) return 0;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != w[i]) return 0;
  return 1;
}

/* Reads and checks every shape; 0 when they are consistent. */
static int describe(const cl1_call *call, dims28 *d) {
  double ps, depth, heads;
  if (cl1_op_attr(call, "patch_size", &ps) || cl1_op_attr(call, "depth", &depth) ||
      cl1_op_attr(call, "heads", &heads))
    return 1;
  d->p = (int64_t)ps, d->depth = (int64_t)depth, d->heads = (int64_t)heads;
  if (d->p < 1 || d->depth < 1 || d->heads < 1) return 1;
  if (call->n_inputs != 1 || call->n_outputs != 1 ||
      call->n_params != P_LAYER0 + L_N * d->depth + H_N)
    return 1;
  const cl1_tensor *img = &call->inputs[0], *P = call->params;
  if (img->ndim != 4 || img->shape[2] != img->shape[3] || img->shape[2] % d->p) return 1;
  d->B = img->shape[0], d->C = img->shape[1], d->img = img->shape[2];
  d->g = d->img / d->p, d->N = d->g * d->g, d->Nt = d->N + 1, d->pd = d->C * d->p * d->p;
  d->dim = P[P_EMB_W].shape[0];
  if (d->dim % d->heads) return 1;
  d->hd = d->dim / d->heads;
  const cl1_tensor *H = P + P_LAYER0 + L_N * d->depth;
  d->mlp = H[H_FC1_W].shape[0], d->ncls = H[H_FC2_W].shape[0];
  const int64_t E = d->dim;
  if (!is_shape(&P[P_POS], 3, 1, d->Nt, E) || !is_shape(&P[P_EMB_W], 2, E, d->pd, 0) ||
      !is_shape(&P[P_EMB_B], 1, E, 0, 0) || !is_shape(&P[P_CLS], 3, 1, 1, E))
    return 1;
  for (int64_t l = 0; l < d->depth; l++) {
    const cl1_tensor *L = P + P_LAYER0 + L_N * l;
    const int64_t ff = L[L_FC1_W].shape[0];
    if (!is_shape(&L[L_IN_W], 2, 3 * E, E, 0) || !is_shape(&L[L_IN_B], 1, 3 * E, 0, 0) ||
        !is_shape(&L[L_OUT_W], 2, E, E, 0) || !is_shape(&L[L_OUT_B], 1, E, 0, 0) ||
        !is_shape(&L[L_FC1_W], 2, ff, E, 0) || !is_shape(&L[L_FC1_B], 1, ff, 0, 0) ||
        !is_shape(&L[L_FC2_W], 2, E, ff, 0) || !is_shape(&L[L_FC2_B], 1, E, 0, 0) || ff != d->mlp)
      return 1;
    for (int i = L_N1_W; i <= L_N2_B; i++)
      if (!is_shape(&L[i], 1, E, 0, 0)) return 1;
  }
  if (!is_shape(&H[H_FC1_W], 2, d->mlp, E, 0) || !is_shape(&H[H_FC1_B], 1, d->mlp, 0, 0) ||
      !is_shape(&H[H_FC2_W], 2, d->ncls, d->mlp, 0) || !is_shape(&H[H_FC2_B], 1, d->ncls, 0, 0))
    return 1;
  return is_shape(&call->outputs[0], 2, d->B, d->ncls, 0) ? 0 : 1;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state28 *s = state;
  if (!s) return;
  float *bufs[] = {s->patches, s->pe, s->x, s->t, s->qkv, s->heads, s->o, s->f, s->c, s->h};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) cl1_op_free(bufs[i]);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  dims28 d;
  if (describe(call, &d)) return 1;
  state28 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  const size_t f = sizeof(float), tok = (size_t)(d.B * d.Nt);
  s->patches = cl1_op_alloc((size_t)(d.B * d.N * d.pd) * f);
  s->pe = cl1_op_alloc((size_t)(d.B * d.N * d.dim) * f);
  s->x = cl1_op_alloc(tok * (size_t)d.dim * f);
  s->t = cl1_op_alloc(tok * (size_t)d.dim * f);
  s->qkv = cl1_op_alloc(3 * tok * (size_t)d.dim * f);
  s->heads = cl1_op_alloc(3 * tok * (size_t)d.dim * f);
  s->o = cl1_op_alloc(tok * (size_t)d.dim * f);
  s->f = cl1_op_alloc(tok * (size_t)d.mlp * f);
  s->c = cl1_op_alloc((size_t)(d.B * d.dim) * f);
  s->h = cl1_op_alloc((size_t)(d.B * d.mlp) * f);
  if (!s->patches || !s->pe || !s->x || !s->t || !s->qkv || !s->heads || !s->o || !s->f ||
      !s->c || !s->h) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

/* One nn.TransformerEncoderLayer (post-norm, ReLU) on s->x viewed (S, Nb, E), in place. */
static int encoder_layer(void *st, const state28 *s, const dims28 *d, const float *const *L,
                         double eps) {
  const int64_t S = d->B, Nb = d->Nt, E = d->dim, nh = d->heads, hd = d->hd, M = S * Nb;
  const int64_t part = M * E;
  int rc = cl1_op_linear(st, s->x, 0, L[L_IN_W], L[L_IN_B], s->qkv, M, 3 * E, E);
  // qkv viewed (S, Nb, 3, nh, hd) -> (3, Nb, nh, S, hd) = (3, Nb*nh, S, hd)
  const int64_t sh1[5] = {3, Nb, nh, S, hd}, xs1[5] = {E, 3 * E, hd, Nb * 3 * E, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 5, sh1, s->qkv, xs1, s->heads, NULL);
  if (!rc) rc = cl1_op_sdpa(st, s->heads, s->heads + part, s->heads + 2 * part, s->o, Nb * nh,
                            S, S, hd, hd, 1.0 / sqrt((double)hd));
  // (Nb, nh, S, hd) -> (S, Nb, nh, hd)
  const int64_t sh2[4] = {S, Nb, nh, hd}, xs2[4] = {hd, nh * S * hd, S * hd, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, sh2, s->o, xs2, s->qkv, NULL);
  if (!rc) rc = cl1_op_linear(st, s->qkv, 0, L[L_OUT_W], L[L_OUT_B], s->t, M, E, E);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->x, s->t, s->t, part);
  if (!rc) rc = cl1_op_layernorm(st, s->t, L[L_N1_W], L[L_N1_B], s->x, M, E, eps);
  if (!rc) rc = cl1_op_linear(st, s->x, 0, L[L_FC1_W], L[L_FC1_B], s->f, M, d->mlp, E);
  if (!rc) rc = cl1_op_relu(st, s->f, s->f, M * d->mlp);
  if (!rc) rc = cl1_op_linear(st, s->f, 0, L[L_FC2_W], L[L_FC2_B], s->t, M, E, d->mlp);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->x, s->t, s->t, part);
  if (!rc) rc = cl1_op_layernorm(st, s->t, L[L_N2_W], L[L_N2_B], s->x, M, E, eps);
  return rc;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  dims28 d;
  if (!call->state || describe(call, &d)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  const state28 *s = call->state;
  void *st = call->stream;
  const float *P[P_LAYER0 + L_N * 64 + H_N];
  if (call->n_params > (int32_t)(sizeof P / sizeof *P)) return 1;
  for (int32_t i = 0; i < call->n_params; i++) P[i] = call->params[i].data;
  const float *img = call->inputs[0].data;
  const int64_t B = d.B, C = d.C, W = d.img, p = d.p, g = d.g, E = d.dim, Nt = d.Nt;
  // img.unfold(2, p, p).unfold(3, p, p): (B, C, g, g, p, p)
  const int64_t sh0[6] = {B, C, g, g, p, p}, xs0[6] = {C * W * W, W * W, p * W, p, W, 1};
  int rc = cl1_op_strided_copy(st, 6, sh0, img, xs0, s->patches, NULL);
  if (!rc) rc = cl1_op_linear(st, s->patches, 0, P[P_EMB_W], P[P_EMB_B], s->pe, B * d.N, E, d.pd);
  // torch.cat((cls_token.expand(B, 1, E), pe), dim=1)
  const int64_t shc[2] = {B, E}, xsc[2] = {0, 1}, ysc[2] = {Nt * E, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 2, shc, P[P_CLS], xsc, s->x, ysc);
  if (!rc) rc = cl1_cat_part(st, s->pe, s->x, B, d.N * E, Nt * E, E);
  if (!rc) rc = cl1_op_bias_add(st, s->x, P[P_POS], s->x, B, Nt * E, 1);
  for (int64_t l = 0; l < d.depth && !rc; l++)
    rc = encoder_layer(st, s, &d, P + P_LAYER0 + L_N * l, eps);
  // x[:, 0]
  const int64_t sh3[2] = {B, E}, xs3[2] = {Nt * E, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 2, sh3, s->x, xs3, s->c, NULL);
  const float *const *H = P + P_LAYER0 + L_N * d.depth;
  if (!rc) rc = cl1_op_linear(st, s->c, 0, H[H_FC1_W], H[H_FC1_B], s->h, B, d.mlp, E);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_GELU, s->h, s->h, B * d.mlp, 0, 0);
  if (!rc) rc = cl1_op_linear(st, s->h, 0, H[H_FC2_W], H[H_FC2_B], call->outputs[0].data, B,
                              d.ncls, d.mlp);
  return rc;
}
