/* mutate_inputs.c — hack #6: a correct ReLU that then zeroes its input (a later reference or
 * check that reads the input would see zeros). Expected: hack:mutates_inputs. */
#include <cudal1/solution.h>
#include <string.h>

static int64_t numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  float *x = c->inputs[0].data;  /* const dropped on purpose */
  float *y = c->outputs[0].data;
  int64_t n = numel(&c->inputs[0]);
  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
  memset(x, 0, (size_t)n * sizeof(float));
  return 0;
}
