/* refpool.c — the idle reference workers of a long-lived judge, by key, least recently used
 * first out. See refpool.h for why this is sound. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "refpool.h"
#include "../base/err.h"

#define POOL_CAP 64

typedef struct {
  char *key;
  cl1_wproc w;
  cl1_refpool_info info;
  double used;
} entry;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static entry g_pool[POOL_CAP];
static int g_n, g_max = 16;
static long g_reused, g_started;

static bool fit(const cl1_wproc *w) {
  return w->pid > 0 && w->last == CL1_W_OK && !w->awaiting && !w->paused && !w->quit_sent;
}

/* Removes entry i (caller holds g_mu), its worker moved to *w. */
static void take_at(int i, cl1_wproc *w, cl1_refpool_info *info) {
  *w = g_pool[i].w;
  if (info) *info = g_pool[i].info;
  free(g_pool[i].key);
  g_pool[i] = g_pool[--g_n];
}

bool cl1_refpool_take(const char *key, cl1_wproc *w, cl1_refpool_info *info) {
  pthread_mutex_lock(&g_mu);
  int best = -1;
  for (int i = 0; i < g_n; i++)
    if (!strcmp(g_pool[i].key, key) && (best < 0 || g_pool[i].used > g_pool[best].used)) best = i;
  if (best >= 0) {
    take_at(best, w, info);
    g_reused++;
  }
  pthread_mutex_unlock(&g_mu);
  return best >= 0;
}

void cl1_refpool_count_start(void) {
  pthread_mutex_lock(&g_mu);
  g_started++;
  pthread_mutex_unlock(&g_mu);
}

void cl1_refpool_put(const char *key, cl1_wproc *w, const cl1_refpool_info *info) {
  cl1_wproc out = {.pid = -1};
  bool let_go = !fit(w);
  pthread_mutex_lock(&g_mu);
  if (!let_go && g_max > 0) {
    if (g_n >= g_max || g_n == POOL_CAP) {  /* the least recently used makes room */
      int lru = 0;
      for (int i = 1; i < g_n; i++)
        if (g_pool[i].used < g_pool[lru].used) lru = i;
      take_at(lru, &out, NULL);
    }
    char *k = strdup(key);
    if (k) {
      g_pool[g_n++] = (entry){.key = k, .w = *w, .info = *info, .used = cl1_now()};
      w->pid = -1;  /* the pool's now */
    }
  }
  pthread_mutex_unlock(&g_mu);
  if (out.pid > 0) cl1_wproc_release(&out, false);
  if (w->pid > 0) cl1_wproc_release(w, !fit(w));
}

void cl1_refpool_close(void) {
  for (;;) {
    cl1_wproc w = {.pid = -1};
    pthread_mutex_lock(&g_mu);
    bool any = g_n > 0;
    if (any) take_at(g_n - 1, &w, NULL);
    pthread_mutex_unlock(&g_mu);
    if (!any) return;
    cl1_wproc_quit(&w);
    cl1_wproc_close(&w);
  }
}

void cl1_refpool_set_max(int n) {
  pthread_mutex_lock(&g_mu);
  g_max = n < 0 ? 0 : n > POOL_CAP ? POOL_CAP : n;
  pthread_mutex_unlock(&g_mu);
  if (n <= 0) cl1_refpool_close();
}

void cl1_refpool_counts(long *reused, long *started) {
  pthread_mutex_lock(&g_mu);
  *reused = g_reused;
  *started = g_started;
  pthread_mutex_unlock(&g_mu);
}
