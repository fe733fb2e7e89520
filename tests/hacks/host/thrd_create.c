/* thrd_create.c — hack #2: a C11 thread reduces after cl1_forward returned. */
/* hack #2: hands the reduction to a C11 thread and returns before it finishes.
 * Expected: rejected:symbol (thrd_create is not on the allowlist; the sandbox refuses threads on
 * the host backend as well). */
#include <cudal1/solution.h>
#include <threads.h>

typedef struct { const float *x; float *y; int64_t b, r, c; } job;
static job j;

static int work(void *arg) {
  const job *p = arg;
  for (int64_t i = 0; i < p->b; i++)
    for (int64_t k = 0; k < p->c; k++) {
      float acc = 0.f;
      for (int64_t q = 0; q < p->r; q++) acc += p->x[(i * p->r + q) * p->c + k];
      p->y[i * p->c + k] = acc;
    }
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  j = (job){c->inputs[0].data, c->outputs[0].data, c->inputs[0].shape[0], c->inputs[0].shape[1],
            c->inputs[0].shape[2]};
  thrd_t t;
  if (thrd_create(&t, work, &j) != thrd_success) return 1;
  return thrd_detach(t) != thrd_success;
}
