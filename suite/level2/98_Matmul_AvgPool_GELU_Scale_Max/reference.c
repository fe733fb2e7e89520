/* reference.c — level2/98_Matmul_AvgPool_GELU_Scale_Max, PyTorch eager order:
 * t = linear(x, W, b) into a scratch tensor, p = avg_pool1d(t viewed (batch, 1, out_features),
 * pool_kernel_size) into a second one, then in place: exact GELU, * scale_factor, and
 * y = max over dim 1 (values) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *lin;   // (batch, out_features)
  float *pool;  // (batch, out_features / pool_kernel_size)
} state98;

CL1_EXPORT void cl1_teardown(void *state) {
  state98 *s = state;
  if (!s) return;
  cl1_op_free(s->lin);
  cl1_op_free(s->pool);
  free(s);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  double k;
  if (call->n_inputs != 1 || call->n_params != 2 || call->params[0].ndim != 2 ||
      cl1_op_attr(call, "pool_kernel_size", &k) || k < 1)
    return 1;
  int64_t M = call->inputs[0].shape[0], N = call->params[0].shape[0], P = N / (int64_t)k;
  if (P < 1) return 1;
  state98 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->lin = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  s->pool = cl1_op_alloc((size_t)(M * P) * sizeof(float));
  if (!s->lin || !s->pool) return cl1_teardown(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1 || !call->state)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 1) return 1;
  int64_t M = x->shape[0], K = x->shape[1], N = W->shape[0];
  if (W->shape[1] != K || b->shape[0] != N || y->shape[0] != M) return 1;
  double k, scale;
  if (cl1_op_attr(call, "pool_kernel_size", &k) || cl1_op_attr(call, "scale_factor", &scale))
    return 1;
  cl1_pool_desc pd = {.nsp = 1, .planes = M, .in = {N}, .k = {(int64_t)k},
                      .stride = {(int64_t)k}, .pad = {0}, .dil = {1}, .ceil_mode = 0,
                      .count_include_pad = 1};
  pd.out[0] = cl1_pool_out_len(N, pd.k[0], pd.stride[0], 0, 1, 0);
  if (cl1_pool_desc_check(CL1_POOL_AVG, &pd)) return 1;
  int64_t P = pd.out[0];
  const state98 *s = call->state;
  int rc = cl1_op_linear(call->stream, (const float *)x->data, 0, (const float *)W->data,
                         (const float *)b->data, s->lin, M, N, K);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_AVG, s->lin, s->pool, &pd);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_GELU, s->pool, s->pool, M * P, 0, 0);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, s->pool, s->pool, M * P, scale, 0);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_MAX, s->pool, y->data, M, P, 1);
  return rc;
}
