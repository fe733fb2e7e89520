/* 1_Square_matrix_multiplication_.c — a correct host candidate for level1/1: C = A @ B with a
 * transposed copy of B so that every dot product reads two contiguous rows. */
#include <stdlib.h>
#include <cudal1/solution.h>

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t n = c->inputs[0].shape[0];
  const float *A = c->inputs[0].data, *B = c->inputs[1].data;
  float *C = c->outputs[0].data;
  float *bt = malloc(sizeof(float) * (size_t)(n * n));
  if (!bt) return 1;
  for (int64_t k = 0; k < n; k++)
    for (int64_t j = 0; j < n; j++) bt[j * n + k] = B[k * n + j];
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      double s = 0;
      for (int64_t k = 0; k < n; k++) s += (double)A[i * n + k] * bt[j * n + k];
      C[i * n + j] = (float)s;
    }
  free(bt);
  return 0;
}
