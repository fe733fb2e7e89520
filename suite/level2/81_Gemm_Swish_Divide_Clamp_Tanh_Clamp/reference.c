/* reference.c — level2/81_Gemm_Swish_Divide_Clamp_Tanh_Clamp, PyTorch eager order:
 * y = linear(x, W, b) into the output, s = sigmoid(y) into an intermediate, y = y * s,
 * y = y / 2, y = clamp(y, -1, 1), y = tanh(y), y = clamp(y, -1, 1), all in place. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *sig; /* (M, N): torch.sigmoid(x) */
} ref_state;

static int ref_shapes(const cl1_call *call, int64_t *M, int64_t *N, int64_t *K) {
  if (call->n_inputs != 1 || call->n_params != 2 || call->n_outputs != 1) return 1;
  const cl1_tensor *x = &call->inputs[0], *W = &call->params[0], *b = &call->params[1],
                   *y = &call->outputs[0];
  if (x->ndim != 2 || W->ndim != 2 || b->ndim != 1 || y->ndim != 2) return 1;
  *M = x->shape[0], *K = x->shape[1], *N = W->shape[0];
  if (W->shape[1] != *K || b->shape[0] != *N || y->shape[0] != *M || y->shape[1] != *N) return 1;
  return 0;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, N, K;
  if (ref_shapes(call, &M, &N, &K)) return 1;
  ref_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  s->sig = cl1_op_alloc((size_t)(M * N) * sizeof(float) + 4);
  if (!s->sig) return free(s), 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  ref_state *s = state;
  if (!s) return;
  cl1_op_free(s->sig);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, N, K;
  const ref_state *s = call->state;
  if (!s || ref_shapes(call, &M, &N, &K)) return 1;
  void *st = call->stream;
  float *out = (float *)call->outputs[0].data;
  int64_t n = M * N;
  int rc = cl1_op_linear(st, (const float *)call->inputs[0].data, 0,
                         (const float *)call->params[0].data, (const float *)call->params[1].data,
                         out, M, N, K);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_SIGMOID, out, s->sig, n, 0, 0);
  if (!rc) rc = cl1_op_binary(st, CL1_BINARY_MUL, out, s->sig, out, n);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_MUL_SCALAR, out, out, n, 0.5, 0); /* x / 2.0 */
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_HARDTANH, out, out, n, -1.0, 1.0);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_TANH, out, out, n, 0, 0);
  if (!rc) rc = cl1_op_unary(st, CL1_UNARY_HARDTANH, out, out, n, -1.0, 1.0);
  return rc;
}
