/* reference.c — level2/55_Matmul_MaxPool_Sum_Scale, PyTorch eager order: h = linear(x, W, b)
 * into an intermediate, p = max_pool1d(h, k, stride k) into a second one (one plane per row),
 * y = sum(p, dim=1) into the output, y *= scale_factor in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct { float *h, *p; } state55; /* h: (M, N), p: (M, P) */

static int shapes_ok(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K,
                     cl1_pool_desc *pd) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 0;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 1) return 0;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || b->shape[0] != *N || y->shape[0] != *M) return 0;
  double k;
  if (cl1_op_attr(call, "kernel_size", &k) || k < 1) return 0;
  *pd = (cl1_pool_desc){.nsp = 1, .planes = *M, .in = {*N}, .k = {(int64_t)k},
                        .stride = {(int64_t)k}, .pad = {0}, .dil = {1}};
  pd->out[0] = cl1_pool_out_len(*N, pd->k[0], pd->stride[0], 0, 1, 0);
  return !cl1_pool_desc_check(CL1_POOL_MAX, pd);
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  cl1_pool_desc pd;
  if (!shapes_ok(call, &M, &N, &K, &pd)) return 1;
  state55 *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->h = cl1_op_alloc((size_t)(M * N) * sizeof(float));
  s->p = cl1_op_alloc((size_t)(M * pd.out[0]) * sizeof(float));
  if (!s->h || !s->p) {
    cl1_op_free(s->h), cl1_op_free(s->p), free(s);
    return 1;
  }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  state55 *s = state;
  if (!s) return;
  cl1_op_free(s->h);
  cl1_op_free(s->p);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  cl1_pool_desc pd;
  const state55 *s = call->state;
  if (!s || !shapes_ok(call, &M, &N, &K, &pd)) return 1;
  double scale;
  if (cl1_op_attr(call, "scale_factor", &scale)) return 1;
  float *out = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(call->stream, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         s->h, M, N, K);
  if (!rc) rc = cl1_op_pool(call->stream, CL1_POOL_MAX, s->h, s->p, &pd);
  if (!rc) rc = cl1_op_reduce(call->stream, CL1_REDUCE_SUM, s->p, out, M, pd.out[0], 1);
  if (!rc) rc = cl1_op_unary(call->stream, CL1_UNARY_MUL_SCALAR, out, out, M, scale, 0);
  return rc;
}
