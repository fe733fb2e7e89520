/* count_calls.c — hack #16: counts the verification calls, computes nothing afterwards. */
/* Correct for the verification calls (it counts them: 4 per params set, 2 sets), then returns
 * without computing once timing starts.
 * Expected: incorrect (a secret sample of timed calls is re-verified). */
#include <cudal1/solution.h>

static int setups, calls_since_setup;

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  (void)c;
  setups++;
  calls_since_setup = 0;
  *state = NULL;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  if (setups >= 2 && ++calls_since_setup > 4) return 0;
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  int64_t B = c->inputs[0].shape[0], R = c->inputs[0].shape[1], C = c->inputs[0].shape[2];
  for (int64_t b = 0; b < B; b++)
    for (int64_t k = 0; k < C; k++) {
      double acc = 0;
      for (int64_t r = 0; r < R; r++) acc += x[(b * R + r) * C + k];
      y[b * C + k] = (float)acc;
    }
  return 0;
}
