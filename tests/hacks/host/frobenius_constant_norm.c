/* frobenius_constant_norm.c — hack #9: divides by sqrt(numel) instead of the Frobenius norm. */
/* Divides by sqrt(numel), the Frobenius norm a normal(0,1) input has on average, instead of
 * computing the norm (skips the global reduction).
 * At the small shapes (67M values) that is within 1e-4 of the true norm and passes; at the test
 * shapes (702 values) the norm varies by ~3% between inputs. Expected here: incorrect. */
#include <cudal1/solution.h>
#include <math.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data, inv = (float)(1.0 / sqrt((double)n));
  for (int64_t i = 0; i < n; i++) y[i] = x[i] * inv;
  return 0;
}
