/* reference.c — level3/43_MinGPTCausalAttention, PyTorch eager order: qkv = c_attn(x); q, k, v
 * made contiguous per head (one strided copy); att = q @ k^T; att *= 1/sqrt(hs); causal
 * masked_fill(-inf); softmax; y = att @ v; heads merged (strided copy); out = c_proj(y). */
#include <math.h>
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *qkv;   // (B, T, 3C)
  float *heads; // (3, B, nh, T, hs): q, k, v
  float *att;   // (B, nh, T, T)
  float *yh;    // (B, nh, T, hs)
  float *ym;    // (B, T, C)
} state43;

typedef struct { int64_t B, T, C, nh, hs; } dims43;

/* Reads and checks the shapes; 0 when they are consistent. */
static int describe(const cl1_call *call, dims43 *d) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *wa = &call->params[0], *ba = &call->params[1],
                   *wp = &call->params[2], *bp = &call->params[3], *y = &call->outputs[0];
  double nh, maxT;
  if (cl1_op_attr(call, "n_head", &nh) || cl1_op_attr(call, "max_seqlen", &maxT)) return 1;
  if (x->ndim != 3 || y->ndim != 3) return 1;
  d->B = x->shape[0], d->T = x->shape[1], d->C = x->shape[2], d->nh = (int64_t)nh;
  if (d->nh < 1 || d->C % d->nh || d->T > (int64_t)maxT) return 1;
  d->hs = d->C / d->nh;
  if (wa->ndim != 2 || wa->shape[0] != 3 * d->C || wa->shape[1] != d->C) return 1;
  if (ba->ndim != 1 || ba->shape[0] != 3 * d->C) return 1;
  if (wp->ndim != 2 || wp->shape[0] != d->C || wp->shape[1] != d->C) return 1;
  if (bp->ndim != 1 || bp->shape[0] != d->C) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[i] != x->shape[i]) return 1;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state43 *s = state;
  if (!s) return;
  cl1_op_free(s->qkv), cl1_op_free(s->heads), cl1_op_free(s->att), cl1_op_free(s->yh);
  cl1_op_free(s->ym);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  dims43 d;
  if (describe(call, &d)) return 1;
  state43 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  size_t btc = (size_t)(d.B * d.T * d.C) * sizeof(float);
  s->qkv = cl1_op_alloc(3 * btc);
  s->heads = cl1_op_alloc(3 * btc);
  s->att = cl1_op_alloc((size_t)(d.B * d.nh * d.T * d.T) * sizeof(float));
  s->yh = cl1_op_alloc(btc);
  s->ym = cl1_op_alloc(btc);
  if (!s->qkv || !s->heads || !s->att || !s->yh || !s->ym) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  dims43 d;
  if (!call->state || describe(call, &d)) return 1;
  const state43 *s = call->state;
  void *st = call->stream;
  const float *x = call->inputs[0].data, *wa = call->params[0].data, *ba = call->params[1].data,
              *wp = call->params[2].data, *bp = call->params[3].data;
  float *out = call->outputs[0].data;
  const int64_t B = d.B, T = d.T, C = d.C, nh = d.nh, hs = d.hs, BH = B * nh;
  const int64_t part = B * T * C;  // one of q, k, v
  int rc = cl1_op_linear(st, x, 0, wa, ba, s->qkv, B * T, 3 * C, C);
  // qkv viewed (B, T, 3, nh, hs) -> (3, B, nh, T, hs)
  const int64_t sh1[5] = {3, B, nh, T, hs}, xs1[5] = {C, T * 3 * C, hs, 3 * C, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 5, sh1, s->qkv, xs1, s->heads, NULL);
  const float *q = s->heads, *k = s->heads + part, *v = s->heads + 2 * part;
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 1, q, k, s->att, T, T, hs, BH, T * hs, T * hs, T * T);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_MUL_SCALAR, s->att, s->att, BH * T * T,
                             1.0 / sqrt((double)hs), 0);
  if (!rc) rc = cl1_op_tri_fill(st, s->att, s->att, BH, T, T, 0, 0, -INFINITY);
  if (!rc) rc = cl1_op_softmax(st, s->att, s->att, BH * T, T);
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 0, s->att, v, s->yh, T, hs, T, BH, T * T, T * hs, T * hs);
  // (B, nh, T, hs) -> (B, T, nh, hs)
  const int64_t sh2[4] = {B, T, nh, hs}, xs2[4] = {nh * T * hs, hs, T * hs, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, sh2, s->yh, xs2, s->ym, NULL);
  if (!rc) rc = cl1_op_linear(st, s->ym, 0, wp, bp, out, B * T, C, C);
  return rc;
}
