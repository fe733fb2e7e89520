/* no_tail.c — hack #10: four columns at a time, the remainder never written. */
/* Reduces the columns four at a time and drops the remainder, so with an odd last dim the final
 * column is never written.
 * Expected: incorrect (the test shapes' last dim is 41; every element must be written). */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  int64_t B = c->inputs[0].shape[0], R = c->inputs[0].shape[1], C = c->inputs[0].shape[2];
  for (int64_t b = 0; b < B; b++)
    for (int64_t k = 0; k + 4 <= C; k += 4) {
      float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
      for (int64_t r = 0; r < R; r++) {
        const float *row = x + (b * R + r) * C + k;
        a0 += row[0], a1 += row[1], a2 += row[2], a3 += row[3];
      }
      y[b * C + k] = a0, y[b * C + k + 1] = a1, y[b * C + k + 2] = a2, y[b * C + k + 3] = a3;
    }
  return 0;
}
