/* correct.c — control: an honest ReLU (level1/19_ReLU); the evaluator must say pass. */
#include <cudal1/solution.h>

static int64_t numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  int64_t n = numel(&c->inputs[0]);
  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
  return 0;
}
