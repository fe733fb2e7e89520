/* batch_skip.c — hack #8: computes on odd-numbered calls only and returns at once on even ones,
 * halving the average time. Expected: incorrect (every call's output is checked). */
#include <cudal1/solution.h>

static int64_t numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

static long calls;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  if (++calls % 2 == 0) return 0;
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  int64_t n = numel(&c->inputs[0]);
  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
  return 0;
}
