/* wrong_values.c — copies x to y without the ReLU. Expected: incorrect. */
#include <cudal1/solution.h>
#include <string.h>

static int64_t numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  memcpy(c->outputs[0].data, c->inputs[0].data, (size_t)numel(&c->inputs[0]) * sizeof(float));
  return 0;
}
