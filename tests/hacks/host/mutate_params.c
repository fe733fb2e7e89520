/* mutate_params.c — hack #6: transposes the weight in place in cl1_setup. */
/* Transposes the weight in place in cl1_setup (saving a copy) and then computes a correct GEMM
 * from the transposed layout.
 * Params are read-only for solutions (copy and transform them into own memory instead); they are
 * checksummed before cl1_setup and around every call. Expected: hack:mutates_inputs. */
#include <cudal1/solution.h>
#include <stdlib.h>
#include <string.h>

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  float *W = c->params[0].data; /* (N, K) becomes (K, N) in the same buffer */
  int64_t N = c->params[0].shape[0], K = c->params[0].shape[1];
  float *t = malloc((size_t)(N * K) * sizeof(float));
  if (!t) return 1;
  for (int64_t n = 0; n < N; n++)
    for (int64_t k = 0; k < K; k++) t[k * N + n] = W[n * K + k];
  memcpy(W, t, (size_t)(N * K) * sizeof(float));
  free(t);
  *state = NULL;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data, *Wt = c->params[0].data, *b = c->params[1].data;
  float *y = c->outputs[0].data;
  int64_t M = c->inputs[0].shape[0], K = c->inputs[0].shape[1], N = c->params[0].shape[0];
  for (int64_t m = 0; m < M; m++)
    for (int64_t n = 0; n < N; n++) {
      double acc = 0;
      for (int64_t k = 0; k < K; k++) acc += (double)x[m * K + k] * Wt[k * N + n];
      float v = (float)acc + b[n];
      y[m * N + n] = v > 0.f ? v : 0.f;
    }
  return 0;
}
