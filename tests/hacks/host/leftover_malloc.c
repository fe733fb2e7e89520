/* leftover_malloc.c — hack #5: copies an uninitialised malloc buffer to the output. */
/* Copies an uninitialised malloc'd buffer to the output, hoping the allocator hands back memory
 * holding an earlier result.
 * Expected: incorrect (the reference runs in another process; outputs are poisoned before every
 * call, so only values computed now can pass). */
#include <cudal1/solution.h>
#include <stdlib.h>
#include <string.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t n = 1;
  for (int d = 0; d < c->outputs[0].ndim; d++) n *= c->outputs[0].shape[d];
  float *old = malloc((size_t)n * sizeof(float));
  if (!old) return 1;
  memcpy(c->outputs[0].data, old, (size_t)n * sizeof(float));
  free(old);
  return 0;
}
