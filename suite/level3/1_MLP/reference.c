/* reference.c — level3/1_MLP, 2_ShallowWideMLP and 3_DeepNarrowMLP (their task.json names this
 * file), PyTorch eager order: for each hidden layer h = linear(h, W, b)
 * then relu in place; the last linear writes the output. The layer count comes from the params
 * (weight, bias pairs in state_dict order); hidden activations ping-pong between two buffers. */
#include <stdlib.h>
#include <cudal1/solution.h>
#include <cudal1/ops.h>

typedef struct {
  float *buf[2]; /* (batch, max hidden width) each */
} mlp_state;

/* Checks the chain x (M, K0) -> W_i (K_{i+1}, K_i), b_i (K_{i+1}) -> y (M, K_L); *M and the
 * widest hidden layer into *M, *wide. */
static int mlp_shapes(const cl1_call *call, int64_t *M, int64_t *wide) {
  if (call->n_inputs != 1 || call->n_outputs != 1 || call->n_params < 2 || call->n_params % 2)
    return 1;
  const cl1_tensor *x = &call->inputs[0], *y = &call->outputs[0];
  if (x->ndim != 2 || y->ndim != 2 || x->dtype != CL1_F32 || y->dtype != CL1_F32) return 1;
  int64_t k = x->shape[1];
  *M = x->shape[0], *wide = 1;
  int layers = call->n_params / 2;
  for (int i = 0; i < layers; i++) {
    const cl1_tensor *W = &call->params[2 * i], *b = &call->params[2 * i + 1];
    if (W->ndim != 2 || b->ndim != 1 || W->dtype != CL1_F32 || b->dtype != CL1_F32) return 1;
    if (W->shape[1] != k || b->shape[0] != W->shape[0]) return 1;
    k = W->shape[0];
    if (i + 1 < layers && k > *wide) *wide = k;
  }
  return y->shape[0] != *M || y->shape[1] != k;
}

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  int64_t M, wide;
  if (mlp_shapes(call, &M, &wide)) return 1;
  mlp_state *s = calloc(1, sizeof *s);
  if (!s) return 1;
  for (int i = 0; i < 2; i++)
    if (!(s->buf[i] = cl1_op_alloc((size_t)(M * wide) * sizeof(float)))) {
      cl1_op_free(s->buf[0]);
      return free(s), 1;
    }
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  mlp_state *s = state;
  if (!s) return;
  cl1_op_free(s->buf[0]), cl1_op_free(s->buf[1]);
  free(s);
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  int64_t M, wide;
  const mlp_state *s = call->state;
  if (!s || mlp_shapes(call, &M, &wide)) return 1;
  const float *h = (const float *)call->inputs[0].data;
  int64_t k = call->inputs[0].shape[1];
  int layers = call->n_params / 2, rc = 0;
  for (int i = 0; i < layers && !rc; i++) {
    const cl1_tensor *W = &call->params[2 * i], *b = &call->params[2 * i + 1];
    int64_t n = W->shape[0];
    int last = i + 1 == layers;
    float *o = last ? (float *)call->outputs[0].data : s->buf[i % 2]; /* (M, n) */
    rc = cl1_op_linear(call->stream, h, 0, (const float *)W->data, (const float *)b->data, o, M, n,
                       k);
    if (!rc && !last) rc = cl1_op_relu(call->stream, o, o, M * n);
    h = o, k = n;
  }
  return rc;
}
