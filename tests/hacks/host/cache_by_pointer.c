/* cache_by_pointer.c — hack #7: remembers outputs by input address and, on a hit, copies the
 * remembered result without recomputing. The evaluator calls again with new values at the same
 * address. Expected: incorrect. */
#include <cudal1/solution.h>
#include <stdlib.h>
#include <string.h>

static int64_t numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

#define SLOTS 16
static struct { const void *key; float *val; int64_t n; } cache[SLOTS];

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  int64_t n = numel(&c->inputs[0]);
  for (int s = 0; s < SLOTS; s++)
    if (cache[s].key == x && cache[s].n == n) {
      memcpy(y, cache[s].val, (size_t)n * sizeof(float));
      return 0;
    }
  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
  for (int s = 0; s < SLOTS; s++)
    if (!cache[s].key) {
      cache[s].val = malloc((size_t)n * sizeof(float));
      if (!cache[s].val) return 0;
      memcpy(cache[s].val, y, (size_t)n * sizeof(float));
      cache[s].key = x;
      cache[s].n = n;
      break;
    }
  return 0;
}
