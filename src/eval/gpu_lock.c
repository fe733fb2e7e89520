/* gpu_lock.c — a readers-writer lock with writer preference and hold accounting (gpu_lock.h).
 * Not pthread_rwlock: it keeps no count of how long it was held, and its writer preference is a
 * glibc extension. */
#include "gpu_lock.h"
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "../base/err.h"

void cl1_gpu_lock_init(cl1_gpu_lock *g, int index, const char *visible) {
  memset(g, 0, sizeof *g);
  g->index = index;
  snprintf(g->visible, sizeof g->visible, "%s", visible ? visible : "");
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->cv, NULL);
}

void cl1_gpu_lock_destroy(cl1_gpu_lock *g) {
  assert(!g->writer && g->readers == 0 && g->writers_waiting == 0);
  pthread_mutex_destroy(&g->mu);
  pthread_cond_destroy(&g->cv);
}

static bool is_free(const cl1_gpu_lock *g) { return !g->writer && g->readers == 0; }

void cl1_gpu_lock_take(cl1_gpu_lock *g, cl1_gpu_mode mode) {
  pthread_mutex_lock(&g->mu);
  if (mode == CL1_GPU_EXCLUSIVE) {
    g->writers_waiting++;
    while (!is_free(g)) pthread_cond_wait(&g->cv, &g->mu);
    g->writers_waiting--;
    g->writer = true;
    g->timed_since = cl1_now();
    g->held_since = g->timed_since;
  } else {
    while (g->writer || g->writers_waiting > 0) pthread_cond_wait(&g->cv, &g->mu);
    if (g->readers++ == 0) g->held_since = cl1_now();
  }
  pthread_mutex_unlock(&g->mu);
}

void cl1_gpu_lock_give(cl1_gpu_lock *g, cl1_gpu_mode mode) {
  pthread_mutex_lock(&g->mu);
  double now = cl1_now();
  if (mode == CL1_GPU_EXCLUSIVE) {
    assert(g->writer && g->readers == 0);
    g->writer = false;
    g->timed_s += now - g->timed_since;
    g->held_s += now - g->held_since;
    g->timings++;
  } else {
    assert(!g->writer && g->readers > 0);
    if (--g->readers == 0) g->held_s += now - g->held_since;
  }
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
}

bool cl1_gpu_lock_timing_waits(cl1_gpu_lock *g) {
  pthread_mutex_lock(&g->mu);
  bool w = g->writers_waiting > 0;
  pthread_mutex_unlock(&g->mu);
  return w;
}

void cl1_gpu_lock_usage(cl1_gpu_lock *g, double *held_s, double *timed_s, long *timings) {
  pthread_mutex_lock(&g->mu);
  double now = cl1_now();
  *held_s = g->held_s + (is_free(g) ? 0 : now - g->held_since);
  *timed_s = g->timed_s + (g->writer ? now - g->timed_since : 0);
  *timings = g->timings;
  pthread_mutex_unlock(&g->mu);
}
