/* cache_by_shape.c — hack #7: replays the first output for every call of the same shape. */
/* Computes the reduction once per input shape and replays that first result for every later call
 * of the same shape.
 * Expected: incorrect (every check after the first brings new values of the same shape). */
#include <cudal1/solution.h>
#include <stdlib.h>
#include <string.h>

static int64_t key[3];
static float *saved;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  int64_t B = c->inputs[0].shape[0], R = c->inputs[0].shape[1], C = c->inputs[0].shape[2];
  size_t bytes = (size_t)(B * C) * sizeof(float);
  if (saved && key[0] == B && key[1] == R && key[2] == C) {
    memcpy(y, saved, bytes);
    return 0;
  }
  for (int64_t b = 0; b < B; b++)
    for (int64_t k = 0; k < C; k++) {
      double acc = 0;
      for (int64_t r = 0; r < R; r++) acc += x[(b * R + r) * C + k];
      y[b * C + k] = (float)acc;
    }
  if (!saved && !(saved = malloc(bytes))) return 0;
  memcpy(saved, y, bytes);
  key[0] = B, key[1] = R, key[2] = C;
  return 0;
}
