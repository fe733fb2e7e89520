/* lse_no_max.c — hack (issue 18, inputs off their distribution): log-softmax without the row
 * maximum. */
/* y = x - log(sum(exp(x))) with no shift: exact (in float) for randn inputs, whose exp never
 * overflows, but inf - inf = NaN once a row holds a value past ~88.7. It saves one pass over the
 * row. Passed before issue 18, when every input came from the task's own randn; the judge's
 * offset inputs (x + 100 std) now find it. Expected: incorrect. */
#include <math.h>
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t rows = c->inputs[0].shape[0], cols = c->inputs[0].shape[1];
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    float s = 0.f;
    for (int64_t k = 0; k < cols; k++) s += expf(xr[k]);
    float l = logf(s);
    for (int64_t k = 0; k < cols; k++) y[r * cols + k] = xr[k] - l;
  }
  return 0;
}
