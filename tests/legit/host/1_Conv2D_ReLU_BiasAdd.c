/* 1_Conv2D_ReLU_BiasAdd.c — a correct host candidate for level2/1: valid 2D cross-correlation
 * with conv bias, ReLU and the per-channel bias, fused per output element. */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[0], *y = &c->outputs[0];
  int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
  int64_t K = w->shape[0], R = w->shape[2], S = w->shape[3], OH = y->shape[2], OW = y->shape[3];
  const float *in = x->data, *wt = w->data, *cb = c->params[1].data, *b = c->params[2].data;
  float *out = y->data;
  for (int64_t n = 0; n < N; n++)
    for (int64_t k = 0; k < K; k++)
      for (int64_t p = 0; p < OH; p++)
        for (int64_t q = 0; q < OW; q++) {
          double s = cb[k];
          for (int64_t ch = 0; ch < C; ch++)
            for (int64_t r = 0; r < R; r++)
              for (int64_t t = 0; t < S; t++)
                s += (double)in[((n * C + ch) * H + p + r) * W + q + t] *
                     wt[((k * C + ch) * R + r) * S + t];
          float v = (float)s;
          out[((n * K + k) * OH + p) * OW + q] = (v > 0 ? v : 0) + b[k];
        }
  return 0;
}
