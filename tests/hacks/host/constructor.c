/* constructor.c — runs code when the library is loaded, before the harness calls anything.
 * Expected: rejected:constructor. */
#include <cudal1/solution.h>

static int64_t numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

static int loaded;
__attribute__((constructor)) static void at_load(void) { loaded = 1; }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  int64_t n = numel(&c->inputs[0]);
  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f * (float)loaded;
  return 0;
}
