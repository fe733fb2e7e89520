/* 40_LayerNorm.c — a correct host candidate for level1/40: one pass of sum and sum of squares
 * in double (exact enough for these inputs), then the affine normalisation. */
#include <math.h>
#include <string.h>
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *x = &c->inputs[0];
  int64_t rows = x->shape[0], cols = 1;
  for (int d = 1; d < x->ndim; d++) cols *= x->shape[d];
  double eps = 1e-5;
  for (int i = 0; i < c->n_attrs; i++)
    if (!strcmp(c->attrs[i].name, "eps")) eps = c->attrs[i].value;
  const float *in = x->data, *g = c->params[0].data, *b = c->params[1].data;
  float *out = c->outputs[0].data;
  for (int64_t r = 0; r < rows; r++) {
    const float *xr = in + r * cols;
    double s = 0, s2 = 0;
    for (int64_t j = 0; j < cols; j++) s += xr[j], s2 += (double)xr[j] * xr[j];
    double mean = s / (double)cols, var = s2 / (double)cols - mean * mean;
    float m = (float)mean, rstd = (float)(1.0 / sqrt((var > 0 ? var : 0) + eps));
    for (int64_t j = 0; j < cols; j++) out[r * cols + j] = (xr[j] - m) * rstd * g[j] + b[j];
  }
  return 0;
}
