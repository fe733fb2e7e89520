/* reference.c — level3/31_VisionAttention, PyTorch eager order (F.multi_head_attention_forward
 * with need_weights, then the residual LayerNorm): xs = x viewed (B, C, S) permuted to (S, B, C);
 * qkv = in_proj(xs); heads (3, B*nh, S, hd); q *= 1/sqrt(hd); att = q @ k^T; softmax;
 * o = att @ v; heads merged to (S, B, E); out_proj; + xs; LayerNorm; permuted to (B, C, S). */
#include <math.h>
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *xs;    // (S, B, E)
  float *qkv;   // (S, B, 3E)
  float *heads; // (3, B*nh, S, hd)
  float *att;   // (B*nh, S, S)
  float *oh;    // (B*nh, S, hd)
  float *om;    // (S, B, E)
  float *proj;  // (S, B, E)
} state31;

typedef struct { int64_t B, E, S, nh, hd; } dims31;

/* Reads and checks the shapes; 0 when they are consistent. */
static int describe(const cl1_call *call, dims31 *d) {
  if (call->n_inputs != 1 || call->n_params != 6 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0], *p = call->params;
  double nh;
  if (cl1_op_attr(call, "num_heads", &nh)) return 1;
  if (x->ndim != 4 || y->ndim != 4) return 1;
  for (int i = 0; i < 4; i++)
    if (y->shape[i] != x->shape[i]) return 1;
  d->B = x->shape[0], d->E = x->shape[1], d->S = x->shape[2] * x->shape[3];
  d->nh = (int64_t)nh;
  if (d->nh < 1 || d->E % d->nh) return 1;
  d->hd = d->E / d->nh;
  const int64_t E = d->E;
  if (p[0].ndim != 2 || p[0].shape[0] != 3 * E || p[0].shape[1] != E) return 1;
  if (p[1].ndim != 1 || p[1].shape[0] != 3 * E) return 1;
  if (p[2].ndim != 2 || p[2].shape[0] != E || p[2].shape[1] != E) return 1;
  for (int i = 3; i < 6; i++)
    if (p[i].ndim != 1 || p[i].shape[0] != E) return 1;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state31 *s = state;
  if (!s) return;
  cl1_op_free(s->xs), cl1_op_free(s->qkv), cl1_op_free(s->heads), cl1_op_free(s->att);
  cl1_op_free(s->oh), cl1_op_free(s->om), cl1_op_free(s->proj);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  dims31 d;
  if (describe(call, &d)) return 1;
  state31 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  size_t sbe = (size_t)(d.S * d.B * d.E) * sizeof(float);
  s->xs = cl1_op_alloc(sbe);
  s->qkv = cl1_op_alloc(3 * sbe);
  s->heads = cl1_op_alloc(3 * sbe);
  s->att = cl1_op_alloc((size_t)(d.B * d.nh * d.S * d.S) * sizeof(float));
  s->oh = cl1_op_alloc(sbe);
  s->om = cl1_op_alloc(sbe);
  s->proj = cl1_op_alloc(sbe);
  if (!s->xs || !s->qkv || !s->heads || !s->att || !s->oh || !s->om || !s->proj) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  dims31 d;
  if (!call->state || describe(call, &d)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  const state31 *s = call->state;
  void *st = call->stream;
  const float *x = call->inputs[0].data;
  const float *w_in = call->params[0].data, *b_in = call->params[1].data,
              *w_out = call->params[2].data, *b_out = call->params[3].data,
              *ln_w = call->params[4].data, *ln_b = call->params[5].data;
  float *out = call->outputs[0].data;
  const int64_t B = d.B, E = d.E, S = d.S, nh = d.nh, hd = d.hd, BH = B * nh;
  const int64_t part = S * B * E;  // one of q, k, v
  // (B, E, S) -> (S, B, E)
  const int64_t sh0[3] = {S, B, E}, xs0[3] = {1, E * S, S};
  int rc = cl1_op_strided_copy(st, 3, sh0, x, xs0, s->xs, NULL);
  if (!rc) rc = cl1_op_linear(st, s->xs, 0, w_in, b_in, s->qkv, S * B, 3 * E, E);
  // qkv viewed (S, B, 3, nh, hd) -> (3, B, nh, S, hd) = (3, B*nh, S, hd)
  const int64_t sh1[5] = {3, B, nh, S, hd}, xs1[5] = {E, 3 * E, hd, B * 3 * E, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 5, sh1, s->qkv, xs1, s->heads, NULL);
  float *q = s->heads;
  const float *k = s->heads + part, *v = s->heads + 2 * part;
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_MUL_SCALAR, q, q, part, sqrt(1.0 / (double)hd), 0);
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 1, q, k, s->att, S, S, hd, BH, S * hd, S * hd, S * S);
  if (!rc) rc = cl1_op_softmax(st, s->att, s->att, BH * S, S);
  if (!rc) rc = cl1_op_gemm_ex(st, 0, 0, s->att, v, s->oh, S, hd, S, BH, S * S, S * hd, S * hd);
  // (B, nh, S, hd) -> (S, B, nh, hd)
  const int64_t sh2[4] = {S, B, nh, hd}, xs2[4] = {hd, nh * S * hd, S * hd, 1};
  if (!rc) rc = cl1_op_strided_copy(st, 4, sh2, s->oh, xs2, s->om, NULL);
  if (!rc) rc = cl1_op_linear(st, s->om, 0, w_out, b_out, s->proj, S * B, E, E);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->proj, s->xs, s->proj, part);
  if (!rc) rc = cl1_op_layernorm(st, s->proj, ln_w, ln_b, s->om, S * B, E, eps);
  // (S, B, E) -> (B, E, S)
  const int64_t sh3[3] = {B, E, S}, xs3[3] = {E, 1, B * E};
  if (!rc) rc = cl1_op_strided_copy(st, 3, sh3, s->om, xs3, out, NULL);
  return rc;
}
