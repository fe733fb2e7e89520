/* spare.c — ready worker processes by kind, kept topped up by filler threads (spare.h). Two by
 * default: the driver creates about two contexts at once before it serialises
 * (ctx-parallel.json); cl1_spare_set_fillers changes that for measuring. */
#include "spare.h"
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "../base/err.h"
#include "../worker/proto.h"

#define KINDS_CAP 16
#define READY_CAP 8
#define FILLERS_DEFAULT 2
#define FILLERS_CAP 8
#define OPEN_TIMEOUT_S 60.0
#define RETRY_AFTER_S 5.0   /* after a failed start, before that kind is tried again */

typedef struct {
  char *exe, *gpu, *backend, *preload;
  cl1_wproc ready[READY_CAP];
  int n_ready, n_starting;
  double failed_at;
} kind;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static kind g_kinds[KINDS_CAP];
static int g_n_kinds, g_max;
static bool g_stop;
static int g_n_fillers;  /* started (0: not yet) */
static int g_want_fillers = FILLERS_DEFAULT;
static double g_wait_s;  /* how long a take waits for the fillers (cl1_spare_set_wait) */
static pthread_t g_fillers[FILLERS_CAP];
static long g_used, g_started, g_failed;

static bool same(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

static char *dup0(const char *s) { return strdup(s ? s : ""); }

/* The kind's slot (caller holds g_mu), added when new; NULL when the table is full. */
static kind *kind_of(const cl1_spare_kind *k) {
  for (int i = 0; i < g_n_kinds; i++) {
    kind *x = &g_kinds[i];
    if (same(x->exe, k->exe) && same(x->gpu, k->gpu) && same(x->backend, k->backend) &&
        same(x->preload, k->preload))
      return x;
  }
  if (g_n_kinds == KINDS_CAP) return NULL;
  kind *x = &g_kinds[g_n_kinds];
  memset(x, 0, sizeof *x);
  x->exe = dup0(k->exe), x->gpu = dup0(k->gpu), x->backend = dup0(k->backend);
  x->preload = dup0(k->preload);
  if (!x->exe || !x->gpu || !x->backend || !x->preload) {
    free(x->exe), free(x->gpu), free(x->backend), free(x->preload);
    return NULL;
  }
  g_n_kinds++;
  return x;
}

/* Whether x is short of spares and not cooling off after a failure (caller holds g_mu). */
static bool short_of(const kind *x) {
  return x->n_ready + x->n_starting < g_max && cl1_now() - x->failed_at > RETRY_AFTER_S;
}

/* A kind a filler should start a spare of (caller holds g_mu). */
static kind *wanting(void) {
  for (int i = 0; i < g_n_kinds; i++)
    if (short_of(&g_kinds[i])) return &g_kinds[i];
  return NULL;
}

/* One spare of kind x started and opened, outside the lock. 0, or -1 (w let go). */
static int start_one(const kind *x, cl1_wproc *w) {
  cl1_err err = {{0}};
  if (cl1_wproc_spawn(w, x->exe, 0, "spare", x->gpu[0] ? x->gpu : NULL, &err)) {
    cl1_log_debug("spare: %s", err.msg);
    cl1_wproc_close(w);
    return -1;
  }
  cJSON *m = cJSON_CreateObject(), *reply = NULL;
  cJSON_AddStringToObject(m, "backend", x->backend);
  if (x->preload[0]) cJSON_AddStringToObject(m, "preload", x->preload);
  cl1_wstatus s = cl1_wproc_call(w, CL1_MSG_OPEN, m, OPEN_TIMEOUT_S, &reply);
  cJSON_Delete(m);
  cJSON_Delete(reply);
  if (s == CL1_W_OK) return 0;
  cl1_log_debug("spare: open failed: %s", w->msg);
  cl1_wproc_kill(w);
  return -1;
}

static void *filler(void *arg) {
  (void)arg;
  pthread_mutex_lock(&g_mu);
  for (;;) {
    kind *x;
    while (!g_stop && !(x = wanting())) {
      /* a kind cooling off is looked at again when its time is up */
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      ts.tv_sec += 1;
      pthread_cond_timedwait(&g_cv, &g_mu, &ts);
    }
    if (g_stop) break;
    x->n_starting++;
    pthread_mutex_unlock(&g_mu);
    cl1_wproc w;
    int rc = start_one(x, &w);
    pthread_mutex_lock(&g_mu);
    x->n_starting--;
    pthread_cond_broadcast(&g_cv);  /* a take waiting for this start (ready, or not coming) */
    if (rc) {
      x->failed_at = cl1_now();
      g_failed++;
    } else if (g_stop || x->n_ready >= g_max || x->n_ready == READY_CAP) {
      pthread_mutex_unlock(&g_mu);
      cl1_wproc_close(&w);
      pthread_mutex_lock(&g_mu);
    } else {
      x->ready[x->n_ready++] = w;
      g_started++;
    }
  }
  pthread_mutex_unlock(&g_mu);
  return NULL;
}

/* Whether a waiting spare is still alive and unspoken to since its OPEN; one that died is
 * reaped here (its pid cleared, so nothing signals a pid the system may reuse). */
static bool alive(cl1_wproc *w) {
  int st;
  if (w->pid > 0 && waitpid(w->pid, &st, WNOHANG) == w->pid) w->pid = -1;
  return w->pid > 0 && w->last == CL1_W_OK && !w->awaiting;
}

/* The fillers started, once (caller holds g_mu). */
static void start_fillers(void) {
  assert(g_want_fillers >= 1 && g_want_fillers <= FILLERS_CAP);
  while (g_n_fillers < g_want_fillers &&
         !pthread_create(&g_fillers[g_n_fillers], NULL, filler, NULL))
    g_n_fillers++;
}

void cl1_spare_want(const cl1_spare_kind *k) {
  pthread_mutex_lock(&g_mu);
  if (g_max > 0 && !g_stop && kind_of(k)) {
    start_fillers();
    pthread_cond_broadcast(&g_cv);
  }
  pthread_mutex_unlock(&g_mu);
}

/* Whether the fillers are at work on x or will be once woken: a take may wait for them rather
 * than start a context of its own beside theirs (caller holds g_mu). A kind cooling off after a
 * failed start is not: its evaluation spawns, and reports the machine's failure. */
static bool being_filled(const kind *x) { return x->n_starting > 0 || short_of(x); }

/* The newest ready spare of x that is still alive into *w; the dead ones into dead[] (caller
 * holds g_mu). */
static bool take_ready(kind *x, cl1_wproc *w, cl1_wproc *dead, int *n_dead) {
  while (x->n_ready > 0) {
    cl1_wproc c = x->ready[--x->n_ready];  /* the newest: the likeliest to be alive */
    if (alive(&c)) {
      *w = c;
      g_used++;
      return true;
    }
    assert(*n_dead < READY_CAP);
    dead[(*n_dead)++] = c;
  }
  return false;
}

/* Wakes the fillers and waits on g_cv for a change, until the deadline (cl1_now's clock; caller
 * holds g_mu). false once the deadline has passed. */
static bool wait_until(double deadline) {
  double left = deadline - cl1_now();
  if (left <= 0) return false;
  pthread_cond_broadcast(&g_cv);  /* an idle filler starts one */
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  long long ns = (long long)ts.tv_nsec + (long long)((left - (double)(long long)left) * 1e9);
  ts.tv_sec += (time_t)left + (time_t)(ns / 1000000000LL);
  ts.tv_nsec = (long)(ns % 1000000000LL);
  pthread_cond_timedwait(&g_cv, &g_mu, &ts);
  return true;
}

bool cl1_spare_take(const cl1_spare_kind *k, cl1_wproc *w, double *waited_s) {
  cl1_wproc dead[READY_CAP];
  int n_dead = 0;
  bool got = false;
  double t0 = cl1_now();
  pthread_mutex_lock(&g_mu);
  kind *x = g_max > 0 && !g_stop ? kind_of(k) : NULL;
  if (x) {
    start_fillers();
    double deadline = t0 + g_wait_s;
    /* stops at a dead spare too: something kills them, and the evaluation spawns its own */
    while (!(got = take_ready(x, w, dead, &n_dead)) && !g_stop && being_filled(x) &&
           n_dead == 0 && wait_until(deadline))
      ;
    pthread_cond_broadcast(&g_cv);  /* the filler tops the kind up */
  }
  pthread_mutex_unlock(&g_mu);
  for (int i = 0; i < n_dead; i++) cl1_wproc_kill(&dead[i]);
  if (waited_s) *waited_s = cl1_now() - t0;
  return got;
}

/* Every waiting spare let go (caller does not hold g_mu). */
static void drain(void) {
  for (;;) {
    cl1_wproc w;
    bool any = false;
    pthread_mutex_lock(&g_mu);
    for (int i = 0; i < g_n_kinds && !any; i++)
      if (g_kinds[i].n_ready > 0) w = g_kinds[i].ready[--g_kinds[i].n_ready], any = true;
    pthread_mutex_unlock(&g_mu);
    if (!any) return;
    cl1_wproc_close(&w);
  }
}

void cl1_spare_set_max(int n) {
  pthread_mutex_lock(&g_mu);
  g_max = n < 0 ? 0 : n > READY_CAP ? READY_CAP : n;
  pthread_mutex_unlock(&g_mu);
  if (n <= 0) drain();
}

void cl1_spare_set_wait(double s) {
  pthread_mutex_lock(&g_mu);
  g_wait_s = s > 0 ? s : 0;
  pthread_mutex_unlock(&g_mu);
}

int cl1_spare_set_fillers(int n) {
  pthread_mutex_lock(&g_mu);
  bool ok = n >= 1 && n <= FILLERS_CAP && g_n_fillers == 0;
  if (ok) g_want_fillers = n;
  pthread_mutex_unlock(&g_mu);
  return ok ? 0 : -1;
}

void cl1_spare_close(void) {
  pthread_mutex_lock(&g_mu);
  g_stop = true;
  int n = g_n_fillers;
  pthread_cond_broadcast(&g_cv);
  pthread_mutex_unlock(&g_mu);
  for (int i = 0; i < n; i++) pthread_join(g_fillers[i], NULL);
  drain();
  pthread_mutex_lock(&g_mu);
  for (int i = 0; i < g_n_kinds; i++) {
    assert(g_kinds[i].n_ready == 0 && g_kinds[i].n_starting == 0);
    free(g_kinds[i].exe), free(g_kinds[i].gpu), free(g_kinds[i].backend), free(g_kinds[i].preload);
  }
  g_n_kinds = 0;
  g_n_fillers = 0;
  g_want_fillers = FILLERS_DEFAULT;
  g_wait_s = 0;
  g_stop = false;
  pthread_mutex_unlock(&g_mu);
}

int cl1_spare_fillers(void) {
  pthread_mutex_lock(&g_mu);
  int n = g_n_fillers;
  pthread_mutex_unlock(&g_mu);
  return n;
}

void cl1_spare_counts(long *used, long *started, long *failed) {
  pthread_mutex_lock(&g_mu);
  *used = g_used, *started = g_started, *failed = g_failed;
  pthread_mutex_unlock(&g_mu);
}
