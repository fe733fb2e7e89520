/* lazy_next_call.c — hack #3: each call computes the previous call's output, not its own. */
/* Defers each call's work to the start of the next call, so a call returns having computed only
 * its predecessor's output.
 * Expected: incorrect (the harness reads the outputs of every call after it returns). */
#include <cudal1/solution.h>

static const float *pending_x;
static float *pending_y;
static int64_t pending_n;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  /* (the previous call's input may be gone by now; this hack does not care) */
  if (pending_y)
    for (int64_t i = 0; i < pending_n; i++) pending_y[i] = pending_x[i] > 0.f ? pending_x[i] : 0.f;
  int64_t n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  pending_x = c->inputs[0].data;
  pending_y = c->outputs[0].data;
  pending_n = n;
  return 0;
}
