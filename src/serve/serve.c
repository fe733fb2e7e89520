/* serve.c — `cudal1 serve` started and stopped: the store and the reward statistics beside it,
 * the compile threads (compiles overlap evaluations) and the evaluation threads (one on CUDA:
 * timing is exclusive on the GPU), the queues between them, a batch's wait for its items, and
 * the drain on SIGINT/SIGTERM: stop accepting, finish every accepted item, close the store. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>
#include "serve_int.h"
#include "../base/proc.h"
#include "../eval/compile.h"
#include "../task/task.h"

void cl1_serve_opts_default(cl1_serve_opts *o) {
  memset(o, 0, sizeof *o);
  o->bind = "127.0.0.1";
  o->port = CL1_SERVE_DEFAULT_PORT;
  o->db = "cudal1.db";
  cl1_eval_opts_default(&o->eval);
  o->workers = 1;
  o->compile_jobs = 2;
  o->max_queue = 4096;
  o->max_items = 1024;
  o->max_body = (size_t)16 << 20;
  o->idle_timeout_s = 30;
}

bool cl1_serve_is_loopback(const char *bind) {
  unsigned char a[16];
  if (!strcmp(bind, "localhost")) return true;
  if (inet_pton(AF_INET, bind, a) == 1) return a[0] == 127;
  if (inet_pton(AF_INET6, bind, a) == 1) return !strcmp(bind, "::1") || !memcmp(a, in6addr_loopback.s6_addr, 16);
  return false;
}

/* ---- queues (caller holds mu) --------------------------------------------------------------- */

static void q_push(cl1_serve_item **head, cl1_serve_item **tail, cl1_serve_item *it) {
  it->next = NULL;
  if (*tail) (*tail)->next = it;
  else *head = it;
  *tail = it;
}

static cl1_serve_item *q_pop(cl1_serve_item **head, cl1_serve_item **tail) {
  cl1_serve_item *it = *head;
  if (!it) return NULL;
  *head = it->next;
  if (!*head) *tail = NULL;
  it->next = NULL;
  return it;
}

static void q_remove(cl1_serve_item **head, cl1_serve_item **tail, cl1_serve_item *it) {
  cl1_serve_item *prev = NULL;
  for (cl1_serve_item *p = *head; p; prev = p, p = p->next) {
    if (p != it) continue;
    if (prev) prev->next = p->next;
    else *head = p->next;
    if (*tail == p) *tail = prev;
    p->next = NULL;
    return;
  }
}

/* The item has its answer: its batch learns it. Caller holds mu. */
static void item_done(cl1_serve *svc, cl1_serve_item *it) {
  it->state = CL1_ITEM_DONE;
  if (it->path[0]) unlink(it->path);
  it->path[0] = 0;
  it->batch->pending--;
  pthread_cond_broadcast(&svc->cv);
}

/* ---- the pipeline --------------------------------------------------------------------------- */

/* A compile ahead of the evaluation (the evaluator then finds it in the cache); a compile error
 * is the evaluation's verdict, not handled here. */
static void *compile_thread(void *arg) {
  cl1_serve *svc = arg;
  pthread_mutex_lock(&svc->mu);
  for (;;) {
    while (!svc->cq_head && !svc->shutdown) pthread_cond_wait(&svc->cv, &svc->mu);
    if (!svc->cq_head) break;
    cl1_serve_item *it = q_pop(&svc->cq_head, &svc->cq_tail);
    it->state = CL1_ITEM_COMPILING;
    svc->compiling++;
    pthread_mutex_unlock(&svc->mu);
    cl1_compile_opts co = {.backend = svc->o->eval.backend};
    cl1_compile_result cr;
    cl1_err e = {{0}};
    (void)cl1_compile_file(it->path, &co, &cr, &e);
    pthread_mutex_lock(&svc->mu);
    svc->compiling--;
    if (it->cancel) {  /* its request's deadline passed meanwhile (expire) */
      svc->queued--;
      pthread_mutex_unlock(&svc->mu);
      cl1_serve_infra(svc, it, "deadline_s passed before it was evaluated");
      pthread_mutex_lock(&svc->mu);
      svc->infra_errors++;
      item_done(svc, it);
    } else {
      it->state = CL1_ITEM_Q_EVAL;
      q_push(&svc->eq_head, &svc->eq_tail, it);
    }
    pthread_cond_broadcast(&svc->cv);
  }
  pthread_mutex_unlock(&svc->mu);
  return NULL;
}

static void *eval_thread(void *arg) {
  cl1_serve *svc = arg;
  pthread_mutex_lock(&svc->mu);
  for (;;) {
    while (!svc->eq_head && !svc->shutdown) pthread_cond_wait(&svc->cv, &svc->mu);
    if (!svc->eq_head) break;
    cl1_serve_item *it = q_pop(&svc->eq_head, &svc->eq_tail);
    it->state = CL1_ITEM_EVALUATING;
    svc->queued--;
    svc->evaluating++;
    pthread_mutex_unlock(&svc->mu);
    double t0 = cl1_now();
    cl1_serve_evaluate(svc, it);
    double dt = cl1_now() - t0;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(it->result, "status");
    pthread_mutex_lock(&svc->mu);
    svc->evaluating--;
    svc->evaluations++;
    svc->eval_seconds += dt;
    if (cJSON_IsString(st) && strcmp(st->valuestring, "ok")) svc->infra_errors++;
    item_done(svc, it);
  }
  pthread_mutex_unlock(&svc->mu);
  return NULL;
}

/* ---- a batch -------------------------------------------------------------------------------- */

void cl1_serve_batch_free(cl1_serve_batch *b) {
  if (!b) return;
  for (int i = 0; i < b->n; i++) {
    cl1_serve_item *it = &b->items[i];
    if (it->path[0]) unlink(it->path);
    free(it->id_json), free(it->code), free(it->completion), free(it->meta_json);
    cJSON_Delete(it->result);
  }
  free(b->items);
  free(b);
}

/* Seconds until the queue has room, roughly: what is queued at the mean evaluation time. */
static int retry_after(const cl1_serve *svc) {
  double mean = svc->evaluations ? svc->eval_seconds / (double)svc->evaluations : 1.0;
  double s = ceil(mean * (double)svc->queued / (double)(svc->o->workers > 0 ? svc->o->workers : 1));
  return s < 1 ? 1 : s > 600 ? 600 : (int)s;
}

/* Deadline: items not yet evaluating are answered infra_error (a retry finds the evaluated ones
 * in the store). Caller holds mu; drops it around the store writes. */
static void expire(cl1_serve *svc, cl1_serve_batch *b) {
  for (int i = 0; i < b->n; i++) {
    cl1_serve_item *it = &b->items[i];
    if (it->state == CL1_ITEM_COMPILING) it->cancel = true;
    if (it->state != CL1_ITEM_Q_COMPILE && it->state != CL1_ITEM_Q_EVAL) continue;
    if (it->state == CL1_ITEM_Q_COMPILE) q_remove(&svc->cq_head, &svc->cq_tail, it);
    else q_remove(&svc->eq_head, &svc->eq_tail, it);
    svc->queued--;
    it->state = CL1_ITEM_EVALUATING;  /* out of every queue while its answer is written */
    pthread_mutex_unlock(&svc->mu);
    cl1_serve_infra(svc, it, "deadline_s passed before it was evaluated");
    pthread_mutex_lock(&svc->mu);
    svc->infra_errors++;
    item_done(svc, it);
  }
}

static void wait_batch(cl1_serve *svc, cl1_serve_batch *b, double deadline_s) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  double end = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + deadline_s;
  until.tv_sec = (time_t)end;
  until.tv_nsec = (long)((end - floor(end)) * 1e9);
  bool expired = false;
  while (b->pending > 0) {
    if (deadline_s <= 0 || expired) {
      pthread_cond_wait(&svc->cv, &svc->mu);
    } else if (pthread_cond_timedwait(&svc->cv, &svc->mu, &until) == ETIMEDOUT) {
      expired = true;
      expire(svc, b);
    }
  }
}

int cl1_serve_batch_run(cl1_serve *svc, cl1_serve_batch *b, double deadline_s, int *retry) {
  int need = 0;
  for (int i = 0; i < b->n; i++)
    if (b->items[i].state == CL1_ITEM_Q_COMPILE) need++;
  pthread_mutex_lock(&svc->mu);
  svc->requests++;
  if (svc->stopping || (need && svc->queued + need > svc->o->max_queue)) {
    *retry = svc->stopping ? 5 : retry_after(svc);
    svc->rejected++;
    pthread_mutex_unlock(&svc->mu);
    return 503;
  }
  svc->items += b->n;
  svc->active_requests++;
  b->pending = need;
  for (int i = 0; i < b->n; i++) {
    cl1_serve_item *it = &b->items[i];
    if (it->cached) svc->cache_hits++;
    if (it->state != CL1_ITEM_Q_COMPILE) continue;
    it->batch = b;
    svc->queued++;
    q_push(&svc->cq_head, &svc->cq_tail, it);
  }
  pthread_cond_broadcast(&svc->cv);
  wait_batch(svc, b, deadline_s);
  pthread_mutex_unlock(&svc->mu);
  return 200;
}

void cl1_serve_request_done(cl1_serve *svc) {
  pthread_mutex_lock(&svc->mu);
  svc->active_requests--;
  pthread_cond_broadcast(&svc->cv);
  pthread_mutex_unlock(&svc->mu);
}

cJSON *cl1_serve_stats(cl1_serve *svc) {
  cJSON *s = cJSON_CreateObject();
  pthread_mutex_lock(&svc->mu);
  double up = cl1_now() - svc->started;
  cJSON_AddNumberToObject(s, "queue", svc->queued);
  cJSON_AddNumberToObject(s, "compiling", svc->compiling);
  cJSON_AddNumberToObject(s, "in_flight", svc->evaluating);
  cJSON_AddNumberToObject(s, "requests", (double)svc->requests);
  cJSON_AddNumberToObject(s, "items", (double)svc->items);
  cJSON_AddNumberToObject(s, "evaluations", (double)svc->evaluations);
  cJSON_AddNumberToObject(s, "cache_hits", (double)svc->cache_hits);
  cJSON_AddNumberToObject(s, "infra_errors", (double)svc->infra_errors);
  cJSON_AddNumberToObject(s, "rejected", (double)svc->rejected);
  cJSON_AddNumberToObject(s, "evaluations_per_s", up > 0 ? (double)svc->evaluations / up : 0);
  cJSON_AddNumberToObject(s, "mean_eval_s",
                          svc->evaluations ? svc->eval_seconds / (double)svc->evaluations : 0);
  cJSON_AddNumberToObject(s, "workers", svc->o->workers);
  cJSON_AddNumberToObject(s, "uptime_s", up);
  cJSON_AddStringToObject(s, "backend", cl1_backend_name(svc->o->eval.backend));
  cJSON_AddStringToObject(s, "shapes", cl1_shapes_name(svc->o->eval.shapes));
  pthread_mutex_unlock(&svc->mu);
  return s;
}

/* ---- start and stop ------------------------------------------------------------------------- */

static int g_sigpipe[2] = {-1, -1};

static void on_signal(int sig) {
  char c = (char)sig;
  ssize_t w = write(g_sigpipe[1], &c, 1);
  (void)w;
}

/* SIGINT/SIGTERM wake the main thread through a pipe (no signal mask: the workers and compilers
 * the judge starts would inherit it). */
static int signals_install(cl1_err *err) {
  if (pipe2(g_sigpipe, O_CLOEXEC)) return cl1_err_set(err, "pipe: %s", strerror(errno));
  struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  return 0;
}

static void signals_wait(void) {
  char c;
  while (read(g_sigpipe[0], &c, 1) < 0 && errno == EINTR) {}
}

static int open_state(cl1_serve *svc, cl1_err *err) {
  if (cl1_store_open(svc->o->db, &svc->store, err)) return 3;
  snprintf(svc->stats_path, sizeof svc->stats_path, "%s.reward-stats.json", svc->o->db);
  const char *tmp = getenv("TMPDIR");
  snprintf(svc->tmpdir, sizeof svc->tmpdir, "%s/cudal1-serve.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(svc->tmpdir)) {
    svc->tmpdir[0] = 0;
    return cl1_err_set(err, "cannot create a folder under %s: %s", tmp && *tmp ? tmp : "/tmp",
                       strerror(errno)), 3;
  }
  /* the GPU's name is part of the protocol: evaluations on another GPU are not this one's */
  if (svc->o->eval.backend == CL1_BACKEND_CUDA) {
    if (cl1_proc_gpu_name(svc->device, sizeof svc->device, err)) return 3;
    if (!svc->device[0]) snprintf(svc->device, sizeof svc->device, "cuda");
  } else {
    snprintf(svc->device, sizeof svc->device, "host");
  }
  svc->protocol = cl1_serve_protocol(svc->o, svc->device);
  return svc->protocol ? 0 : (cl1_err_set(err, "out of memory"), 3);
}

static int rm_entry(const char *p, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb, (void)ftw;
  return type == FTW_DP ? rmdir(p) : unlink(p);
}

static void close_state(cl1_serve *svc) {
  cl1_store_close(svc->store);
  if (svc->tmpdir[0]) nftw(svc->tmpdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
  cl1_serve_tasks_free(svc);
  free(svc->protocol);
}

/* Stop accepting, let every accepted item finish and its request answer, then stop. */
static void drain(cl1_serve *svc, struct MHD_Daemon *d) {
  pthread_mutex_lock(&svc->mu);
  svc->stopping = true;
  pthread_mutex_unlock(&svc->mu);
  MHD_socket ls = MHD_quiesce_daemon(d);
  if (ls != MHD_INVALID_SOCKET) close(ls);
  pthread_mutex_lock(&svc->mu);
  while (svc->active_requests > 0) pthread_cond_wait(&svc->cv, &svc->mu);
  pthread_mutex_unlock(&svc->mu);
  MHD_stop_daemon(d);
}

/* The threads of the pipeline; how many started (the caller joins them). */
static int start_threads(cl1_serve *svc, pthread_t *th, int max) {
  int n = 0;
  for (int i = 0; i < svc->o->compile_jobs && n < max; i++)
    if (!pthread_create(&th[n], NULL, compile_thread, svc)) n++;
  int evals = svc->o->eval.backend == CL1_BACKEND_CUDA ? 1 : svc->o->workers;
  for (int i = 0; i < evals && n < max; i++)
    if (!pthread_create(&th[n], NULL, eval_thread, svc)) n++;
  return n;
}

int cl1_serve_run(const cl1_serve_opts *o, FILE *announce, cl1_err *err) {
  cl1_serve svc = {.o = o, .started = cl1_now()};
  pthread_mutex_init(&svc.mu, NULL);
  pthread_cond_init(&svc.cv, NULL);
  pthread_mutex_init(&svc.task_mu, NULL);
  int rc = signals_install(err) ? 3 : open_state(&svc, err);
  pthread_t th[256];
  int n_th = rc ? 0 : start_threads(&svc, th, 256);
  int port = 0;
  struct MHD_Daemon *d = rc ? NULL : cl1_serve_http_start(&svc, &port, err);
  if (!rc && !d) rc = 3;
  if (d) {
    fprintf(announce, "cudal1 serve: listening on http://%s%s%s:%d (%s, %s shapes, store %s)\n",
            strchr(o->bind, ':') ? "[" : "", o->bind, strchr(o->bind, ':') ? "]" : "", port,
            cl1_backend_name(o->eval.backend), cl1_shapes_name(o->eval.shapes), o->db);
    fflush(announce);
    signals_wait();
    fprintf(stderr, "cudal1 serve: stopping: finishing the items accepted\n");
    drain(&svc, d);
  }
  pthread_mutex_lock(&svc.mu);
  svc.shutdown = true;
  pthread_cond_broadcast(&svc.cv);
  pthread_mutex_unlock(&svc.mu);
  for (int i = 0; i < n_th; i++) pthread_join(th[i], NULL);
  close_state(&svc);
  return rc;
}
