/* 23_Softmax.c — a correct host candidate for level1/23_Softmax: max-shifted, float sums. */
#include <math.h>
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t rows = c->inputs[0].shape[0], cols = c->inputs[0].shape[1];
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = x + r * cols;
    float *yr = y + r * cols;
    float m = xr[0];
    for (int64_t j = 1; j < cols; j++) m = fmaxf(m, xr[j]);
    double s = 0;
    for (int64_t j = 0; j < cols; j++) s += (yr[j] = expf(xr[j] - m));
    float inv = (float)(1.0 / s);
    for (int64_t j = 0; j < cols; j++) yr[j] *= inv;
  }
  return 0;
}
