/* 63_conv_standard_2D__square_input__square_kernel.c — a correct host candidate for level1/63:
 * valid (unpadded, stride 1) cross-correlation, accumulated output-row-wise in double. */
#include <stdlib.h>
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[0], *y = &c->outputs[0];
  int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
  int64_t K = w->shape[0], R = w->shape[2], S = w->shape[3], OH = y->shape[2], OW = y->shape[3];
  const float *in = x->data, *wt = w->data;
  float *out = y->data;
  double *acc = malloc(sizeof(double) * (size_t)OW);
  if (!acc) return 1;
  for (int64_t n = 0; n < N; n++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t p = 0; p < OH; p++) {
        for (int64_t q = 0; q < OW; q++) acc[q] = 0;
        for (int64_t ch = 0; ch < C; ch++)
          for (int64_t r = 0; r < R; r++) {
            const float *row = in + ((n * C + ch) * H + p + r) * W;
            for (int64_t s = 0; s < S; s++) {
              double wv = wt[((k * C + ch) * R + r) * S + s];
              for (int64_t q = 0; q < OW; q++) acc[q] += wv * row[q + s];
            }
          }
        for (int64_t q = 0; q < OW; q++) out[((n * K + k) * OH + p) * OW + q] = (float)acc[q];
      }
  free(acc);
  return 0;
}
