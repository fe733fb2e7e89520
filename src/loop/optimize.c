/* optimize.c — the contrastive loop's pipeline (optimize.h): task threads (prompt, generate,
 * parse, store), a compile pool (CUDA: nvcc on the CPU while the device evaluates), and one
 * evaluation queue (the device is measured by one evaluation at a time). The store is the
 * source of truth: every completion is written before it is evaluated, so a killed run loses
 * only what was in flight. The run's options and resume live in optimize_cfg.c. */
#include "optimize.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "optimize_int.h"
#include "../eval/pybuild.h"
#include "parse.h"
#include "prompt.h"
#include "review.h"
#include "../base/file.h"
#include "../eval/compile.h"
#include "../eval/eval.h"
#include "../store/store.h"
#include "../task/task.h"

static volatile sig_atomic_t g_stop;

void cl1_optimize_stop(void) { g_stop = 1; }

/* ---- queues ------------------------------------------------------------------------------- */

static void q_push(cl1_opt_queue *q, cl1_opt_job *j) {
  j->next = NULL;
  if (q->tail) q->tail->next = j;
  else q->head = j;
  q->tail = j;
  q->n++;
}

static cl1_opt_job *q_pop(cl1_opt_queue *q) {
  cl1_opt_job *j = q->head;
  if (!j) return NULL;
  q->head = j->next;
  if (!q->head) q->tail = NULL;
  q->n--;
  return j;
}

static void job_free(cl1_opt_job *j) {
  if (!j) return;
  unlink(j->path);
  free(j->code);
  free(j);
}

static bool stopping(cl1_opt_loop *L) { return g_stop || L->fatal; }

bool cl1_opt_stopping(cl1_opt_loop *L) { return stopping(L); }

/* First fatal error wins (rc: the exit status it means); everyone waiting is woken so the run
 * winds down. Caller holds mu. */
static void set_fatal(cl1_opt_loop *L, const cl1_err *e, int rc) {
  if (!L->fatal) {
    L->fatal = 1;
    L->fatal_rc = rc;
    L->fatal_err = *e;
  }
  pthread_cond_broadcast(&L->cv);
}

void cl1_opt_fail(cl1_opt_loop *L, const cl1_err *e, int rc) {
  pthread_mutex_lock(&L->mu);
  set_fatal(L, e, rc);
  pthread_mutex_unlock(&L->mu);
}

static void progress(cl1_opt_loop *L) {
  if (!L->o->progress) return;
  const cl1_optimize_stats *s = L->st;
  int best_t = -1;
  for (int t = 0; t < L->o->n_tasks; t++)
    if (L->best[t] > 0 && (best_t < 0 || L->best[t] > L->best[best_t])) best_t = t;
  int rounds_done = 0;
  for (int t = 0; t < L->o->n_tasks; t++) rounds_done += L->rounds_done[t];
  char best[200] = "none yet", rounds[64] = "";
  if (best_t >= 0) snprintf(best, sizeof best, "%.2fx (%s)", L->best[best_t], L->o->tasks[best_t]);
  if (!L->producer) /* another command's producers have no rounds to count */
    snprintf(rounds, sizeof rounds, " | rounds %d/%d", rounds_done, L->o->n_tasks * L->o->rounds);
  fprintf(stderr, "%srun %lld%s | samples %d, evaluated %d, passed %d | queue %d | best %s%s",
          L->tty ? "\r\033[K" : "", (long long)L->run_id, rounds, s->samples, s->evaluated,
          s->passed, L->compile_q.n + L->eval_q.n, best, L->tty ? "" : "\n");
  fflush(stderr);
}

/* ---- evaluation ----------------------------------------------------------------------------- */

static char *flags_json(const cl1_eval_result *r) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < r->n_flags; i++) cJSON_AddItemToArray(a, cJSON_CreateString(r->flags[i]));
  char *s = cJSON_PrintUnformatted(a);
  cJSON_Delete(a);
  return s;
}

static char *protocol_json(const cl1_optimize_opts *o, const cl1_eval_opts *eo,
                           const cl1_eval_result *r) {
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "backend", o->device);
  cJSON_AddNumberToObject(p, "hold_us", r->hold_us);
  cJSON_AddNumberToObject(p, "min_trials", eo->min_trials);
  cJSON_AddNumberToObject(p, "max_trials", eo->max_trials);
  cJSON_AddNumberToObject(p, "time_budget_s", eo->time_budget_s);
  cJSON_AddNumberToObject(p, "remeasure", eo->remeasure);
  cJSON_AddNumberToObject(p, "measurements", r->measurements);
  char *s = cJSON_PrintUnformatted(p);
  cJSON_Delete(p);
  return s;
}

/* Evaluates one job and records it with its sample in one transaction. 0, or -1 with err for a
 * failure outside the candidate (the run cannot go on). */
static int eval_job(cl1_opt_loop *L, cl1_opt_job *j, bool *passed, double *speedup, cl1_err *err) {
  const cl1_optimize_opts *o = L->o;
  cl1_eval_opts eo;
  cl1_eval_opts_default(&eo);
  eo.task = o->tasks[j->task];
  eo.solution = j->path;
  eo.backend = L->backend;
  eo.shapes = cl1_shapes_parse(o->shapes);
  if (o->min_trials > 0) eo.min_trials = o->min_trials;
  if (o->max_trials > 0) eo.max_trials = o->max_trials;
  if (o->time_budget_s > 0) eo.time_budget_s = o->time_budget_s;
  cl1_eval_result *r = calloc(1, sizeof *r);
  if (!r) return cl1_err_set(err, "out of memory");
  int rc = cl1_eval_run(&eo, r, err);
  if (rc) {
    cl1_err_wrap(err, "evaluating sample %lld of %s", (long long)j->sample_id, eo.task);
    free(r);
    return -1;
  }
  if (!strcmp(r->verdict, "infra_error")) {
    /* nothing the harness says after this is a judgement: stop, leave the sample for --resume */
    char hint[64] = "";
    if (!L->no_resume) snprintf(hint, sizeof hint, " (fix that, then --resume %lld)", (long long)L->run_id);
    cl1_err_set(err, "evaluating sample %lld of %s: the evaluator could not judge it (infra_error): "
                "%s; the run stops here%s", (long long)j->sample_id, eo.task, r->message, hint);
    free(r);
    return -1;
  }
  cJSON *d = cl1_eval_json_doc(&eo, r);
  if (o->review && cl1_review_wanted(r, o->review_threshold)) {
    /* advisory: the reviewer's opinion goes into the stored evaluation, the verdict stays */
    cl1_review rv;
    cl1_err re = {{0}};
    if (!cl1_review_run(L->pol, L->task[j->task], o->device, o->shapes, j->code, r, NULL, &rv, &re)) {
      cJSON_AddItemToObject(d, "review", cl1_review_json(&rv, o->policy.model));
      cl1_review_free(&rv);
    } else {
      cJSON *e = cJSON_AddObjectToObject(d, "review");
      cJSON_AddBoolToObject(e, "ok", 0);
      cJSON_AddStringToObject(e, "error", re.msg);
    }
  }
  char *doc = cJSON_Print(d);
  cJSON_Delete(d);
  double t0 = cl1_now();
  char *fl = flags_json(r), *proto = protocol_json(o, &eo, r);
  bool pass = !strcmp(r->verdict, "pass");
  cl1_store_eval e = {
      .task_id = eo.task, .device = r->device[0] ? r->device : L->gpu[0] ? L->gpu : "host CPU",
      .driver = r->driver[0] ? r->driver : NULL, .shapes = o->shapes, .protocol_json = proto,
      .verdict = r->verdict, .message = r->message, .flags_json = fl, .result_json = doc,
      .speedup = pass ? r->speedup : 0, .reward_speedup = pass ? r->reward_speedup : 0,
      .reward = r->reward, .ref_ms = r->ref.median, .cand_ms = r->cand.median,
      .spread = r->speedup_ci_rel, .wall_s = r->t_total};
  int64_t sol = 0, ev = 0;
  int s = cl1_store_sample_record_eval(L->store, j->sample_id, o->device, j->code,
                                       j->replayed ? "replayed" : "generated", &e, &sol, &ev, err);
  *passed = pass;
  *speedup = pass ? r->speedup : 0;
  L->st->eval_s += r->t_total;
  free(fl);
  free(proto);
  free(doc);
  free(r);
  L->overhead_eval += cl1_now() - t0;
  return s ? -1 : 0;
}

static bool eval_may_exit(cl1_opt_loop *L) {
  return L->producers_done && L->compile_active == 0 && !L->compile_q.head;
}

static void *eval_thread(void *arg) {
  cl1_opt_loop *L = arg;
  pthread_mutex_lock(&L->mu);
  for (;;) {
    while (!L->eval_q.head && !stopping(L) && !eval_may_exit(L)) pthread_cond_wait(&L->cv, &L->mu);
    if (stopping(L) || (!L->eval_q.head && eval_may_exit(L))) break;
    cl1_opt_job *j = q_pop(&L->eval_q);
    pthread_mutex_unlock(&L->mu);
    cl1_err e = {{0}};
    bool pass = false;
    double sp = 0, t0 = cl1_now();
    int rc = eval_job(L, j, &pass, &sp, &e);
    double busy = cl1_now() - t0;
    pthread_mutex_lock(&L->mu);
    L->st->eval_busy_s += busy;
    if (rc) {
      set_fatal(L, &e, 3);
    } else {
      L->st->evaluated++;
      if (pass) L->st->passed++;
      if (sp > L->best[j->task]) L->best[j->task] = sp;
    }
    assert(L->inflight[j->task] > 0);
    L->inflight[j->task]--;
    pthread_cond_broadcast(&L->cv);
    progress(L);
    job_free(j);
  }
  L->eval_done = true;
  pthread_cond_broadcast(&L->cv);
  pthread_mutex_unlock(&L->mu);
  return NULL;
}

/* CUDA: compile ahead of the evaluation queue; the evaluator then finds the build in the cache.
 * A compile error is not handled here: the evaluation reports it as the verdict. */
static void *compile_thread(void *arg) {
  cl1_opt_loop *L = arg;
  pthread_mutex_lock(&L->mu);
  for (;;) {
    while (!L->compile_q.head && !stopping(L) && !L->producers_done) pthread_cond_wait(&L->cv, &L->mu);
    if (stopping(L) || !L->compile_q.head) break;
    cl1_opt_job *j = q_pop(&L->compile_q);
    L->compile_active++;
    pthread_mutex_unlock(&L->mu);
    /* the task and shapes as the judge will give them: a Triton module's build warms at them */
    cl1_compile_opts co = {.backend = L->backend, .task = L->o->tasks[j->task],
                           .shapes = cl1_shapes_parse(L->o->shapes)};
    cl1_compile_result cr;
    cl1_err e = {{0}};
    double t0 = cl1_now();
    (void)cl1_compile_file(j->path, &co, &cr, &e);
    double dt = cl1_now() - t0;
    pthread_mutex_lock(&L->mu);
    L->st->compile_s += dt;
    L->compile_active--;
    q_push(&L->eval_q, j);
    pthread_cond_broadcast(&L->cv);
  }
  pthread_cond_broadcast(&L->cv);
  pthread_mutex_unlock(&L->mu);
  return NULL;
}

/* Queues a stored 'generated' sample for evaluation. Caller holds mu. */
static int enqueue(cl1_opt_loop *L, int task, int64_t sample_id, const char *code, bool replayed,
                   cl1_err *err) {
  cl1_opt_job *j = calloc(1, sizeof *j);
  if (!j || !(j->code = strdup(code))) {
    free(j);
    return cl1_err_set(err, "out of memory");
  }
  j->task = task;
  j->sample_id = sample_id;
  j->replayed = replayed;
  /* the extension tells the evaluator the solution's format */
  snprintf(j->path, sizeof j->path, "%s/sample-%lld.%s", L->tmpdir, (long long)sample_id,
           cl1_format_ext(L->o->format, L->backend));
  /* through the one writer: this closed the FILE a second time when fclose failed */
  if (cl1_file_write_atomic(j->path, code, err)) {
    free(j->code);
    free(j);
    return -1;
  }
  L->inflight[task]++;
  /* a Python module's build step (its load_inline kernels) is compiled ahead the same way */
  bool ahead = L->backend == CL1_BACKEND_CUDA && L->o->compile_jobs > 0;
  q_push(ahead ? &L->compile_q : &L->eval_q, j);
  pthread_cond_broadcast(&L->cv);
  return 0;
}

/* ---- one task's rounds ---------------------------------------------------------------------- */

/* The prompt of round r: the task's passing solutions so far, k of them picked by bucket. */
int cl1_opt_build_prompt(cl1_opt_loop *L, int t, int r, char **prompt_text, char **system,
                         char **user, char **ids_json, cl1_err *err) {
  const cl1_optimize_opts *o = L->o;
  cl1_prompt_req req = {.in = {.task = L->task[t], .device = o->device, .shapes = o->shapes,
                               .template_path = o->template_path,
                               .gpu = L->gpu[0] ? L->gpu : NULL, .format = o->format},
                        .store = L->store, .k = o->exemplars, .tau = o->tau, .seed = o->seed,
                        .stream = (uint64_t)r};
  if (cl1_prompt_for_task(&req, system, user, ids_json, err)) return -1;
  size_t len = strlen(*system) + strlen(*user) + 64;
  if (!(*prompt_text = malloc(len))) return cl1_err_set(err, "out of memory");
  snprintf(*prompt_text, len, "=== system ===\n%s\n=== user ===\n%s", *system, *user);
  return 0;
}

int cl1_opt_take_completion(cl1_opt_loop *L, int t, int64_t round_id, int idx, const char *prompt,
                            const char *ids, const cl1_completion *c, const cl1_opt_source *src,
                            cl1_err *err) {
  cl1_store_sample s = {.round_id = round_id, .idx = idx, .prompt = prompt,
                        .exemplar_ids_json = ids, .gen_s = c->latency_s, .policy = src->policy,
                        .model = src->model};
  cl1_parsed p;
  memset(&p, 0, sizeof p);
  int64_t id = 0;
  int rc;
  if (!c->ok) {
    s.status = "gen_error";
    s.error = c->error;
    rc = cl1_store_sample_add(L->store, &s, &id, err);
    pthread_mutex_lock(&L->mu);
    L->st->samples++;
    L->st->gen_errors++;
    if (!L->first_gen_error[0]) cl1_strcpy(L->first_gen_error, sizeof L->first_gen_error, c->error);
    pthread_mutex_unlock(&L->mu);
    return rc;
  }
  const char *text = c->content ? c->content : "";
  if (cl1_parse_reply(text, strlen(text), cl1_format_parse_lang(L->o->format, L->backend), &p,
                      err)) {
    cl1_parsed_free(&p);
    return -1;
  }
  s.completion = text;
  s.reasoning = c->reasoning;
  s.finish_reason = c->finish_reason;
  s.analysis = p.analysis;
  bool ok = p.status == CL1_PARSE_OK;
  s.status = ok ? "generated" : cl1_parse_status_name(p.status);
  s.error = ok ? NULL : p.note;
  s.code = ok ? p.code : NULL;
  rc = cl1_store_sample_add(L->store, &s, &id, err);
  pthread_mutex_lock(&L->mu);
  L->st->samples++;
  if (!ok) L->st->parse_failures++;
  if (!rc && ok) rc = enqueue(L, t, id, p.code, src->replayed, err);
  progress(L);
  pthread_mutex_unlock(&L->mu);
  cl1_parsed_free(&p);
  return rc;
}

/* Round r of task t: generate what the round still lacks, wait for its evaluations, close it.
 * 1 when the run is stopping, -1 with err on a failure, -2 with err when the policy's answer
 * showed the run's input wrong (key, model, URL). */
static int run_round(cl1_opt_loop *L, int t, int r, cl1_err *err) {
  const cl1_optimize_opts *o = L->o;
  char st[16];
  int64_t rid = 0;
  if (cl1_store_round_status(L->store, L->run_id, o->tasks[t], r, st, &rid, err)) return -1;
  if (!strcmp(st, "done")) return 0;
  if (cl1_store_round_open(L->store, L->run_id, o->tasks[t], r, &rid, err)) return -1;
  int total = 0, pending = 0;
  if (cl1_store_samples_count(L->store, rid, &total, &pending, err)) return -1;
  int need = o->samples - total;
  if (need > 0 && !stopping(L)) {
    double t0 = cl1_now();
    char *prompt = NULL, *sys = NULL, *usr = NULL, *ids = NULL;
    int rc = cl1_opt_build_prompt(L, t, r, &prompt, &sys, &usr, &ids, err);
    double t_prompt = cl1_now() - t0;
    cl1_completion *c = rc ? NULL : calloc((size_t)need, sizeof *c);
    if (!rc && !c) rc = cl1_err_set(err, "out of memory");
    if (!rc) {
      t0 = cl1_now();
      rc = cl1_policy_generate(L->pol, o->tasks[t], sys, usr, need, c, err);
      double g = cl1_now() - t0;
      pthread_mutex_lock(&L->mu);
      L->st->gen_s += g;
      pthread_mutex_unlock(&L->mu);
      /* every later request would fail the same way: nothing worth storing or retrying */
      if (!rc && cl1_policy_fatal(L->pol, err)) rc = -2;
    }
    t0 = cl1_now();
    cl1_opt_source src = {o->policy.kind, o->policy.model, L->replay};
    for (int i = 0; !rc && i < need; i++)
      rc = cl1_opt_take_completion(L, t, rid, total + i, prompt, ids, &c[i], &src, err);
    pthread_mutex_lock(&L->mu);
    L->overhead_gen += t_prompt + (cl1_now() - t0);
    pthread_mutex_unlock(&L->mu);
    for (int i = 0; c && i < need; i++) cl1_completion_clear(&c[i]);
    free(c);
    free(prompt);
    free(sys);
    free(usr);
    free(ids);
    if (rc) return rc == -2 ? -2 : -1;
  }
  pthread_mutex_lock(&L->mu);
  while (L->inflight[t] > 0 && !stopping(L)) pthread_cond_wait(&L->cv, &L->mu);
  bool stop = stopping(L);
  pthread_mutex_unlock(&L->mu);
  if (stop) return 1;
  int64_t sol = 0;
  double best = 0;
  if (cl1_store_best(L->store, o->tasks[t], o->device, o->shapes, L->run_id, &sol, &best, err) ||
      cl1_store_round_close(L->store, rid, sol ? best : -1, err))
    return -1;
  pthread_mutex_lock(&L->mu);
  L->rounds_done[t]++;
  progress(L);
  pthread_mutex_unlock(&L->mu);
  return 0;
}

static void *task_thread(void *arg) {
  cl1_opt_loop *L = arg;
  for (;;) {
    pthread_mutex_lock(&L->mu);
    int t = L->next_task++;
    pthread_mutex_unlock(&L->mu);
    if (t >= L->o->n_tasks) break;
    for (int r = 1; r <= L->o->rounds; r++) {
      cl1_err e = {{0}};
      int rc = run_round(L, t, r, &e);
      if (rc < 0) {
        pthread_mutex_lock(&L->mu);
        set_fatal(L, &e, rc == -2 ? 2 : 3);
        pthread_mutex_unlock(&L->mu);
      }
      if (rc) break;
    }
  }
  cl1_opt_producer_exit(L);
  return NULL;
}

void cl1_opt_producer_exit(cl1_opt_loop *L) {
  pthread_mutex_lock(&L->mu);
  L->task_live--;
  pthread_cond_broadcast(&L->cv);
  pthread_mutex_unlock(&L->mu);
}

/* ---- the run -------------------------------------------------------------------------------- */

/* Puts the resumed run's evaluations that a kill cut off back in the queue. */
static int requeue_pending(cl1_opt_loop *L, cl1_err *err) {
  cl1_store_pending *rows = NULL;
  int n = 0;
  if (cl1_store_samples_pending(L->store, L->run_id, &rows, &n, err)) return -1;
  int rc = 0;
  pthread_mutex_lock(&L->mu);
  for (int i = 0; i < n && !rc; i++) {
    int t = cl1_opt_task_index(L->o, rows[i].task_id);
    if (t < 0) continue; /* a task no longer in the run's list */
    rc = enqueue(L, t, rows[i].sample_id, rows[i].code, L->replay, err);
  }
  pthread_mutex_unlock(&L->mu);
  cl1_store_pending_free(rows, n);
  return rc;
}

int cl1_opt_pipeline(cl1_opt_loop *L, cl1_err *err) {
  const cl1_optimize_opts *o = L->o;
  int n_task_threads = o->parallel_tasks < o->n_tasks ? o->parallel_tasks : o->n_tasks;
  int n_compile = L->backend == CL1_BACKEND_CUDA ? o->compile_jobs : 0;
  pthread_t ev, tt[64], ct[64];
  if (n_task_threads > 64) n_task_threads = 64;
  if (n_compile > 64) n_compile = 64;
  if (requeue_pending(L, err)) return -1;
  /* Python candidates: the workers' python3 described (pybuild.h sets the environment) before
     the threads start; a failure is each evaluation's infra_error, said there */
  cl1_err pe = {{0}};
  if (L->o->format == CL1_FORMAT_KERNELBENCH && cl1_pyenv_ensure(&pe))
    cl1_log_debug("optimize: %s", pe.msg);
  /* Ctrl-C reaches the main thread only: delivered to the evaluating thread it would cut the
     judge's waits short (EINTR) and fail an evaluation instead of stopping after it */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  int nc = 0, nt = 0;
  /* counted before they start: a producer with nothing to do may end before the count is set */
  L->task_live = n_task_threads;
  bool ev_ok = !pthread_create(&ev, NULL, eval_thread, L);
  while (ev_ok && nc < n_compile && !pthread_create(&ct[nc], NULL, compile_thread, L)) nc++;
  void *(*producer)(void *) = L->producer ? L->producer : task_thread;
  while (ev_ok && nt < n_task_threads && !pthread_create(&tt[nt], NULL, producer, L)) nt++;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!ev_ok) return cl1_err_set(err, "cannot start a thread");
  /* Wait for the task threads; on Ctrl-C wake every waiter, and once the evaluation in progress
     is recorded do not wait for policy requests still on the wire (up to --timeout): their
     threads are left behind and the process ends (L->abandoned). */
  pthread_mutex_lock(&L->mu);
  L->task_live -= n_task_threads - nt; /* those that did not start */
  while (L->task_live > 0 && !(stopping(L) && L->eval_done)) {
    if (stopping(L)) pthread_cond_broadcast(&L->cv);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000000L;
    if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
    pthread_cond_timedwait(&L->cv, &L->mu, &ts);
  }
  L->abandoned = L->task_live > 0;
  L->producers_done = true;
  pthread_cond_broadcast(&L->cv);
  pthread_mutex_unlock(&L->mu);
  for (int i = 0; i < nt; i++) {
    if (L->abandoned) pthread_detach(tt[i]);
    else pthread_join(tt[i], NULL);
  }
  for (int i = 0; i < nc; i++) pthread_join(ct[i], NULL);
  pthread_join(ev, NULL);
  /* jobs left when stopping stay 'generated' in the store: --resume evaluates them */
  cl1_opt_job *j;
  pthread_mutex_lock(&L->mu);
  while ((j = q_pop(&L->compile_q))) job_free(j);
  while ((j = q_pop(&L->eval_q))) job_free(j);
  pthread_mutex_unlock(&L->mu);
  if (nt < n_task_threads || nc < n_compile) return cl1_err_set(err, "cannot start the loop's threads");
  if (L->fatal) {
    *err = L->fatal_err;
    return -1;
  }
  return 0;
}

int cl1_optimize_run(const cl1_optimize_opts *o, int64_t resume_run, cl1_optimize_stats *st,
                     cl1_err *err) {
  memset(st, 0, sizeof *st);
  double t_begin = cl1_now();
  g_stop = 0;
  cl1_opt_loop *L = calloc(1, sizeof *L);
  if (!L) return cl1_err_set(err, "out of memory"), 3;
  L->o = o;
  L->st = st;
  L->tty = isatty(2);
  pthread_mutex_init(&L->mu, NULL);
  pthread_cond_init(&L->cv, NULL);
  int ret = cl1_opt_prepare(L, resume_run, err);
  if (!ret) {
    st->run_id = L->run_id;
    ret = cl1_opt_pipeline(L, err) ? (L->fatal_rc ? L->fatal_rc : 3) : 0;
    st->interrupted = g_stop && !L->fatal;
    /* a run that got not one completion did nothing: say so rather than "done" */
    bool no_completion = !ret && !st->interrupted && st->samples > 0 && st->gen_errors == st->samples;
    if (no_completion) {
      cl1_err_set(err, "the policy gave no completion: all %d requested samples failed; the first: %s",
                  st->samples, L->first_gen_error);
      ret = 3;
    }
    st->overhead_s = L->overhead_gen + L->overhead_eval;
    st->wall_s = cl1_now() - t_begin;
    if (L->o->progress) fputs(L->tty ? "\n" : "", stderr);
    cl1_err e2 = {{0}};
    const char *status = L->fatal || no_completion ? "failed" : st->interrupted ? "interrupted" : "done";
    if (cl1_store_run_set_status(L->store, L->run_id, status, &e2) && !ret) {
      *err = e2;
      ret = 3;
    }
    if (cl1_opt_write_outputs(L, &e2) && !ret) {
      *err = e2;
      ret = 3;
    }
  }
  cl1_opt_cleanup(L);
  if (L->abandoned) return ret; /* its threads still use L; the process ends next */
  pthread_mutex_destroy(&L->mu);
  pthread_cond_destroy(&L->cv);
  free(L);
  return ret;
}
