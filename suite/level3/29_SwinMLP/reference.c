/* reference.c — level3/29_SwinMLP, PyTorch eager order, driven by the stage table below:
 * patch embedding (conv2d, flatten/transpose copy, LayerNorm); per block norm1, [zero pad for
 * shifted windows], window partition, heads transpose, grouped 1x1 conv1d (the spatial MLP),
 * transpose back, window reverse, [crop], + shortcut, norm2, fc1, GELU, fc2, + x; PatchMerging
 * (four strided copies = torch.cat of the 2x2 sub-grids, LayerNorm, Linear) between stages;
 * final LayerNorm, mean over tokens, head. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

enum { NSTAGE = 4 };
static const int64_t k_depths[NSTAGE] = {2, 2, 6, 2};
static const char *const k_heads_attr[NSTAGE] = {"heads0", "heads1", "heads2", "heads3"};

/* per-block params, in state_dict order */
enum { B_N1_W = 0, B_N1_B, B_SP_W, B_SP_B, B_N2_W, B_N2_B, B_FC1_W, B_FC1_B, B_FC2_W, B_FC2_B,
       B_N };
enum { M_RED_W = 0, M_N_W, M_N_B, M_N };          /* PatchMerging */
enum { E_PROJ_W = 0, E_PROJ_B, E_N_W, E_N_B, E_N }; /* patch embedding */
enum { F_N_W = 0, F_N_B, F_HEAD_W, F_HEAD_B, F_N }; /* final norm + head */

typedef struct {
  int64_t dim, res, heads, ws, hidden;  // ws: the stage's effective window
} stage29;

typedef struct {
  cl1_conv2d_desc conv;
  int64_t B, E, r, window, ncls;
  stage29 st[NSTAGE];
  int64_t n_params;
} dims29;

typedef struct {
  float *x, *h;     // (B, L, C) at most B*r*r*E: residual stream, scratch
  float *pad, *w1, *w2;  // padded map and two window buffers: B*(r+window)^2*E
  float *hid;       // (B, L, 4C)
  float *merge;     // (B, L/4, 4C)
} state29;

static int is_shape(const cl1_tensor *t, int nd, int64_t a, int64_t b, int64_t c, int64_t d) {
  const int64_t w[4] = {a, b, c, d};
  if (t->ndim != nd || t->dtype != CL1_F32) return 0;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != w[i]) return 0;
  return 1;
}
static int is_vec(const cl1_tensor *t, int64_t n) { return is_shape(t, 1, n, 0, 0, 0); }

/* Index of stage s's first block param, of its merge params, and of the final params. */
static int64_t block_base(int s, int64_t j) {
  int64_t i = E_N;
  for (int k = 0; k < s; k++) i += k_depths[k] * B_N + M_N;
  return i + j * B_N;
}

/* Reads and checks every shape; 0 when they are consistent. */
static int describe(const cl1_call *call, dims29 *d) {
  double ps, win;
  if (cl1_op_attr(call, "patch_size", &ps) || cl1_op_attr(call, "window_size", &win)) return 1;
  const int64_t p = (int64_t)ps;
  d->window = (int64_t)win;
  d->n_params = block_base(NSTAGE - 1, k_depths[NSTAGE - 1]) + F_N;
  if (p < 1 || d->window < 1 || call->n_inputs != 1 || call->n_outputs != 1 ||
      call->n_params != d->n_params)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *P = call->params;
  if (x->ndim != 4 || x->dtype != CL1_F32 || x->shape[2] != x->shape[3] || x->shape[2] % p)
    return 1;
  d->B = x->shape[0], d->E = P[E_PROJ_W].shape[0], d->r = x->shape[2] / p;
  d->conv = (cl1_conv2d_desc){.n = d->B, .c = x->shape[1], .h = x->shape[2], .w = x->shape[3],
                              .k = d->E, .r = p, .s = p, .stride_h = p, .stride_w = p,
                              .dil_h = 1, .dil_w = 1, .groups = 1};
  if (!is_shape(&P[E_PROJ_W], 4, d->E, d->conv.c, p, p) || !is_vec(&P[E_PROJ_B], d->E) ||
      !is_vec(&P[E_N_W], d->E) || !is_vec(&P[E_N_B], d->E))
    return 1;
  for (int s = 0; s < NSTAGE; s++) {
    stage29 *g = &d->st[s];
    double nh;
    if (cl1_op_attr(call, k_heads_attr[s], &nh)) return 1;
    g->dim = d->E << s, g->res = d->r >> s, g->heads = (int64_t)nh, g->hidden = 4 * g->dim;
    if (g->res < 1 || (g->res << s) != d->r || g->heads < 1 || g->dim % g->heads) return 1;
    g->ws = g->res <= d->window ? g->res : d->window;
    if (g->res % g->ws) return 1;
    const int64_t C = g->dim, n = g->heads * g->ws * g->ws;
    for (int64_t j = 0; j < k_depths[s]; j++) {
      const cl1_tensor *L = P + block_base(s, j);
      if (!is_vec(&L[B_N1_W], C) || !is_vec(&L[B_N1_B], C) || !is_vec(&L[B_N2_W], C) ||
          !is_vec(&L[B_N2_B], C) || !is_shape(&L[B_SP_W], 3, n, g->ws * g->ws, 1, 0) ||
          !is_vec(&L[B_SP_B], n) || !is_shape(&L[B_FC1_W], 2, g->hidden, C, 0, 0) ||
          !is_vec(&L[B_FC1_B], g->hidden) || !is_shape(&L[B_FC2_W], 2, C, g->hidden, 0, 0) ||
          !is_vec(&L[B_FC2_B], C))
        return 1;
    }
    if (s < NSTAGE - 1) {
      const cl1_tensor *M = P + block_base(s, k_depths[s]);
      if (g->res % 2 || !is_shape(&M[M_RED_W], 2, 2 * C, 4 * C, 0, 0) ||
          !is_vec(&M[M_N_W], 4 * C) || !is_vec(&M[M_N_B], 4 * C))
        return 1;
    }
  }
  const cl1_tensor *F = P + block_base(NSTAGE - 1, k_depths[NSTAGE - 1]);
  const int64_t Cf = d->st[NSTAGE - 1].dim;
  d->ncls = F[F_HEAD_W].shape[0];
  if (!is_vec(&F[F_N_W], Cf) || !is_vec(&F[F_N_B], Cf) ||
      !is_shape(&F[F_HEAD_W], 2, d->ncls, Cf, 0, 0) || !is_vec(&F[F_HEAD_B], d->ncls))
    return 1;
  return is_shape(&call->outputs[0], 2, d->B, d->ncls, 0, 0) ? 0 : 1;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state29 *s = state;
  if (!s) return;
  float *bufs[] = {s->x, s->h, s->pad, s->w1, s->w2, s->hid, s->merge};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) cl1_op_free(bufs[i]);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  dims29 d;
  if (describe(call, &d)) return 1;
  state29 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  // every stage holds B*r*r*E/2^s token values, so stage 0 bounds all buffers
  const size_t f = sizeof(float), tok = (size_t)(d.B * d.r * d.r * d.E);
  const size_t padded = (size_t)(d.B * (d.r + d.window) * (d.r + d.window) * d.E);
  s->x = cl1_op_alloc(tok * f);
  s->h = cl1_op_alloc(tok * f);
  s->pad = cl1_op_alloc(padded * f);
  s->w1 = cl1_op_alloc(padded * f);
  s->w2 = cl1_op_alloc(padded * f);
  s->hid = cl1_op_alloc(4 * tok * f);
  s->merge = cl1_op_alloc(tok * f);
  if (!s->x || !s->h || !s->pad || !s->w1 || !s->w2 || !s->hid || !s->merge) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

/* One SwinMLPBlock on s->x (B, res*res, C), in place; `shift` as KernelBench (0 or ws/2). */
static int block(void *st, const state29 *s, int64_t B, const stage29 *g, int64_t shift,
                 const float *const *L, double eps) {
  const int64_t H = g->res, C = g->dim, ws = g->ws, nh = g->heads, cd = C / nh;
  const int64_t M = B * H * H, lo = ws - shift;  // lo: left/top padding
  const int64_t Hp = shift ? H + ws : H, nw = Hp / ws, NB = B * nw * nw, ww = ws * ws;
  int rc = cl1_op_layernorm(st, s->x, L[B_N1_W], L[B_N1_B], s->h, M, C, eps);
  const float *src = s->h;
  const int64_t map[4] = {B, H, H, C}, pst[4] = {Hp * Hp * C, Hp * C, C, 1};
  if (shift) {  // F.pad(x, [0, 0, lo, shift, lo, shift])
    if (!rc) rc = cl1_op_fill(st, s->pad, B * Hp * Hp * C, 0.f);
    if (!rc) rc = cl1_op_strided_copy(st, 4, map, s->h, NULL, s->pad + (lo * Hp + lo) * C, pst);
    src = s->pad;
  }
  // window_partition: (B, nw, ws, nw, ws, C) -> (B, nw, nw, ws, ws, C)
  const int64_t sh1[6] = {B, nw, nw, ws, ws, C};
  const int64_t xs1[6] = {Hp * Hp * C, ws * Hp * C, ws * C, Hp * C, C, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 6, sh1, src, xs1, s->w1, NULL);
  // (NB, ww, nh, cd) -> (NB, nh, ww, cd)
  const int64_t sh2[4] = {NB, nh, ww, cd}, xs2[4] = {ww * C, cd, C, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, sh2, s->w1, xs2, s->w2, NULL);
  cl1_convnd_desc cv = {.nd = 1, .n = NB, .c = nh * ww, .k = nh * ww, .groups = nh};
  cv.in[0] = cd, cv.ker[0] = 1, cv.stride[0] = 1, cv.pad[0] = 0, cv.dil[0] = 1;
  if (!rc) rc = cl1_op_convnd(st, s->w2, L[B_SP_W], L[B_SP_B], s->w1, &cv);
  // (NB, nh, ww, cd) -> (NB, ww, nh, cd)
  const int64_t sh3[4] = {NB, ww, nh, cd}, xs3[4] = {nh * ww * cd, cd, ww * cd, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, sh3, s->w1, xs3, s->w2, NULL);
  // window_reverse: (B, nw, nw, ws, ws, C) -> (B, nw, ws, nw, ws, C) = (B, Hp, Hp, C)
  const int64_t sh4[6] = {B, nw, ws, nw, ws, C};
  const int64_t xs4[6] = {nw * nw * ww * C, nw * ww * C, ws * C, ww * C, C, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 6, sh4, s->w2, xs4, shift ? s->pad : s->h, NULL);
  if (shift && !rc)  // [:, lo:-shift, lo:-shift, :].contiguous()
    rc = cl1_op_strided_copy(st, 4, map, s->pad + (lo * Hp + lo) * C, pst, s->h, NULL);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->x, s->h, s->x, M * C);
  if (!rc) rc = cl1_op_layernorm(st, s->x, L[B_N2_W], L[B_N2_B], s->h, M, C, eps);
  if (!rc) rc = cl1_op_linear(st, s->h, 0, L[B_FC1_W], L[B_FC1_B], s->hid, M, g->hidden, C);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_GELU, s->hid, s->hid, M * g->hidden, 0, 0);
  if (!rc) rc = cl1_op_linear(st, s->hid, 0, L[B_FC2_W], L[B_FC2_B], s->h, M, C, g->hidden);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->x, s->h, s->x, M * C);
  return rc;
}

/* PatchMerging: s->x (B, H, H, C) -> s->x (B, H/2 * H/2, 2C). */
static int merge(void *st, const state29 *s, int64_t B, const stage29 *g, const float *const *Mp,
                 double eps) {
  const int64_t H = g->res, C = g->dim, h2 = H / 2, M = B * h2 * h2;
  const int64_t sh[4] = {B, h2, h2, C}, xs[4] = {H * H * C, 2 * H * C, 2 * C, 1};
  const int64_t ys[4] = {h2 * h2 * 4 * C, h2 * 4 * C, 4 * C, 1};
  const int64_t dr[4] = {0, 1, 0, 1}, dc[4] = {0, 0, 1, 1};  // x0, x1, x2, x3
  int rc = 0;
  for (int k = 0; k < 4 && !rc; k++)
    rc = cl1_op_strided_copy(st, 4, sh, s->x + (dr[k] * H + dc[k]) * C, xs, s->merge + k * C, ys);
  if (!rc) rc = cl1_op_layernorm(st, s->merge, Mp[M_N_W], Mp[M_N_B], s->h, M, 4 * C, eps);
  if (!rc) rc = cl1_op_linear(st, s->h, 0, Mp[M_RED_W], NULL, s->x, M, 2 * C, 4 * C);
  return rc;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  dims29 d;
  if (!call->state || describe(call, &d)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  const state29 *s = call->state;
  void *st = call->stream;
  const float *P[256];
  if (call->n_params > 256) return 1;
  for (int32_t i = 0; i < call->n_params; i++) P[i] = call->params[i].data;
  const int64_t B = d.B, E = d.E, rr = d.r * d.r;
  int rc = cl1_op_conv2d(st, call->inputs[0].data, P[E_PROJ_W], P[E_PROJ_B], s->w1, &d.conv);
  // flatten(2).transpose(1, 2): (B, E, r*r) -> (B, r*r, E)
  const int64_t sh0[3] = {B, rr, E}, xs0[3] = {E * rr, 1, rr};
  if (!rc) rc = cl1_op_strided_copy(st, 3, sh0, s->w1, xs0, s->w2, NULL);
  if (!rc) rc = cl1_op_layernorm(st, s->w2, P[E_N_W], P[E_N_B], s->x, B * rr, E, eps);
  for (int g = 0; g < NSTAGE && !rc; g++) {
    const stage29 *sg = &d.st[g];
    for (int64_t j = 0; j < k_depths[g] && !rc; j++) {
      const int64_t shift = (j % 2 == 0 || sg->res <= d.window) ? 0 : d.window / 2;
      rc = block(st, s, B, sg, shift, P + block_base(g, j), eps);
    }
    if (g < NSTAGE - 1 && !rc) rc = merge(st, s, B, sg, P + block_base(g, k_depths[g]), eps);
  }
  const stage29 *last = &d.st[NSTAGE - 1];
  const int64_t Lf = last->res * last->res, Cf = last->dim;
  const float *const *F = P + block_base(NSTAGE - 1, k_depths[NSTAGE - 1]);
  if (!rc) rc = cl1_op_layernorm(st, s->x, F[F_N_W], F[F_N_B], s->h, B * Lf, Cf, eps);
  if (!rc) rc = cl1_op_reduce(st, CL1_REDUCE_MEAN, s->h, s->hid, B, Lf, Cf);
  if (!rc) rc = cl1_op_linear(st, s->hid, 0, F[F_HEAD_W], F[F_HEAD_B], call->outputs[0].data, B,
                              d.ncls, Cf);
  return rc;
}
