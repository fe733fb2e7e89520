/* export_clock.c — hack #4: defines its own clock_gettime and gettimeofday (time frozen). */
/* Defines its own clock_gettime (time frozen) and gettimeofday, hoping the harness's timer binds
 * to them.
 * In the worker's dlopen(RTLD_LOCAL) they would bind only this library's own calls, but nothing
 * honest defines libc's names: the gate refuses the export. Expected: rejected:interpose. */
#define _POSIX_C_SOURCE 200809L
#include <cudal1/solution.h>
#include <sys/time.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *ts) {
  (void)id;
  ts->tv_sec = 1;
  ts->tv_nsec = 0;
  return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  (void)tz;
  tv->tv_sec = 1;
  tv->tv_usec = 0;
  return 0;
}

static int64_t numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  int64_t n = numel(&c->inputs[0]);
  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
  return 0;
}
