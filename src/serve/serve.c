/* serve.c — `cudal1 serve` started and stopped: the store and the reward statistics beside it,
 * the compile threads (compiles overlap evaluations) and the evaluation threads (on CUDA,
 * --overlap of them per GPU of --gpus, sharing that GPU through its gpu_lock: only timing holds
 * it alone), the queues between them, a batch's wait for its items, and the drain on
 * SIGINT/SIGTERM: stop accepting, finish every accepted item, close the store. */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <microhttpd.h>
#include "serve_int.h"
#include "../base/file.h"
#include "../eval/pybuild.h"
#include "../base/proc.h"
#include "../eval/compile.h"
#include "../eval/refpool.h"
#include "../eval/spare.h"
#include "../task/task.h"

void cl1_serve_opts_default(cl1_serve_opts *o) {
  memset(o, 0, sizeof *o);
  o->bind = "127.0.0.1";
  o->port = CL1_SERVE_DEFAULT_PORT;
  o->db = "cudal1.db";
  cl1_eval_opts_default(&o->eval);
  o->workers = 1;
  o->overlap = 4;
  o->spares = -1;
  /* nvcc runs one core at a time, mostly: half the machine compiles ahead of the judges */
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o->compile_jobs = cpus >= 4 ? (int)(cpus / 2 < 16 ? cpus / 2 : 16) : 2;
  o->max_queue = 4096;
  o->max_items = 1024;
  o->max_body = (size_t)16 << 20;
  o->idle_timeout_s = 30;
  o->eval.reuse_ref = true;  /* a long-lived judge: reference workers kept (refpool.h) */
  o->max_jobs = 256;
  o->job_ttl_s = 3600;
}

bool cl1_serve_is_loopback(const char *bind) {
  unsigned char a[16];
  if (!strcmp(bind, "localhost")) return true;
  if (inet_pton(AF_INET, bind, a) == 1) return a[0] == 127;
  if (inet_pton(AF_INET6, bind, a) == 1) return !strcmp(bind, "::1") || !memcmp(a, in6addr_loopback.s6_addr, 16);
  return false;
}

int cl1_serve_parse_gpus(cl1_serve_opts *o, const char *list, cl1_err *err) {
  o->n_gpus = 0;
  const char *p = list;
  for (;;) {
    char *end;
    long g = strtol(p, &end, 10);
    if (end == p || (*end && *end != ',') || g < 0 || g > 63)
      return cl1_err_set(err, "--gpus %s: '%.*s' is not a GPU index (0..63)", list,
                         (int)strcspn(p, ","), p), 2;
    for (int i = 0; i < o->n_gpus; i++)
      if (o->gpus[i] == g) return cl1_err_set(err, "--gpus %s: GPU %ld twice", list, g), 2;
    if (o->n_gpus == CL1_SERVE_MAX_GPUS)
      return cl1_err_set(err, "--gpus %s: more than %d GPUs", list, CL1_SERVE_MAX_GPUS), 2;
    o->gpus[o->n_gpus++] = (int)g;
    if (!*end) return 0;
    p = end + 1;
  }
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

/* ---- identical items in flight (caller holds mu) ----------------------------------------------- */

/* Queued, compiling or evaluating (its own evaluation, not a follower's wait). */
static bool in_flight(const cl1_serve_item *x) {
  return x->batch && x->state != CL1_ITEM_DONE && x->state != CL1_ITEM_FOLLOWING;
}

/* An item in flight with the same task and code: its evaluation will answer it too (a GRPO group
 * often holds the same reply several times; a retry may come while the first is in flight). */
static cl1_serve_item *find_leader(cl1_serve *svc, const cl1_serve_item *it) {
  for (cl1_serve_batch *b = svc->active; b; b = b->next_active)
    for (int i = 0; i < b->n; i++) {
      cl1_serve_item *x = &b->items[i];
      if (x != it && in_flight(x) && !strcmp(x->task->id, it->task->id) &&
          x->format == it->format && !strcmp(x->code, it->code))
        return x;
    }
  return NULL;
}

static void follow(cl1_serve_item *it, cl1_serve_item *leader) {
  it->state = CL1_ITEM_FOLLOWING;
  it->leader = leader;
  it->next_follower = leader->followers;
  leader->followers = it;
}

static void unfollow(cl1_serve_item *it) {
  cl1_serve_item **p = &it->leader->followers;
  while (*p && *p != it) p = &(*p)->next_follower;
  assert(*p == it);
  *p = it->next_follower;
  it->leader = it->next_follower = NULL;
}

/* A leader that will not be evaluated (its deadline passed): its followers queue on their own. */
static void release_followers(cl1_serve *svc, cl1_serve_item *leader) {
  while (leader->followers) {
    cl1_serve_item *f = leader->followers;
    unfollow(f);
    f->state = CL1_ITEM_Q_COMPILE;
    svc->queued++;
    q_push(&svc->cq_head, &svc->cq_tail, f);
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
    /* the task and shapes as the judge will give them: a Triton module's build warms at them */
    cl1_compile_opts co = {.backend = svc->o->eval.backend, .task = it->task->dir,
                           .shapes = svc->o->eval.shapes};
    cl1_compile_result cr;
    cl1_err e = {{0}};
    /* a Python module's build step (its load_inline kernels) is cached the same way */
    (void)cl1_compile_file(it->path, &co, &cr, &e);
    pthread_mutex_lock(&svc->mu);
    svc->compiling--;
    if (it->cancel) {  /* its request's deadline passed meanwhile (expire) */
      svc->queued--;
      release_followers(svc, it);
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

/* An evaluation thread and the GPU it evaluates on (NULL on the host). */
typedef struct {
  cl1_serve *svc;
  cl1_gpu_lock *gpu;
} eval_lane;

/* Followers of an evaluated leader: the store's answer (recorded for each, with its own meta), as
 * a retry would get it; after an infra_error (never stored), the same infra_error. Outside mu. */
static void answer_followers(cl1_serve *svc, cl1_serve_item *fs, bool stored) {
  while (fs) {
    cl1_serve_item *f = fs;
    fs = f->next_follower;
    f->next_follower = NULL;
    if (!stored || !cl1_serve_from_store(svc, f))
      cl1_serve_infra(svc, f, "the same code in flight beside it was not evaluated "
                              "(infrastructure); retry it");
    pthread_mutex_lock(&svc->mu);
    item_done(svc, f);
    pthread_mutex_unlock(&svc->mu);
  }
}

static void *eval_thread(void *arg) {
  eval_lane *lane = arg;
  cl1_serve *svc = lane->svc;
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
    cl1_serve_evaluate(svc, it, lane->gpu);
    double dt = cl1_now() - t0;
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(it->result, "status");
    pthread_mutex_lock(&svc->mu);
    svc->evaluating--;
    svc->evaluations++;
    svc->eval_seconds += dt;
    bool ok = cJSON_IsString(st) && !strcmp(st->valuestring, "ok");
    if (!ok) svc->infra_errors++;
    cl1_serve_item *fs = it->followers;
    for (cl1_serve_item *f = fs; f; f = f->next_follower) f->leader = NULL;
    it->followers = NULL;
    item_done(svc, it);
    pthread_mutex_unlock(&svc->mu);
    answer_followers(svc, fs, ok);  /* it->result may be gone: its request answered */
    pthread_mutex_lock(&svc->mu);
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
  int lanes = svc->o->eval.backend == CL1_BACKEND_CUDA ? svc->n_gpu : svc->o->workers;
  double s = ceil(mean * (double)svc->queued / (double)(lanes > 0 ? lanes : 1));
  return s < 1 ? 1 : s > 600 ? 600 : (int)s;
}

/* Deadline: items not yet evaluating are answered infra_error (a retry finds the evaluated ones
 * in the store). Caller holds mu; drops it around the store writes. */
static void expire(cl1_serve *svc, cl1_serve_batch *b) {
  for (int i = 0; i < b->n; i++) {
    cl1_serve_item *it = &b->items[i];
    if (it->state == CL1_ITEM_COMPILING) it->cancel = true;
    if (it->state == CL1_ITEM_FOLLOWING && it->leader) {
      unfollow(it);
      it->state = CL1_ITEM_EVALUATING;  /* out of every list while its answer is written */
      pthread_mutex_unlock(&svc->mu);
      cl1_serve_infra(svc, it, "deadline_s passed before it was evaluated");
      pthread_mutex_lock(&svc->mu);
      svc->infra_errors++;
      item_done(svc, it);
      continue;
    }
    if (it->state != CL1_ITEM_Q_COMPILE && it->state != CL1_ITEM_Q_EVAL) continue;
    if (it->state == CL1_ITEM_Q_COMPILE) q_remove(&svc->cq_head, &svc->cq_tail, it);
    else q_remove(&svc->eq_head, &svc->eq_tail, it);
    svc->queued--;
    release_followers(svc, it);
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

int cl1_serve_batch_admit(cl1_serve *svc, cl1_serve_batch *b, int *retry) {
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
  b->next_active = svc->active;
  svc->active = b;
  for (int i = 0; i < b->n; i++) {
    cl1_serve_item *it = &b->items[i];
    if (it->cached) svc->cache_hits++;
    if (it->state != CL1_ITEM_Q_COMPILE) continue;
    cl1_serve_item *leader = it->fresh ? NULL : find_leader(svc, it);
    it->batch = b;
    if (leader) {
      follow(it, leader);
      svc->followed++;
      continue;
    }
    svc->queued++;
    q_push(&svc->cq_head, &svc->cq_tail, it);
  }
  pthread_cond_broadcast(&svc->cv);
  pthread_mutex_unlock(&svc->mu);
  return 200;
}

void cl1_serve_batch_wait(cl1_serve *svc, cl1_serve_batch *b, double deadline_s) {
  pthread_mutex_lock(&svc->mu);
  wait_batch(svc, b, deadline_s);
  cl1_serve_batch **p = &svc->active;
  while (*p != b) p = &(*p)->next_active;
  *p = b->next_active;
  pthread_mutex_unlock(&svc->mu);
  cl1_serve_batch_settle(svc, b);
}

int cl1_serve_batch_run(cl1_serve *svc, cl1_serve_batch *b, double deadline_s, int *retry) {
  int st = cl1_serve_batch_admit(svc, b, retry);
  if (st == 200) cl1_serve_batch_wait(svc, b, deadline_s);
  return st;
}

int cl1_serve_batch_left(cl1_serve *svc, const cl1_serve_batch *b) {
  pthread_mutex_lock(&svc->mu);
  int n = b->pending;
  pthread_mutex_unlock(&svc->mu);
  return n;
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
  cJSON_AddNumberToObject(s, "followed", (double)svc->followed);
  cJSON_AddNumberToObject(s, "infra_errors", (double)svc->infra_errors);
  cJSON_AddNumberToObject(s, "rejected", (double)svc->rejected);
  cJSON_AddNumberToObject(s, "evaluations_per_s", up > 0 ? (double)svc->evaluations / up : 0);
  cJSON_AddNumberToObject(s, "mean_eval_s",
                          svc->evaluations ? svc->eval_seconds / (double)svc->evaluations : 0);
  cJSON_AddNumberToObject(s, "workers", svc->o->eval.backend == CL1_BACKEND_CUDA
                                         ? svc->n_gpu * svc->o->overlap : svc->o->workers);
  cJSON_AddNumberToObject(s, "uptime_s", up);
  long reused, started;
  cl1_refpool_counts(&reused, &started);
  cJSON *rw = cJSON_AddObjectToObject(s, "reference_workers");
  cJSON_AddNumberToObject(rw, "reused", (double)reused);
  cJSON_AddNumberToObject(rw, "started", (double)started);
  long used, sp_started, sp_failed;
  cl1_spare_counts(&used, &sp_started, &sp_failed);
  cJSON *sw = cJSON_AddObjectToObject(s, "spare_workers");
  cJSON_AddNumberToObject(sw, "used", (double)used);
  cJSON_AddNumberToObject(sw, "started", (double)sp_started);
  cJSON_AddNumberToObject(sw, "failed", (double)sp_failed);
  cJSON_AddNumberToObject(sw, "fillers", cl1_spare_fillers());
  cJSON_AddNumberToObject(sw, "wait_s", svc->o->spare_wait_s);
  /* per GPU: the share of the service's life it was held (loading, verifying, timing) and timed */
  cJSON *gs = cJSON_AddArrayToObject(s, "gpus");
  for (int i = 0; i < svc->n_gpu; i++) {
    double held, timed;
    long timings;
    cl1_gpu_lock_usage(&svc->gpu[i], &held, &timed, &timings);
    cJSON *g = cJSON_CreateObject();
    cJSON_AddNumberToObject(g, "index", svc->gpu[i].index);
    cJSON_AddNumberToObject(g, "busy_share", up > 0 ? held / up : 0);
    cJSON_AddNumberToObject(g, "timing_share", up > 0 ? timed / up : 0);
    cJSON_AddNumberToObject(g, "timings", (double)timings);
    cJSON_AddItemToArray(gs, g);
  }
  cJSON_AddStringToObject(s, "backend", cl1_backend_name(svc->o->eval.backend));
  cJSON_AddStringToObject(s, "shapes", cl1_shapes_name(svc->o->eval.shapes));
  pthread_mutex_unlock(&svc->mu);
  cl1_serve_jobs_stats(svc, s);  /* jobs_mu is never taken under mu */
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

/* The entry i of a comma-separated list into out; false when the list is shorter. */
static bool list_entry(const char *list, int i, char *out, size_t n) {
  const char *p = list;
  for (; i > 0; i--) {
    p = strchr(p, ',');
    if (!p) return false;
    p++;
  }
  size_t len = strcspn(p, ",");
  if (!len) return false;
  snprintf(out, n, "%.*s", (int)len, p);
  return true;
}

/* --gpus checked against the machine, a lock for each, and the GPUs' one name (the protocol's:
 * a service times one kind of GPU). Indices are nvidia-smi's, or positions in the service's own
 * $CUDA_VISIBLE_DEVICES when it has one; each GPU's workers see that GPU alone. 2 or 3 (err). */
static int open_gpus(cl1_serve *svc, cl1_err *err) {
  const cl1_serve_opts *o = svc->o;
  char names[64][128];
  int n = cl1_proc_gpu_names(names, 64, err);
  if (n < 0) return 3;
  const char *vis = getenv("CUDA_VISIBLE_DEVICES");
  snprintf(svc->device, sizeof svc->device, "%s", n > 0 ? names[0] : "cuda");
  if (o->n_gpus == 0) {  /* no --gpus: the first GPU the service's environment shows */
    cl1_gpu_lock_init(&svc->gpu[0], 0, NULL);
    svc->n_gpu = 1;
    return 0;
  }
  for (int i = 0; i < o->n_gpus; i++) {
    int g = o->gpus[i];
    char v[64];
    if (vis && *vis) {
      if (!list_entry(vis, g, v, sizeof v))
        return cl1_err_set(err, "--gpus: GPU %d is not in CUDA_VISIBLE_DEVICES=%s", g, vis), 2;
    } else {
      if (n > 0 && g >= n)
        return cl1_err_set(err, "--gpus: GPU %d: this machine has %d GPU%s (0..%d)", g, n,
                           n == 1 ? "" : "s", n - 1), 2;
      if (n > 0 && strcmp(names[g], names[o->gpus[0]]))
        return cl1_err_set(err, "--gpus: GPU %d is a %s, GPU %d a %s: a service times one kind "
                           "of GPU (start one per kind)", o->gpus[0], names[o->gpus[0]], g,
                           names[g]), 2;
      if (n > 0) snprintf(svc->device, sizeof svc->device, "%s", names[g]);
      snprintf(v, sizeof v, "%d", g);
    }
    cl1_gpu_lock_init(&svc->gpu[i], g, v);
  }
  svc->n_gpu = o->n_gpus;
  return 0;
}

/* Items' folders of services that died without their drain (kill -9, a crash): named
 * cudal1-serve.PID.XXXXXX, ours, and PID gone. A folder whose PID lives, or is another user's,
 * stays. */
static void sweep_dead_tmpdirs(const char *root) {
  DIR *d = opendir(root);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    if (strncmp(e->d_name, "cudal1-serve.", 13)) continue;
    long pid = strtol(e->d_name + 13, &end, 10);
    if (end == e->d_name + 13 || *end != '.' || pid <= 0) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", root, e->d_name);
    if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) continue;
    cl1_file_rm_tree(path);
  }
  closedir(d);
}

static int open_state(cl1_serve *svc, cl1_err *err) {
  if (cl1_store_open(svc->o->db, &svc->store, err)) return 3;
  /* the workers' python3 described now, before the threads that read the environment start
     (an evaluation asks again and reports a failure as its infra_error) */
  cl1_err pe = {{0}};
  if (cl1_pyenv_ensure(&pe)) cl1_log_debug("serve: Python solutions unavailable: %s", pe.msg);
  snprintf(svc->stats_path, sizeof svc->stats_path, "%s.reward-stats.json", svc->o->db);
  const char *tmp = getenv("TMPDIR");
  sweep_dead_tmpdirs(tmp && *tmp ? tmp : "/tmp");
  snprintf(svc->tmpdir, sizeof svc->tmpdir, "%s/cudal1-serve.%ld.XXXXXX", tmp && *tmp ? tmp : "/tmp",
           (long)getpid());
  if (!mkdtemp(svc->tmpdir)) {
    svc->tmpdir[0] = 0;
    return cl1_err_set(err, "cannot create a folder under %s: %s", tmp && *tmp ? tmp : "/tmp",
                       strerror(errno)), 3;
  }
  /* the GPU's name is part of the protocol: evaluations on another GPU are not this one's */
  if (svc->o->eval.backend == CL1_BACKEND_CUDA) {
    int rc = open_gpus(svc, err);
    if (rc) return rc;
  } else {
    snprintf(svc->device, sizeof svc->device, "host");
  }
  svc->protocol[CL1_FORMAT_CABI] = cl1_serve_protocol(svc->o, svc->device, CL1_FORMAT_CABI);
  svc->protocol[CL1_FORMAT_KERNELBENCH] =
      cl1_serve_protocol(svc->o, svc->device, CL1_FORMAT_KERNELBENCH);
  bool ok = svc->protocol[CL1_FORMAT_CABI] && svc->protocol[CL1_FORMAT_KERNELBENCH];
  return ok ? 0 : (cl1_err_set(err, "out of memory"), 3);
}

static void close_state(cl1_serve *svc) {
  for (int i = 0; i < svc->n_gpu; i++) cl1_gpu_lock_destroy(&svc->gpu[i]);
  cl1_store_close(svc->store);
  if (svc->tmpdir[0]) cl1_file_rm_tree(svc->tmpdir);
  cl1_serve_tasks_free(svc);
  cl1_serve_jobs_free(svc);
  free(svc->protocol[CL1_FORMAT_CABI]);
  free(svc->protocol[CL1_FORMAT_KERNELBENCH]);
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
static int start_threads(cl1_serve *svc, pthread_t *th, eval_lane *lanes, int max) {
  int n = 0, l = 0;
  for (int i = 0; i < svc->o->compile_jobs && n < max; i++)
    if (!pthread_create(&th[n], NULL, compile_thread, svc)) n++;
  bool cuda = svc->o->eval.backend == CL1_BACKEND_CUDA;
  int evals = cuda ? svc->n_gpu * svc->o->overlap : svc->o->workers;
  for (int i = 0; i < evals && n < max; i++) {
    lanes[l] = (eval_lane){svc, cuda ? &svc->gpu[i % svc->n_gpu] : NULL};
    if (!pthread_create(&th[n], NULL, eval_thread, &lanes[l])) n++, l++;
  }
  return n;
}

/* The worker processes kept beside the lanes: idle reference workers, a few per evaluation lane
 * (each holds a process and, on CUDA, a context), so a batch over many tasks keeps most of its
 * references; and spares started ahead, as many per GPU as its evaluations in flight, each of
 * which takes one (a candidate; a reference too when none is pooled), of the kind C-ABI
 * evaluations take on each GPU, so they are ready before the first batch. */
static void workers_ahead(cl1_serve *svc) {
  const cl1_serve_opts *o = svc->o;
  bool cuda = o->eval.backend == CL1_BACKEND_CUDA;
  int n_lanes = cuda ? svc->n_gpu * o->overlap : o->workers;
  cl1_refpool_set_max(o->eval.reuse_ref ? 8 * (n_lanes > 0 ? n_lanes : 1) : 0);
  cl1_spare_set_max(o->spares >= 0 ? o->spares : cuda ? o->overlap : o->workers);
  if (o->spare_fillers > 0) {
    int rc = cl1_spare_set_fillers(o->spare_fillers);
    assert(rc == 0);  /* cmd_serve checked the range; nothing has started a filler yet */
    (void)rc;
  }
  cl1_spare_set_wait(o->spare_wait_s);
  for (int i = 0; i < (cuda ? svc->n_gpu : 1); i++) {
    cl1_eval_opts eo = o->eval;
    eo.gpu = cuda ? &svc->gpu[i] : NULL;
    cl1_eval_spares_prime(&eo);
  }
}

int cl1_serve_run(const cl1_serve_opts *o, FILE *announce, cl1_err *err) {
  cl1_serve svc = {.o = o, .started = cl1_now()};
  pthread_mutex_init(&svc.mu, NULL);
  pthread_cond_init(&svc.cv, NULL);
  pthread_mutex_init(&svc.task_mu, NULL);
  pthread_mutex_init(&svc.commit_mu, NULL);
  pthread_mutex_init(&svc.jobs_mu, NULL);
  pthread_cond_init(&svc.commit_cv, NULL);
  int rc = signals_install(err) ? 3 : open_state(&svc, err);
  if (!rc) workers_ahead(&svc);
  pthread_t th[256];
  eval_lane lanes[256];
  int n_th = rc ? 0 : start_threads(&svc, th, lanes, 256);
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
  cl1_refpool_close();
  cl1_spare_close();
  close_state(&svc);
  return rc;
}
