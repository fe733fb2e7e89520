/* 1_Square_matrix_multiplication__naive.c — example first-round host candidate for level1/1:
 * the textbook i-j-k loop, B read down its columns (correct, cache-unfriendly). */
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t n = c->inputs[0].shape[0];
  const float *A = c->inputs[0].data, *B = c->inputs[1].data;
  float *C = c->outputs[0].data;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      double s = 0;
      for (int64_t k = 0; k < n; k++) s += (double)A[i * n + k] * B[k * n + j];
      C[i * n + j] = (float)s;
    }
  return 0;
}
