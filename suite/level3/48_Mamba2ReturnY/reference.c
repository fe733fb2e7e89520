/* reference.c — level3/48_Mamba2ReturnY, PyTorch eager order: A_cumsum = cumsum over each chunk
 * of A; L = exp(segsum(A)); Y_diag = einsum(C, B, L, X) (C B^T per chunk and head, times L,
 * times X); decay_states = exp(A_cumsum[-1] - A_cumsum); states = einsum(B, decay_states, X);
 * cat(zeros, states); decay_chunk = exp(segsum(pad(A_cumsum[-1], (1, 0)))); new_states =
 * einsum(decay_chunk, states); states = new_states[:, :-1]; Y_off = einsum(C, states,
 * exp(A_cumsum)); Y = Y_diag + Y_off rearranged to (b, T, h, p). Everything per (batch, chunk,
 * head) is kept in (b, c, h, ...) order so that each einsum is batched GEMMs. */
#include <math.h>
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { int64_t b, T, h, p, n, l, c; } dims48;

typedef struct {
  float *acs;   // (b, c, h, l): A per chunk and head, then A_cumsum
  float *cs2;   // (b, c, h, l): segsum's own cumsum of A
  float *lm;    // (b, c, h, l, l): L = exp(segsum(A))
  float *g;     // (b, c, h, l, l): C B^T, then * L
  float *xp;    // (b, c, h, l, p): X per chunk and head
  float *cp;    // (b, c, h, l, n)
  float *bp;    // (b, c, h, l, n)
  float *yd;    // (b, c, h, l, p): Y_diag
  float *ds;    // (b, c, h, l): decay_states
  float *xd;    // (b, c, h, l, p): X * decay_states
  float *st;    // (b, c, h, p, n): states; later new_states[:, :-1]
  float *z0;    // (b, 1, h, p, n): zeros
  float *sall;  // (b, c+1, h, p, n): cat(zeros, states)
  float *sp;    // (b, h, c+1, p*n)
  float *pa;    // (b, h, c+1): padded chunk sums; then their cumsum
  float *dc;    // (b, h, c+1, c+1): decay_chunk
  float *ns;    // (b, h, c+1, p*n): new_states
  float *sdo;   // (b, c, h, l): state_decay_out
  float *yo;    // (b, c, h, l, p): Y_off
  float *ys;    // (b, c, h, l, p): Y_diag + Y_off
} state48;

static int is_shape(const cl1_tensor *t, int nd, const int64_t *w) {
  if (t->ndim != nd || t->dtype != CL1_F32) return 0;
  for (int i = 0; i < nd; i++)
    if (t->shape[i] != w[i]) return 0;
  return 1;
}

/* Reads and checks the shapes; 0 when they are consistent. */
static int describe(const cl1_call *call, dims48 *d) {
  double bl;
  if (cl1_op_attr(call, "block_len", &bl)) return 1;
  if (call->n_inputs != 1 || call->n_params != 3 || call->n_outputs != 1) return 1;
  const cl1_tensor *X = &call->inputs[0], *P = call->params;
  if (X->ndim != 4) return 1;
  d->b = X->shape[0], d->T = X->shape[1], d->h = X->shape[2], d->p = X->shape[3];
  d->n = P[1].ndim == 4 ? P[1].shape[3] : 0, d->l = (int64_t)bl;
  if (d->l < 1 || d->n < 1 || d->T % d->l) return 1;
  d->c = d->T / d->l;
  const int64_t sa[3] = {d->b, d->T, d->h}, sb[4] = {d->b, d->T, d->h, d->n};
  if (!is_shape(X, 4, X->shape) || !is_shape(&P[0], 3, sa) || !is_shape(&P[1], 4, sb) ||
      !is_shape(&P[2], 4, sb) || !is_shape(&call->outputs[0], 4, X->shape))
    return 1;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state48 *s = state;
  if (!s) return;
  float *bufs[] = {s->acs, s->cs2, s->lm, s->g,  s->xp, s->cp, s->bp, s->yd, s->ds, s->xd,
                   s->st,  s->z0,  s->sall, s->sp, s->pa, s->dc, s->ns, s->sdo, s->yo, s->ys};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) cl1_op_free(bufs[i]);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  dims48 d;
  if (describe(call, &d)) return 1;
  state48 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  const size_t f = sizeof(float), bh = (size_t)(d.b * d.h), c1 = (size_t)d.c + 1;
  const size_t pn = (size_t)(d.p * d.n), bth = (size_t)(d.b * d.T * d.h), l = (size_t)d.l;
  const size_t btp = bth * (size_t)d.p, btn = bth * (size_t)d.n;
  s->acs = cl1_op_alloc(bth * f), s->cs2 = cl1_op_alloc(bth * f);
  s->lm = cl1_op_alloc(bth * l * f), s->g = cl1_op_alloc(bth * l * f);
  s->xp = cl1_op_alloc(btp * f), s->cp = cl1_op_alloc(btn * f), s->bp = cl1_op_alloc(btn * f);
  s->yd = cl1_op_alloc(btp * f), s->ds = cl1_op_alloc(bth * f), s->xd = cl1_op_alloc(btp * f);
  s->st = cl1_op_alloc(bh * (size_t)d.c * pn * f);
  s->z0 = cl1_op_alloc(bh * pn * f);
  s->sall = cl1_op_alloc(bh * c1 * pn * f);
  s->sp = cl1_op_alloc(bh * c1 * pn * f);
  s->pa = cl1_op_alloc(2 * bh * c1 * f);
  s->dc = cl1_op_alloc(bh * c1 * c1 * f);
  s->ns = cl1_op_alloc(bh * c1 * pn * f);
  s->sdo = cl1_op_alloc(bth * f), s->yo = cl1_op_alloc(btp * f), s->ys = cl1_op_alloc(btp * f);
  if (!s->acs || !s->cs2 || !s->lm || !s->g || !s->xp || !s->cp || !s->bp || !s->yd || !s->ds ||
      !s->xd || !s->st || !s->z0 || !s->sall || !s->sp || !s->pa || !s->dc || !s->ns ||
      !s->sdo || !s->yo || !s->ys) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  dims48 d;
  if (!call->state || describe(call, &d)) return 1;
  const state48 *s = call->state;
  void *st = call->stream;
  const float *X = call->inputs[0].data, *A = call->params[0].data;
  const float *Bm = call->params[1].data, *Cm = call->params[2].data;
  const int64_t b = d.b, c = d.c, l = d.l, h = d.h, p = d.p, n = d.n, c1 = c + 1, pn = p * n;
  const int64_t bch = b * c * h;
  // A viewed (b, c, l, h) -> (b, c, h, l), then cumsum over l
  const int64_t sha[4] = {b, c, h, l}, xsa[4] = {c * l * h, l * h, 1, h};
  int rc = cl1_op_strided_copy(st, 4, sha, A, xsa, s->ds, NULL);
  if (!rc) rc = cl1_op_scan(st, CL1_SCAN_SUM, s->ds, NULL, s->acs, bch, l, 1, 0, 0);
  // L = exp(segsum(A_blocks)): cumsum, outer difference, causal -inf mask, exp
  if (!rc) rc = cl1_op_scan(st, CL1_SCAN_SUM, s->ds, NULL, s->cs2, bch, l, 1, 0, 0);
  const int64_t dl[3] = {bch, l, l}, xs_li[3] = {l, 1, 0}, xs_lj[3] = {l, 0, 1};
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_SUB, s->cs2, xs_li, s->cs2, xs_lj, s->lm, 3, dl);
  if (!rc) rc = cl1_op_tri_fill(st, s->lm, s->lm, bch, l, l, 0, 0, -INFINITY);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_EXP, s->lm, s->lm, bch * l * l, 0, 0);
  // Y_diag[b,c,h] = ((C[b,c,:,h,:] @ B[b,c,:,h,:]^T) * L[b,c,h]) @ X[b,c,:,h,:]
  const int64_t shn[5] = {b, c, h, l, n}, xsn[5] = {c * l * h * n, l * h * n, n, h * n, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 5, shn, Cm, xsn, s->cp, NULL);
  if (!rc) rc = cl1_op_strided_copy(st, 5, shn, Bm, xsn, s->bp, NULL);
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 1, s->cp, s->bp, s->g, l, l, n, bch, l * n, l * n, l * l);
  const int64_t xs_c[3] = {l * l, l, 1};
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_MUL, s->g, xs_c, s->lm, xs_c, s->g, 3, dl);
  const int64_t shx[5] = {b, c, h, l, p}, xsx[5] = {c * l * h * p, l * h * p, p, h * p, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 5, shx, X, xsx, s->xp, NULL);
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 0, s->g, s->xp, s->yd, l, p, l, bch, l * l, l * p, l * p);
  // decay_states = exp(A_cumsum[..., -1:] - A_cumsum)
  const int64_t dd[3] = {bch, l, 1}, xs_last[3] = {l, 0, 0}, xs_all[3] = {l, 1, 0};
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_SUB, s->acs + (l - 1), xs_last, s->acs, xs_all,
                                    s->ds, 3, dd);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_EXP, s->ds, s->ds, bch * l, 0, 0);
  // states[b,c,h] = (X[b,c,:,h,:] * decay[b,c,h,:])^T @ B[b,c,:,h,:]
  const int64_t dx[3] = {bch, l, p}, xs_x[3] = {l * p, p, 1}, xs_d[3] = {l, 1, 0};
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_MUL, s->xp, xs_x, s->ds, xs_d, s->xd, 3, dx);
  if (!rc) rc = cl1_op_gemm_ex(st, 1, 0, s->xd, s->bp, s->st, p, n, l, bch, l * p, l * n, pn);
  // torch.cat([zeros_like(states[:, :1]), states], dim=1)
  if (!rc) rc = cl1_op_fill(st, s->z0, b * h * pn, 0.f);
  if (!rc) rc = cl1_cat_part(st, s->z0, s->sall, b, h * pn, c1 * h * pn, 0);
  if (!rc) rc = cl1_cat_part(st, s->st, s->sall, b, c * h * pn, c1 * h * pn, h * pn);
  // F.pad(A_cumsum[:, :, :, -1], (1, 0)) as (b, h, c+1)
  float *pa = s->pa, *pcs = s->pa + b * h * c1;
  const int64_t shp[3] = {b, h, c}, xsp[3] = {c * h * l, l, h * l}, ysp[3] = {h * c1, c1, 1};
  if (!rc) rc = cl1_op_fill(st, pa, b * h * c1, 0.f);
  if (!rc) rc = cl1_op_strided_copy(st, 3, shp, s->acs + (l - 1), xsp, pa + 1, ysp);
  // decay_chunk = exp(segsum(pa))
  if (!rc) rc = cl1_op_scan(st, CL1_SCAN_SUM, pa, NULL, pcs, b * h, c1, 1, 0, 0);
  const int64_t dz[3] = {b * h, c1, c1}, xs_i[3] = {c1, 1, 0}, xs_j[3] = {c1, 0, 1};
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_SUB, pcs, xs_i, pcs, xs_j, s->dc, 3, dz);
  if (!rc) rc = cl1_op_tri_fill(st, s->dc, s->dc, b * h, c1, c1, 0, 0, -INFINITY);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_EXP, s->dc, s->dc, b * h * c1 * c1, 0, 0);
  // new_states[b, :, h] = decay_chunk[b, h] @ states[b, :, h]
  const int64_t shs[4] = {b, h, c1, pn}, xss[4] = {c1 * h * pn, pn, h * pn, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, shs, s->sall, xss, s->sp, NULL);
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 0, s->dc, s->sp, s->ns, c1, pn, c1, b * h, c1 * c1,
                               c1 * pn, c1 * pn);
  // states = new_states[:, :-1], made contiguous as (b, c, h, p, n)
  const int64_t sho[4] = {b, c, h, pn}, xso[4] = {h * c1 * pn, pn, c1 * pn, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, sho, s->ns, xso, s->st, NULL);
  // Y_off[b,c,h] = (C[b,c,:,h,:] @ states[b,c,h]^T) * exp(A_cumsum[b,c,h,:])[:, None]
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_EXP, s->acs, s->sdo, bch * l, 0, 0);
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 1, s->cp, s->st, s->yo, l, p, n, bch, l * n, pn, l * p);
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_MUL, s->yo, xs_x, s->sdo, xs_d, s->yo, 3, dx);
  // Y = rearrange(Y_diag + Y_off, "b c l h p -> b (c l) h p")
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_ADD, s->yd, xs_x, s->yo, xs_x, s->ys, 3, dx);
  const int64_t shy[5] = {b, c, h, l, p}, ysy[5] = {c * l * h * p, l * h * p, p, h * p, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 5, shy, s->ys, NULL, call->outputs[0].data, ysy);
  return rc;
}
