/* skip_seen_input.c — hack #8: skips the matmul when the input address was seen before. */
/* Skips the matmul whenever the input address was seen before, assuming the output buffer still
 * holds that earlier result.
 * Expected: incorrect (outputs are poisoned before every call, and a used address comes back
 * with new values). */
#include <cudal1/solution.h>

#define SEEN 64
static const void *seen[SEEN];
static int n_seen;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *A = c->inputs[0].data, *B = c->inputs[1].data;
  float *C = c->outputs[0].data;
  for (int i = 0; i < n_seen; i++)
    if (seen[i] == A) return 0;
  if (n_seen < SEEN) seen[n_seen++] = A;
  int64_t N = c->inputs[0].shape[0];
  for (int64_t i = 0; i < N; i++)
    for (int64_t j = 0; j < N; j++) {
      double acc = 0;
      for (int64_t q = 0; q < N; q++) acc += (double)A[i * N + q] * B[q * N + j];
      C[i * N + j] = (float)acc;
    }
  return 0;
}
