/* reference.c — level3/30_SwinTransformerV2, PyTorch eager order, driven by the stage table
 * below: patch embedding (conv, flatten/transpose copy, LayerNorm); per block [roll], window
 * partition, qkv bias as torch.cat(q_bias, zeros, v_bias), qkv Linear, F.normalize of q and k,
 * q @ k^T, clamp + exp of logit_scale and the scaling, the continuous position bias (cpb MLP
 * over the coordinates table, index gather, permute, 16 * sigmoid) added, [shift mask added],
 * softmax, attn @ v, transpose, proj, window reverse, [roll back], post-norm residual; MLP with
 * post-norm residual; PatchMerging (4 strided copies = torch.cat, bias-free Linear, LayerNorm);
 * final LayerNorm, mean over tokens, head. The module's constant buffers (coordinates table,
 * relative position index, shift mask) are computed on the host in cl1_setup and uploaded. */
#include <math.h>
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

enum { NSTAGE = 4, CPB_HID = 512 };
static const int64_t k_depths[NSTAGE] = {2, 2, 6, 2};
static const char *const k_heads_attr[NSTAGE] = {"heads0", "heads1", "heads2", "heads3"};

/* per-block params, in state_dict order */
enum { B_N1_W = 0, B_N1_B, B_LS, B_QB, B_VB, B_C0_W, B_C0_B, B_C2_W, B_QKV_W, B_PROJ_W, B_PROJ_B,
       B_N2_W, B_N2_B, B_FC1_W, B_FC1_B, B_FC2_W, B_FC2_B, B_N };
enum { M_RED_W = 0, M_N_W, M_N_B, M_N };          /* PatchMerging */
enum { E_PROJ_W = 0, E_PROJ_B, E_N_W, E_N_B, E_N }; /* patch embedding */
enum { F_N_W = 0, F_N_B, F_HEAD_W, F_HEAD_B, F_N }; /* final norm + head */

typedef struct {
  int64_t dim, res, heads, ws, shift;  // ws: the stage's effective window; shift of odd blocks
} stage30;

typedef struct {
  cl1_convnd_desc conv;
  int64_t B, E, r, window, ncls;
  stage30 st[NSTAGE];
  int64_t n_params;
} dims30;

typedef struct {
  float *x, *a, *b;          // (B, L, C) token buffers: residual stream and two scratch
  float *qkv, *qkvp;         // (B, L, 3C) and its (3, Bw, nh, N, hd) permutation
  float *qn, *kn;            // normalised q, k (Bw, nh, N, hd); qn later holds attn @ v
  float *att, *att2;         // (Bw, nh, N, N)
  float *hid;                // (B, L, 4C); also the cpb MLP's hidden (R, 512)
  float *merge;              // (B, L/4, 4C)
  float *qkvb, *zeros;       // (3C), (C)
  float *scale;              // (nh)
  float *table, *rpbg, *rpb; // (R, nh), (N*N, nh), (nh, N*N)
  float *coords[NSTAGE];     // (2ws-1, 2ws-1, 2)
  int64_t *index[NSTAGE];    // (N*N)
  float *mask[NSTAGE];       // (nW, N, N), shifted stages only
} state30;

static int is_shape(const cl1_tensor *t, int nd, int64_t a, int64_t b, int64_t c, int64_t d) {
  const int64_t w[4] = {a, b, c, d};
  if (t->ndim != nd || t->dtype != CL1_F32) return 0;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != w[i]) return 0;
  return 1;
}
static int is_vec(const cl1_tensor *t, int64_t n) { return is_shape(t, 1, n, 0, 0, 0); }

/* Index of stage s's block j's first param (j == depth: the stage's PatchMerging). */
static int64_t block_base(int s, int64_t j) {
  int64_t i = E_N;
  for (int k = 0; k < s; k++) i += k_depths[k] * B_N + M_N;
  return i + j * B_N;
}

/* Reads and checks every shape; 0 when they are consistent. */
static int describe(const cl1_call *call, dims30 *d) {
  double ps, win, tf32 = 1;
  if (cl1_op_attr(call, "patch_size", &ps) || cl1_op_attr(call, "window_size", &win)) return 1;
  (void)cl1_op_attr(call, "conv_tf32", &tf32);  // absent: TF32 allowed, as PyTorch
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
  d->conv = (cl1_convnd_desc){.nd = 2, .n = d->B, .c = x->shape[1], .k = d->E, .groups = 1,
                              .no_tf32 = tf32 == 0};
  for (int i = 0; i < 2; i++)
    d->conv.in[i] = x->shape[2 + i], d->conv.ker[i] = p, d->conv.stride[i] = p,
    d->conv.pad[i] = 0, d->conv.dil[i] = 1;
  if (!is_shape(&P[E_PROJ_W], 4, d->E, d->conv.c, p, p) || !is_vec(&P[E_PROJ_B], d->E) ||
      !is_vec(&P[E_N_W], d->E) || !is_vec(&P[E_N_B], d->E))
    return 1;
  for (int s = 0; s < NSTAGE; s++) {
    stage30 *g = &d->st[s];
    double nh;
    if (cl1_op_attr(call, k_heads_attr[s], &nh)) return 1;
    g->dim = d->E << s, g->res = d->r >> s, g->heads = (int64_t)nh;
    if (g->res < 1 || (g->res << s) != d->r || g->heads < 1 || g->dim % g->heads) return 1;
    // KernelBench's rule: a window covering the whole map is the map, never shifted
    g->ws = g->res <= d->window ? g->res : d->window;
    g->shift = g->res <= d->window ? 0 : d->window / 2;
    if (g->res % g->ws) return 1;
    const int64_t C = g->dim, nH = g->heads;
    for (int64_t j = 0; j < k_depths[s]; j++) {
      const cl1_tensor *L = P + block_base(s, j);
      if (!is_vec(&L[B_N1_W], C) || !is_vec(&L[B_N1_B], C) || !is_vec(&L[B_N2_W], C) ||
          !is_vec(&L[B_N2_B], C) || !is_shape(&L[B_LS], 3, nH, 1, 1, 0) ||
          !is_vec(&L[B_QB], C) || !is_vec(&L[B_VB], C) ||
          !is_shape(&L[B_C0_W], 2, CPB_HID, 2, 0, 0) || !is_vec(&L[B_C0_B], CPB_HID) ||
          !is_shape(&L[B_C2_W], 2, nH, CPB_HID, 0, 0) ||
          !is_shape(&L[B_QKV_W], 2, 3 * C, C, 0, 0) || !is_shape(&L[B_PROJ_W], 2, C, C, 0, 0) ||
          !is_vec(&L[B_PROJ_B], C) || !is_shape(&L[B_FC1_W], 2, 4 * C, C, 0, 0) ||
          !is_vec(&L[B_FC1_B], 4 * C) || !is_shape(&L[B_FC2_W], 2, C, 4 * C, 0, 0) ||
          !is_vec(&L[B_FC2_B], C))
        return 1;
    }
    if (s < NSTAGE - 1) {
      const cl1_tensor *M = P + block_base(s, k_depths[s]);
      if (g->res % 2 || !is_shape(&M[M_RED_W], 2, 2 * C, 4 * C, 0, 0) ||
          !is_vec(&M[M_N_W], 2 * C) || !is_vec(&M[M_N_B], 2 * C))
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
  state30 *s = state;
  if (!s) return;
  void *bufs[] = {s->x, s->a, s->b, s->qkv, s->qkvp, s->qn, s->kn, s->att, s->att2,
                  s->hid, s->merge, s->qkvb, s->zeros, s->scale, s->table, s->rpbg, s->rpb};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) cl1_op_free(bufs[i]);
  for (int g = 0; g < NSTAGE; g++) {
    cl1_op_free(s->coords[g]);
    cl1_op_free(s->index[g]);
    cl1_op_free(s->mask[g]);
  }
  free(s);
}

/* The three constant buffers of a stage, as WindowAttention / SwinTransformerBlock build them
 * (float32 arithmetic like PyTorch's), uploaded to s->coords/index/mask[k]. */
static int make_tables(void *st, state30 *s, int k, const stage30 *g) {
  const int64_t ws = g->ws, n = ws * ws, w2 = 2 * ws - 1, H = g->res, nw = H / ws;
  float *co = malloc(sizeof(float) * (size_t)(w2 * w2 * 2));
  int64_t *ix = malloc(sizeof(int64_t) * (size_t)(n * n));
  float *mk = g->shift ? malloc(sizeof(float) * (size_t)(nw * nw * n * n)) : NULL;
  int rc = !co || !ix || (g->shift && !mk);
  s->coords[k] = cl1_op_alloc(sizeof(float) * (size_t)(w2 * w2 * 2));
  s->index[k] = cl1_op_alloc(sizeof(int64_t) * (size_t)(n * n));
  if (g->shift) s->mask[k] = cl1_op_alloc(sizeof(float) * (size_t)(nw * nw * n * n));
  rc = rc || !s->coords[k] || !s->index[k] || (g->shift && !s->mask[k]);
  if (!rc) {
    // relative_coords_table: /(ws-1), *8, sign * log2(|t| + 1) / log2(8)
    for (int64_t i = 0; i < w2; i++)
      for (int64_t j = 0; j < w2; j++)
        for (int c = 0; c < 2; c++) {
          float t = (float)((c ? j : i) - (ws - 1)) / (float)(ws - 1);
          t *= 8.f;
          const float sg = t > 0.f ? 1.f : (t < 0.f ? -1.f : t);
          co[(i * w2 + j) * 2 + c] = sg * log2f(fabsf(t) + 1.f) / 3.f;
        }
    // relative_position_index[p, q] = (yp - yq + ws - 1) * (2ws - 1) + xp - xq + ws - 1
    for (int64_t p = 0; p < n; p++)
      for (int64_t q = 0; q < n; q++)
        ix[p * n + q] = (p / ws - q / ws + ws - 1) * w2 + (p % ws - q % ws + ws - 1);
    if (g->shift) {  // regions of the rolled map; -100 between tokens of different regions
      const int64_t sh = g->shift;
      for (int64_t wy = 0; wy < nw; wy++)
        for (int64_t wx = 0; wx < nw; wx++)
          for (int64_t p = 0; p < n; p++)
            for (int64_t q = 0; q < n; q++) {
              int64_t id[2];
              for (int t = 0; t < 2; t++) {
                const int64_t tok = t ? q : p, y = wy * ws + tok / ws, x = wx * ws + tok % ws;
                const int64_t ry = y < H - ws ? 0 : (y < H - sh ? 1 : 2);
                const int64_t rx = x < H - ws ? 0 : (x < H - sh ? 1 : 2);
                id[t] = ry * 3 + rx;
              }
              mk[((wy * nw + wx) * n + p) * n + q] = id[0] != id[1] ? -100.f : 0.f;
            }
    }
    rc = cl1_op_upload(st, s->coords[k], co, sizeof(float) * (size_t)(w2 * w2 * 2));
    if (!rc) rc = cl1_op_upload(st, s->index[k], ix, sizeof(int64_t) * (size_t)(n * n));
    if (!rc && g->shift)
      rc = cl1_op_upload(st, s->mask[k], mk, sizeof(float) * (size_t)(nw * nw * n * n));
  }
  free(co);
  free(ix);
  free(mk);
  return rc;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  dims30 d;
  if (describe(call, &d)) return 1;
  state30 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  // every stage holds B*r*r*E/2^s token values, so stage 0 bounds the token buffers
  const size_t f = sizeof(float), tok = (size_t)(d.B * d.r * d.r * d.E);
  size_t att = 1, cpb = 1, tab = 1, rp = 1, cmax = 1, hmax = 1;
  for (int g = 0; g < NSTAGE; g++) {
    const stage30 *sg = &d.st[g];
    const size_t n = (size_t)(sg->ws * sg->ws), nh = (size_t)sg->heads;
    const size_t R = (size_t)((2 * sg->ws - 1) * (2 * sg->ws - 1));
    const size_t a = (size_t)(d.B * sg->res * sg->res) * nh * n;  // Bw * nh * N * N
    att = a > att ? a : att;
    cpb = R * CPB_HID > cpb ? R * CPB_HID : cpb;
    tab = R * nh > tab ? R * nh : tab;
    rp = n * n * nh > rp ? n * n * nh : rp;
    cmax = (size_t)sg->dim > cmax ? (size_t)sg->dim : cmax;
    hmax = nh > hmax ? nh : hmax;
  }
  const size_t hid = 4 * tok > cpb ? 4 * tok : cpb;
  s->x = cl1_op_alloc(tok * f), s->a = cl1_op_alloc(tok * f), s->b = cl1_op_alloc(tok * f);
  s->qkv = cl1_op_alloc(3 * tok * f), s->qkvp = cl1_op_alloc(3 * tok * f);
  s->qn = cl1_op_alloc(tok * f), s->kn = cl1_op_alloc(tok * f);
  s->att = cl1_op_alloc(att * f), s->att2 = cl1_op_alloc(att * f);
  s->hid = cl1_op_alloc(hid * f), s->merge = cl1_op_alloc(tok * f);
  s->qkvb = cl1_op_alloc(3 * cmax * f), s->zeros = cl1_op_alloc(cmax * f);
  s->scale = cl1_op_alloc(hmax * f);
  s->table = cl1_op_alloc(tab * f), s->rpbg = cl1_op_alloc(rp * f), s->rpb = cl1_op_alloc(rp * f);
  int rc = !s->x || !s->a || !s->b || !s->qkv || !s->qkvp || !s->qn || !s->kn || !s->att ||
           !s->att2 || !s->hid || !s->merge || !s->qkvb || !s->zeros || !s->scale ||
           !s->table || !s->rpbg || !s->rpb;
  for (int g = 0; g < NSTAGE && !rc; g++) rc = make_tables(call->stream, s, g, &d.st[g]);
  if (rc) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

/* WindowAttention on s->b (Bw, N, C) -> s->b; `mask` NULL for unshifted blocks. */
static int attention(void *st, const state30 *s, int64_t B, const stage30 *g, int k,
                     const float *mask, const float *const *L) {
  const int64_t C = g->dim, nh = g->heads, hd = C / nh, ws = g->ws, N = ws * ws, NN = N * N;
  const int64_t nW = (g->res / ws) * (g->res / ws), Bw = B * nW, M = Bw * N;
  const int64_t R = (2 * ws - 1) * (2 * ws - 1), BH = Bw * nh;
  // qkv_bias = torch.cat((q_bias, zeros_like(v_bias), v_bias))
  int rc = cl1_op_fill(st, s->zeros, C, 0.f);
  if (!rc) rc = cl1_cat_part(st, L[B_QB], s->qkvb, 1, C, 3 * C, 0);
  if (!rc) rc = cl1_cat_part(st, s->zeros, s->qkvb, 1, C, 3 * C, C);
  if (!rc) rc = cl1_cat_part(st, L[B_VB], s->qkvb, 1, C, 3 * C, 2 * C);
  if (!rc) rc = cl1_op_linear(st, s->b, 0, L[B_QKV_W], s->qkvb, s->qkv, M, 3 * C, C);
  // reshape(Bw, N, 3, nh, hd).permute(2, 0, 3, 1, 4), made contiguous for the normalize
  const int64_t sh1[5] = {3, Bw, nh, N, hd}, xs1[5] = {C, N * 3 * C, hd, 3 * C, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 5, sh1, s->qkv, xs1, s->qkvp, NULL);
  const float *q = s->qkvp, *kk = s->qkvp + M * C, *v = s->qkvp + 2 * M * C;
  // F.normalize(dim=-1): x / max(||x||, 1e-12); eps 0 here differs only below norm 1e-12
  if (!rc) rc = cl1_op_normalize(st, CL1_NORM_L2, q, s->qn, BH * N, hd, 1, 0.0);
  if (!rc) rc = cl1_op_normalize(st, CL1_NORM_L2, kk, s->kn, BH * N, hd, 1, 0.0);
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 1, s->qn, s->kn, s->att, N, N, hd, BH, N * hd, N * hd, NN);
  // torch.clamp(logit_scale, max=log(1 / 0.01)).exp(), then attn * logit_scale (nh, 1, 1)
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_MIN_SCALAR, L[B_LS], s->scale, nh, log(100.0), 0);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_EXP, s->scale, s->scale, nh, 0, 0);
  const int64_t dm[3] = {Bw, nh, NN}, xm[3] = {nh * NN, NN, 1}, zm[3] = {0, 1, 0};
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_MUL, s->att, xm, s->scale, zm, s->att, 3, dm);
  // cpb_mlp(relative_coords_table).view(-1, nh): (R, 2) -> (R, 512) -> (R, nh)
  if (!rc) rc = cl1_op_linear(st, s->coords[k], 0, L[B_C0_W], L[B_C0_B], s->hid, R, CPB_HID, 2);
  if (!rc) rc = cl1_op_relu(st, s->hid, s->hid, R * CPB_HID);
  if (!rc) rc = cl1_op_linear(st, s->hid, 0, L[B_C2_W], NULL, s->table, R, nh, CPB_HID);
  // table[index.view(-1)] (N*N, nh) -> permute(2, 0, 1).contiguous() (nh, N*N)
  if (!rc) rc = cl1_op_gather_rows(st, s->table, s->index[k], s->rpbg, NN, R, nh);
  const int64_t sh2[2] = {nh, NN}, xs2[2] = {1, nh};
  if (!rc) rc = cl1_op_strided_copy(st, 2, sh2, s->rpbg, xs2, s->rpb, NULL);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_SIGMOID, s->rpb, s->rpb, nh * NN, 0, 0);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_MUL_SCALAR, s->rpb, s->rpb, nh * NN, 16.0, 0);
  // attn + relative_position_bias.unsqueeze(0)
  const int64_t db[3] = {Bw, nh * NN, 1}, xb[3] = {nh * NN, 1, 0}, zb[3] = {0, 1, 0};
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_ADD, s->att, xb, s->rpb, zb, s->att, 3, db);
  if (mask && !rc) {  // view(B, nW, nh, N, N) + mask.unsqueeze(1).unsqueeze(0)
    const int64_t shm[4] = {B, nW, nh, NN}, xsm[4] = {nW * nh * NN, nh * NN, NN, 1};
    const int64_t zsm[4] = {0, NN, 0, 1};
    rc = cl1_op_binary_bcast(st, CL1_BINARY_ADD, s->att, xsm, mask, zsm, s->att, 4, shm);
  }
  if (!rc) rc = cl1_op_softmax(st, s->att, s->att2, BH * N, N);
  // attn @ v (Bw, nh, N, hd) into qn, then transpose(1, 2).reshape(Bw, N, C)
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 0, s->att2, v, s->qn, N, hd, N, BH, NN, N * hd, N * hd);
  const int64_t sh3[4] = {Bw, N, nh, hd}, xs3[4] = {nh * N * hd, hd, N * hd, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, sh3, s->qn, xs3, s->a, NULL);
  if (!rc) rc = cl1_op_linear(st, s->a, 0, L[B_PROJ_W], L[B_PROJ_B], s->b, M, C, C);
  return rc;
}

/* One SwinTransformerBlock (V2, post-norm) on s->x (B, res*res, C), in place. */
static int block(void *st, const state30 *s, int64_t B, const stage30 *g, int k, int shifted,
                 const float *const *L, double eps) {
  const int64_t H = g->res, C = g->dim, ws = g->ws, nw = H / ws, N = ws * ws, M = B * H * H;
  const int64_t sh = shifted ? g->shift : 0;
  int rc = 0;
  const float *src = s->x;
  if (sh) {  // torch.roll(x, (-shift, -shift), dims=(1, 2))
    rc = cl1_op_roll2(st, s->x, s->a, B, H, H, C, -sh, -sh);
    src = s->a;
  }
  // window_partition: (B, nw, ws, nw, ws, C) -> (B, nw, nw, ws, ws, C)
  const int64_t sh1[6] = {B, nw, nw, ws, ws, C};
  const int64_t xs1[6] = {H * H * C, ws * H * C, ws * C, H * C, C, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 6, sh1, src, xs1, s->b, NULL);
  if (!rc) rc = attention(st, s, B, g, k, sh ? s->mask[k] : NULL, L);
  // window_reverse: (B, nw, nw, ws, ws, C) -> (B, nw, ws, nw, ws, C) = (B, H, H, C)
  const int64_t sh4[6] = {B, nw, ws, nw, ws, C};
  const int64_t xs4[6] = {nw * nw * N * C, nw * N * C, ws * C, N * C, C, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 6, sh4, s->b, xs4, s->a, NULL);
  float *y = s->a, *t = s->b;
  if (sh && !rc) {  // torch.roll(x, (shift, shift), dims=(1, 2))
    rc = cl1_op_roll2(st, s->a, s->b, B, H, H, C, sh, sh);
    y = s->b, t = s->a;
  }
  // x = shortcut + norm1(x); x = x + norm2(mlp(x))
  if (!rc) rc = cl1_op_layernorm(st, y, L[B_N1_W], L[B_N1_B], t, M, C, eps);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->x, t, s->x, M * C);
  if (!rc) rc = cl1_op_linear(st, s->x, 0, L[B_FC1_W], L[B_FC1_B], s->hid, M, 4 * C, C);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_GELU, s->hid, s->hid, M * 4 * C, 0, 0);
  if (!rc) rc = cl1_op_linear(st, s->hid, 0, L[B_FC2_W], L[B_FC2_B], s->a, M, C, 4 * C);
  if (!rc) rc = cl1_op_layernorm(st, s->a, L[B_N2_W], L[B_N2_B], s->b, M, C, eps);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->x, s->b, s->x, M * C);
  return rc;
}

/* PatchMerging (V2): s->x (B, H, H, C) -> cat of the 2x2 sub-grids -> reduction -> norm. */
static int merge(void *st, const state30 *s, int64_t B, const stage30 *g, const float *const *Mp,
                 double eps) {
  const int64_t H = g->res, C = g->dim, h2 = H / 2, M = B * h2 * h2;
  const int64_t sh[4] = {B, h2, h2, C}, xs[4] = {H * H * C, 2 * H * C, 2 * C, 1};
  const int64_t ys[4] = {h2 * h2 * 4 * C, h2 * 4 * C, 4 * C, 1};
  const int64_t dr[4] = {0, 1, 0, 1}, dc[4] = {0, 0, 1, 1};  // x0, x1, x2, x3
  int rc = 0;
  for (int k = 0; k < 4 && !rc; k++)
    rc = cl1_op_strided_copy(st, 4, sh, s->x + (dr[k] * H + dc[k]) * C, xs, s->merge + k * C, ys);
  if (!rc) rc = cl1_op_linear(st, s->merge, 0, Mp[M_RED_W], NULL, s->a, M, 2 * C, 4 * C);
  if (!rc) rc = cl1_op_layernorm(st, s->a, Mp[M_N_W], Mp[M_N_B], s->x, M, 2 * C, eps);
  return rc;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  dims30 d;
  if (!call->state || describe(call, &d)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  const state30 *s = call->state;
  void *st = call->stream;
  const float *P[256];
  if (call->n_params > 256) return 1;
  for (int32_t i = 0; i < call->n_params; i++) P[i] = call->params[i].data;
  const int64_t B = d.B, E = d.E, rr = d.r * d.r;
  int rc = cl1_op_convnd(st, call->inputs[0].data, P[E_PROJ_W], P[E_PROJ_B], s->a, &d.conv);
  // flatten(2).transpose(1, 2): (B, E, r*r) -> (B, r*r, E)
  const int64_t sh0[3] = {B, rr, E}, xs0[3] = {E * rr, 1, rr};
  if (!rc) rc = cl1_op_strided_copy(st, 3, sh0, s->a, xs0, s->b, NULL);
  if (!rc) rc = cl1_op_layernorm(st, s->b, P[E_N_W], P[E_N_B], s->x, B * rr, E, eps);
  for (int g = 0; g < NSTAGE && !rc; g++) {
    const stage30 *sg = &d.st[g];
    for (int64_t j = 0; j < k_depths[g] && !rc; j++)
      rc = block(st, s, B, sg, g, j % 2 == 1 && sg->shift > 0, P + block_base(g, j), eps);
    if (g < NSTAGE - 1 && !rc) rc = merge(st, s, B, sg, P + block_base(g, k_depths[g]), eps);
  }
  const stage30 *last = &d.st[NSTAGE - 1];
  const int64_t Lf = last->res * last->res, Cf = last->dim;
  const float *const *F = P + block_base(NSTAGE - 1, k_depths[NSTAGE - 1]);
  if (!rc) rc = cl1_op_layernorm(st, s->x, F[F_N_W], F[F_N_B], s->a, B * Lf, Cf, eps);
  if (!rc) rc = cl1_op_reduce(st, CL1_REDUCE_MEAN, s->a, s->b, B, Lf, Cf);
  if (!rc) rc = cl1_op_linear(st, s->b, 0, F[F_HEAD_W], F[F_HEAD_B], call->outputs[0].data, B,
                              d.ncls, Cf);
  return rc;
}
