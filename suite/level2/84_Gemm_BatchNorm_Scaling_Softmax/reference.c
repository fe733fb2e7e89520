/* reference.c — level2/84_Gemm_BatchNorm_Scaling_Softmax, PyTorch eager order: g = linear(x, W,
 * b) into the output, t = batch_norm(g) (training mode) into an intermediate, t = scale * t in
 * place, y = softmax(t, dim 1) into the output. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *tmp; /* (M, N): the BatchNorm output, scaled */
} ref_state;

static int ref_shapes(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K, double *eps) {
  if (call->n_inputs != 1 || call->n_params != 5 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *sc = &call->params[4],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || y->ndim != 2 || sc->ndim != 1 || sc->shape[0] != 1)
    return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || y->shape[0] != *M || y->shape[1] != *N) return 1;
  for (int i = 1; i < 4; i++)
    if (call->params[i].ndim != 1 || call->params[i].shape[0] != *N) return 1;
  if (cl1_op_attr(call, "bn_eps", eps)) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  double eps;
  if (ref_shapes(call, &M, &N, &K, &eps)) return 1;
  ref_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->tmp = cl1_op_alloc((size_t)(M * N) * sizeof(float) + 4);
  if (!s->tmp) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *s = state;
  if (!s) return;
  cl1_op_free(s->tmp);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  double eps;
  const ref_state *s = call->state;
  if (!s || ref_shapes(call, &M, &N, &K, &eps)) return 1;
  void *st = call->stream;
  const float *p[5];
  for (int i = 0; i < 5; i++) p[i] = (const float *)call->params[i].data;
  float *out = (float *)call->outputs[0].data;
  int rc = cl1_op_linear(st, (const float *)call->inputs[0].data, 0, p[0], p[1], out, M, N, K);
  if (!rc) rc = cl1_op_batchnorm_train(st, out, p[2], p[3], s->tmp, M, N, 1, eps);
  if (!rc) rc = cl1_op_mul_channel(st, s->tmp, p[4], s->tmp, 1, 1, M * N); /* (1,) broadcast */
  if (!rc) rc = cl1_op_softmax(st, s->tmp, out, M, N);
  return rc;
}
