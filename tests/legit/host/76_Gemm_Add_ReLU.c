/* 76_Gemm_Add_ReLU.c — a correct host candidate for level2/76: y = relu(x W^T + bias), the
 * bias and ReLU fused into the dot-product loop. */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t M = c->inputs[0].shape[0], K = c->inputs[0].shape[1], N = c->params[0].shape[0];
  const float *x = c->inputs[0].data, *W = c->params[0].data, *b = c->params[1].data;
  float *y = c->outputs[0].data;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      double s = 0;
      for (int64_t k = 0; k < K; k++) s += (double)x[i * K + k] * W[j * K + k];
      float v = (float)s + b[j];
      y[i * N + j] = v > 0 ? v : 0;
    }
  return 0;
}
