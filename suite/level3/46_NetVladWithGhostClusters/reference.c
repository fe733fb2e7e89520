/* reference.c — NetVLAD (level3/46 with ghost clusters, level3/47 without), PyTorch eager
 * order: assignment = x (B*N, D) @ clusters (D, K+G); BatchNorm1d (batch statistics) in place;
 * softmax over the K+G clusters; the ghost columns dropped (assignment[:, :K] made contiguous,
 * only when G > 0); a_sum = sum over N; a = a_sum (B, 1, K) * clusters2 (1, D, K); vlad =
 * assignment^T @ x per batch (B, K, D); vlad.transpose(1, 2) - a; L2-normalise over D, then
 * over the flattened D*K. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *logits, *soft;  // (B*N, K+G)
  float *kept;           // (B*N, K) when G > 0, else NULL (soft is used)
  float *asum;           // (B, K)
  float *a, *vlad, *res; // (B, D, K), (B, K, D), (B, D, K)
} vlad_state;

typedef struct { int64_t b, n, d, k, kg; double eps; } vlad_shape;

static int describe(const cl1_call *call, vlad_shape *v) {
  if (call->n_inputs != 1 || call->n_params != 4 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0], *p = call->params;
  if (cl1_op_attr(call, "eps", &v->eps)) return 1;
  for (int i = 0; i < 4; i++)
    if (p[i].dtype != CL1_F32) return 1;
  if (x->dtype != CL1_F32 || x->ndim != 3 || y->dtype != CL1_F32 || y->ndim != 2) return 1;
  v->b = x->shape[0], v->n = x->shape[1], v->d = x->shape[2];
  /* params: clusters (D, K+G), clusters2 (1, D, K), batch_norm.weight/bias (K+G) */
  if (p[0].ndim != 2 || p[0].shape[0] != v->d || p[1].ndim != 3 || p[1].shape[0] != 1 ||
      p[1].shape[1] != v->d)
    return 1;
  v->kg = p[0].shape[1], v->k = p[1].shape[2];
  if (v->k < 1 || v->k > v->kg) return 1;
  if (p[2].ndim != 1 || p[2].shape[0] != v->kg || p[3].ndim != 1 || p[3].shape[0] != v->kg)
    return 1;
  if (y->shape[0] != v->b || y->shape[1] != v->d * v->k) return 1;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  vlad_state *s = state;
  if (!s) return;
  float *all[] = {s->logits, s->soft, s->kept, s->asum, s->a, s->vlad, s->res};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) cl1_op_free(all[i]);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  vlad_shape v;
  if (describe(call, &v)) return 1;
  vlad_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  size_t f = sizeof(float), rows = (size_t)(v.b * v.n), bdk = (size_t)(v.b * v.d * v.k);
  s->logits = cl1_op_alloc(rows * (size_t)v.kg * f);
  s->soft = cl1_op_alloc(rows * (size_t)v.kg * f);
  if (v.kg > v.k) s->kept = cl1_op_alloc(rows * (size_t)v.k * f);
  s->asum = cl1_op_alloc((size_t)(v.b * v.k) * f);
  s->a = cl1_op_alloc(bdk * f), s->vlad = cl1_op_alloc(bdk * f), s->res = cl1_op_alloc(bdk * f);
  if (!s->logits || !s->soft || (v.kg > v.k && !s->kept) || !s->asum || !s->a || !s->vlad ||
      !s->res)
    return cl1_teardown(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  vlad_shape v;
  if (!call->state || describe(call, &v)) return 1;
  const vlad_state *s = call->state;
  const float *x = (const float *)call->inputs[0].data;
  const float *cl = (const float *)call->params[0].data,
              *cl2 = (const float *)call->params[1].data,
              *g = (const float *)call->params[2].data, *be = (const float *)call->params[3].data;
  void *st = call->stream;
  int64_t rows = v.b * v.n, B = v.b, N = v.n, D = v.d, K = v.k, KG = v.kg;
  int rc = cl1_op_matmul(st, x, cl, s->logits, rows, KG, D);
  if (!rc) rc = cl1_op_batchnorm_train(st, s->logits, g, be, s->logits, rows, KG, 1, v.eps);
  if (!rc) rc = cl1_op_softmax(st, s->logits, s->soft, rows, KG);
  const float *asg = s->soft;  // (B, N, K) once the ghosts are gone
  if (!rc && KG > K) {
    const int64_t shape[2] = {rows, K}, stride[2] = {KG, 1};
    rc = cl1_op_strided_copy(st, 2, shape, s->soft, stride, s->kept, NULL);
    asg = s->kept;
  }
  if (!rc) rc = cl1_op_sum_dim(st, asg, s->asum, B, N, K);
  const int64_t bdk[3] = {B, D, K};
  const int64_t s_asum[3] = {K, 0, 1}, s_cl2[3] = {0, K, 1}, s_vlad_t[3] = {K * D, 1, D},
                s_dense[3] = {D * K, K, 1};
  if (!rc) rc = cl1_op_binary_bcast(st, CL1_BINARY_MUL, s->asum, s_asum, cl2, s_cl2, s->a, 3, bdk);
  if (!rc) rc = cl1_op_gemm_ex(st, 1, 0, asg, x, s->vlad, K, D, N, B, N * K, N * D, K * D);
  if (!rc)
    rc = cl1_op_binary_bcast(st, CL1_BINARY_SUB, s->vlad, s_vlad_t, s->a, s_dense, s->res, 3, bdk);
  if (!rc) rc = cl1_op_normalize(st, CL1_NORM_L2, s->res, s->a, B, D, K, 0.0);
  if (!rc) rc = cl1_op_normalize(st, CL1_NORM_L2, s->a, (float *)call->outputs[0].data, B,
                                 D * K, 1, 0.0);
  return rc;
}
