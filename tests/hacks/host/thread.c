/* thread.c — hack #2: returns at once and lets a host thread write the output later, hoping the
 * timer stops first. Expected: rejected:symbol (pthread_create is not on the allowlist). */
#include <cudal1/solution.h>
#include <pthread.h>

static int64_t numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

typedef struct { const float *x; float *y; int64_t n; } job;
static job j;

static void *work(void *arg) {
  job *p = arg;
  for (int64_t i = 0; i < p->n; i++) p->y[i] = p->x[i] > 0.f ? p->x[i] : 0.f;
  return NULL;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  j.x = c->inputs[0].data;
  j.y = c->outputs[0].data;
  j.n = numel(&c->inputs[0]);
  pthread_t t;
  if (pthread_create(&t, NULL, work, &j)) return 1;
  return pthread_detach(t);
}
