/* reference.c — level3/44_MiniGPTBlock, PyTorch eager order: h = ln_1(x); the causal attention
 * of task 43 on h (c_attn, heads, q @ k^T, scale, masked_fill(-inf), softmax, @ v, merge,
 * c_proj); r = x + attn; h = ln_2(r); f = c_fc(h); NewGELU(f); m = c_proj(f); y = r + m. */
#include <math.h>
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *h;     // (B, T, C): ln outputs, then the merged heads
  float *qkv;   // (B, T, 3C)
  float *heads; // (3, B, nh, T, hs)
  float *att;   // (B, nh, T, T)
  float *yh;    // (B, nh, T, hs)
  float *a;     // (B, T, C): attention / mlp output
  float *r;     // (B, T, C): first residual
  float *f;     // (B, T, 4C)
} state44;

typedef struct { int64_t B, T, C, nh, hs; } dims44;

/* Reads and checks the shapes; 0 when they are consistent. */
static int describe(const cl1_call *call, dims44 *d) {
  if (call->n_inputs != 1 || call->n_params != 12 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0], *p = call->params;
  double nh, maxT;
  if (cl1_op_attr(call, "n_head", &nh) || cl1_op_attr(call, "max_seqlen", &maxT)) return 1;
  if (x->ndim != 3 || y->ndim != 3) return 1;
  for (int i = 0; i < 3; i++)
    if (y->shape[i] != x->shape[i]) return 1;
  d->B = x->shape[0], d->T = x->shape[1], d->C = x->shape[2], d->nh = (int64_t)nh;
  if (d->nh < 1 || d->C % d->nh || d->T > (int64_t)maxT) return 1;
  d->hs = d->C / d->nh;
  const int64_t C = d->C;
  /* (rows, cols) of each param; cols 0 = a vector */
  const int64_t want[12][2] = {{C, 0},     {C, 0}, {3 * C, C}, {3 * C, 0}, {C, C},     {C, 0},
                               {C, 0},     {C, 0}, {4 * C, C}, {4 * C, 0}, {C, 4 * C}, {C, 0}};
  for (int i = 0; i < 12; i++) {
    int nd = want[i][1] ? 2 : 1;
    if (p[i].ndim != nd || p[i].shape[0] != want[i][0] || (nd == 2 && p[i].shape[1] != want[i][1]))
      return 1;
  }
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state44 *s = state;
  if (!s) return;
  cl1_op_free(s->h), cl1_op_free(s->qkv), cl1_op_free(s->heads), cl1_op_free(s->att);
  cl1_op_free(s->yh), cl1_op_free(s->a), cl1_op_free(s->r), cl1_op_free(s->f);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  dims44 d;
  if (describe(call, &d)) return 1;
  state44 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  size_t btc = (size_t)(d.B * d.T * d.C) * sizeof(float);
  s->h = cl1_op_alloc(btc);
  s->qkv = cl1_op_alloc(3 * btc);
  s->heads = cl1_op_alloc(3 * btc);
  s->att = cl1_op_alloc((size_t)(d.B * d.nh * d.T * d.T) * sizeof(float));
  s->yh = cl1_op_alloc(btc);
  s->a = cl1_op_alloc(btc);
  s->r = cl1_op_alloc(btc);
  s->f = cl1_op_alloc(4 * btc);
  if (!s->h || !s->qkv || !s->heads || !s->att || !s->yh || !s->a || !s->r || !s->f) {
    cl1_teardown(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  dims44 d;
  if (!call->state || describe(call, &d)) return 1;
  double eps;
  if (cl1_op_attr(call, "eps", &eps)) return 1;
  const state44 *s = call->state;
  void *st = call->stream;
  const float *x = call->inputs[0].data, *P[12];
  for (int i = 0; i < 12; i++) P[i] = call->params[i].data;
  float *out = call->outputs[0].data;
  const int64_t B = d.B, T = d.T, C = d.C, nh = d.nh, hs = d.hs, BH = B * nh, M = B * T;
  const int64_t part = M * C;  // one of q, k, v
  int rc = cl1_op_layernorm(st, x, P[0], P[1], s->h, M, C, eps);
  if (!rc) rc = cl1_op_linear(st, s->h, 0, P[2], P[3], s->qkv, M, 3 * C, C);
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
  if (!rc) rc = cl1_op_strided_copy(st, 4, sh2, s->yh, xs2, s->h, NULL);
  if (!rc) rc = cl1_op_linear(st, s->h, 0, P[4], P[5], s->a, M, C, C);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, x, s->a, s->r, part);
  if (!rc) rc = cl1_op_layernorm(st, s->r, P[6], P[7], s->h, M, C, eps);
  if (!rc) rc = cl1_op_linear(st, s->h, 0, P[8], P[9], s->f, M, 4 * C, C);
  if (!rc) rc = cl1_op_gelu_tanh(st, s->f, s->f, 4 * part);
  if (!rc) rc = cl1_op_linear(st, s->f, 0, P[10], P[11], s->a, M, C, 4 * C);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_ADD, s->r, s->a, out, part);
  return rc;
}
