/* serve_score.c — an item of `cudal1 serve` from request to answer: the suite task it names, its
 * code (taken from a raw reply by the optimizer's parser), an earlier answer for the same code
 * from the store, the evaluation, and the answer: verdict, CUDA-L1's reward, score01, speedup,
 * flags and feedback. Every answer is recorded with the caller's metadata. */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "serve_int.h"
#include "../base/file.h"
#include "../loop/parse.h"
#include "../task/task.h"

/* ---- tasks ---------------------------------------------------------------------------------- */

/* Suite ids, or folders named relative to --tasks-dir: a network client must not make the judge
 * read files it names elsewhere (no absolute paths, no ..; beneath() checks symlinks too). */
static bool plain_name(const char *s) {
  if (!*s || *s == '/' || *s == '.' || strstr(s, "..") || strlen(s) > 200) return false;
  for (const char *p = s; *p; p++)
    if (!isalnum((unsigned char)*p) && !strchr("_-/.", *p)) return false;
  return true;
}

static void task_free(cl1_serve_task *t) {
  if (!t) return;
  free(t->key), free(t->id), free(t->dir), free(t->name);
  free(t);
}

/* Each task on its own: items in flight hold pointers to them while the table grows (a table of
 * structs moved them at its 65th task, under every item in flight). */
static const cl1_serve_task *task_add(cl1_serve *svc, const char *key, const cl1_task_ref *ref) {
  if (svc->n_tasks == svc->cap_tasks) {
    int cap = svc->cap_tasks ? 2 * svc->cap_tasks : 64;
    void *g = realloc(svc->tasks, (size_t)cap * sizeof *svc->tasks);
    if (!g) return NULL;
    svc->tasks = g, svc->cap_tasks = cap;
  }
  cl1_serve_task *t = malloc(sizeof *t);
  if (!t) return NULL;
  *t = (cl1_serve_task){.key = strdup(key), .id = strdup(ref->task->id), .dir = strdup(ref->dir),
                        .name = strdup(ref->task->name), .level = ref->task->level,
                        .degenerate = ref->task->degenerate != NULL};
  if (!t->key || !t->id || !t->dir || !t->name) {
    task_free(t);
    return NULL;
  }
  svc->tasks[svc->n_tasks++] = t;
  return t;
}

/* Whether folder dir lies beneath root (both resolved: no ../ or symlink leads out). */
static bool beneath(const char *root, const char *dir) {
  if (!root) return false;
  char r[PATH_MAX], d[PATH_MAX];
  if (!realpath(root, r) || !realpath(dir, d)) return false;
  size_t k = strlen(r);
  return !strncmp(r, d, k) && (d[k] == '/' || d[k] == 0);
}

static bool suite_has(const char *id) {
  char dir[4096];
  cl1_err e = {{0}};
  return cl1_task_find(cl1_suite_root(), id, dir, sizeof dir, &e) == 0;
}

/* Resolves and records a task not seen before; caller holds task_mu. */
static const cl1_serve_task *task_new(cl1_serve *svc, const char *name, char *msg, size_t n) {
  cl1_task_ref ref;
  cl1_err err = {{0}};
  int rc = cl1_task_resolve(cl1_suite_root(), name, &ref, &err);
  if (rc == 1 && svc->o->tasks_dir) {  /* a folder beneath --tasks-dir, named relative to it */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", svc->o->tasks_dir, name);
    rc = cl1_task_resolve(cl1_suite_root(), path, &ref, &err);
  }
  if (rc) {
    snprintf(msg, n, "unknown task '%s'%s%.300s", name, rc < 0 ? ": " : "", rc < 0 ? err.msg : "");
    return NULL;
  }
  const cl1_serve_task *t = NULL;
  if (!ref.in_suite && !beneath(svc->o->tasks_dir, ref.dir))
    snprintf(msg, n, "unknown task '%s' (not a task of the suite%s)", name,
             svc->o->tasks_dir ? " nor beneath --tasks-dir" : "");
  else if (!ref.in_suite && suite_has(ref.task->id))
    snprintf(msg, n, "task '%s' has the id %s of a suite task (the store keeps tasks by id): "
             "import it under another --name", name, ref.task->id);
  else if (cl1_store_task_put(svc->store, ref.task->id, ref.task->level, ref.task->name,
                              ref.task->degenerate != NULL, &err))
    snprintf(msg, n, "the store cannot record task '%s': %.400s", name, err.msg);
  else if (!(t = task_add(svc, name, &ref)))
    snprintf(msg, n, "out of memory");
  cl1_task_ref_release(&ref);
  return t;
}

const cl1_serve_task *cl1_serve_task_get(cl1_serve *svc, const char *name, char *msg, size_t n) {
  if (!plain_name(name)) {
    snprintf(msg, n, "unknown task '%.200s' (a suite id like level1/19_ReLU)", name);
    return NULL;
  }
  pthread_mutex_lock(&svc->task_mu);
  const cl1_serve_task *t = NULL;
  for (int i = 0; i < svc->n_tasks && !t; i++)
    if (!strcmp(svc->tasks[i]->key, name)) t = svc->tasks[i];
  if (!t) t = task_new(svc, name, msg, n);
  pthread_mutex_unlock(&svc->task_mu);
  return t;
}

void cl1_serve_tasks_free(cl1_serve *svc) {
  for (int i = 0; i < svc->n_tasks; i++) task_free(svc->tasks[i]);
  free(svc->tasks);
  svc->tasks = NULL;
  svc->n_tasks = svc->cap_tasks = 0;
}

/* ---- the protocol: what makes two evaluations of one code comparable ------------------------ */

/* The format is named only for kernelbench: C ABI answers stored before formats existed keep
 * their cache key. The same raw code sent in both formats is two solutions (a .cu and a .py). */
char *cl1_serve_protocol(const cl1_serve_opts *o, const char *device, cl1_format f) {
  const cl1_eval_opts *e = &o->eval;
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "service", "cudal1 serve/1");
  if (f == CL1_FORMAT_KERNELBENCH) cJSON_AddStringToObject(p, "format", cl1_format_name(f));
  cJSON_AddStringToObject(p, "backend", cl1_backend_name(e->backend));
  cJSON_AddStringToObject(p, "device", device);
  cJSON_AddNumberToObject(p, "min_trials", e->min_trials);
  cJSON_AddNumberToObject(p, "max_trials", e->max_trials);
  cJSON_AddNumberToObject(p, "time_budget_s", e->time_budget_s);
  cJSON_AddNumberToObject(p, "time_sets", e->time_sets);
  cJSON_AddNumberToObject(p, "remeasure", e->remeasure);
  cJSON_AddNumberToObject(p, "hold_us", e->hold_us);
  cJSON_AddNumberToObject(p, "reward_clip", e->reward.clip);
  cJSON_AddBoolToObject(p, "log_reward", e->reward.log_speedup);
  char *s = cJSON_PrintUnformatted(p);
  cJSON_Delete(p);
  return s;
}

/* ---- answers -------------------------------------------------------------------------------- */

/* score01 = 0 for every failure, 0.75 + 0.25 * reward / k for a pass: a pass is always >= 0.5
 * (the self-supervised stage's "correct"), and the normalised speedup reward in [-k, k] spreads
 * passes over [0.5, 1]. */
static double score01(const cl1_serve_opts *o, const char *verdict, double reward) {
  if (strcmp(verdict, "pass")) return 0;
  double k = o->eval.reward.clip, z = reward / k;
  z = z > 1 ? 1 : z < -1 ? -1 : z;
  return 0.75 + 0.25 * z;
}

static void add_num_or_null(cJSON *o, const char *key, double v) {
  if (isfinite(v)) cJSON_AddNumberToObject(o, key, v);
  else cJSON_AddNullToObject(o, key);
}

/* An answer; reward NaN: none (infra_error). flags: taken (NULL: []). */
static cJSON *answer(const cl1_serve_opts *o, const char *status, const char *verdict,
                     double reward, double speedup, cJSON *flags, const char *feedback) {
  cJSON *a = cJSON_CreateObject();
  cJSON_AddStringToObject(a, "status", status);
  cJSON_AddStringToObject(a, "verdict", verdict);
  add_num_or_null(a, "reward", reward);
  add_num_or_null(a, "score01", isfinite(reward) ? score01(o, verdict, reward) : NAN);
  add_num_or_null(a, "speedup", speedup);
  cJSON_AddItemToObject(a, "flags", flags ? flags : cJSON_CreateArray());
  cJSON_AddStringToObject(a, "feedback", feedback);
  return a;
}

static double num_of(const cJSON *a, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, key);
  return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* ---- group commit ----------------------------------------------------------------------------- */

/* An answer from the store waiting to be recorded. Many come at once (a trainer's retried batch,
 * a burst of one-item requests), and a transaction each made them queue for the store one by
 * one: whoever finds no commit running commits every row waiting, in one transaction, while the
 * others wait for theirs. Each request still returns only once its row is in the store. */
typedef struct cl1_serve_rec {
  const cl1_store_score *sc;
  struct cl1_serve_rec *next;
  bool done;
  int rc;
  int64_t id;  /* its row once recorded */
  char msg[300];
} cl1_serve_rec;

static void commit_batch(cl1_serve *svc, cl1_serve_rec *batch) {
  enum { MAX = 256 };
  const cl1_store_score *rows[MAX];
  int64_t ids[MAX];
  while (batch) {
    int n = 0;
    cl1_serve_rec *first = batch;
    for (; batch && n < MAX; batch = batch->next) rows[n++] = batch->sc;
    cl1_err err = {{0}};
    int rc = cl1_store_score_record_many(svc->store, rows, n, ids, &err);
    int i = 0;
    for (cl1_serve_rec *r = first; i < n; r = r->next, i++) {
      /* a failed group: each row alone, so one bad row costs only itself */
      cl1_err one = err;
      r->rc = rc && n > 1 ? cl1_store_score_record_many(svc->store, &rows[i], 1, &ids[i], &one) : rc;
      r->id = r->rc ? 0 : ids[i];
      if (r->rc) snprintf(r->msg, sizeof r->msg, "%.299s", one.msg);
    }
  }
}

static int commit_cached(cl1_serve *svc, const cl1_store_score *sc, int64_t *id, cl1_err *err) {
  cl1_serve_rec me = {.sc = sc};
  pthread_mutex_lock(&svc->commit_mu);
  me.next = svc->commit_q;
  svc->commit_q = &me;
  while (!me.done) {
    if (svc->committing) {
      pthread_cond_wait(&svc->commit_cv, &svc->commit_mu);
      continue;
    }
    svc->committing = true;
    cl1_serve_rec *batch = svc->commit_q;
    svc->commit_q = NULL;
    pthread_mutex_unlock(&svc->commit_mu);
    commit_batch(svc, batch);
    pthread_mutex_lock(&svc->commit_mu);
    for (cl1_serve_rec *r = batch; r; r = r->next) r->done = true;
    svc->committing = false;
    pthread_cond_broadcast(&svc->commit_cv);
  }
  pthread_mutex_unlock(&svc->commit_mu);
  *id = me.id;
  return me.rc ? cl1_err_set(err, "%s", me.msg) : 0;
}

/* ---- answers -------------------------------------------------------------------------------- */

/* Records the item's answer; a store failure is said on stderr and costs the caller nothing but
 * a re-evaluation on retry (the answer itself stands). */
static void record(cl1_serve *svc, cl1_serve_item *it, const cl1_store_eval *e, int64_t sol,
                   int64_t ev) {
  char *text = cJSON_PrintUnformatted(it->result);
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(it->result, "status");
  const cJSON *vd = cJSON_GetObjectItemCaseSensitive(it->result, "verdict");
  cl1_store_score sc = {
      .item_id = it->id_json, .task_id = it->task->id,
      .backend = cl1_backend_name(svc->o->eval.backend),
      .shapes = cl1_shapes_name(svc->o->eval.shapes), .completion = it->completion,
      .status = st->valuestring, .verdict = vd->valuestring, .meta_json = it->meta_json,
      .result_json = text, .reward = num_of(it->result, "reward"),
      .score01 = num_of(it->result, "score01"), .cached = it->cached, .solution_id = sol,
      .evaluation_id = ev};
  cl1_err err = {{0}};
  bool from_store = sol && ev && !e;
  it->score_id = 0;
  if (!text || (from_store ? commit_cached(svc, &sc, &it->score_id, &err)
                           : cl1_store_score_record(svc->store, &sc, sol ? NULL : it->code, e,
                                                    &it->score_id, &err)))
    fprintf(stderr, "cudal1 serve: item %s of %s not recorded: %s\n", it->id_json, it->task->id,
            text ? err.msg : "out of memory");
  free(text);
}

void cl1_serve_infra(cl1_serve *svc, cl1_serve_item *it, const char *why) {
  cJSON_Delete(it->result);
  it->repayable = false;
  it->result = answer(svc->o, "infra_error", "infra_error", NAN, NAN, NULL, why);
  record(svc, it, NULL, 0, 0);
}

/* ---- before the queue ----------------------------------------------------------------------- */

/* A completion without usable code: a failing verdict of its own, the parser's note as
 * feedback, the failure floor as reward. */
static void no_code(cl1_serve *svc, cl1_serve_item *it, const cl1_parsed *p) {
  const char *v = cl1_parse_status_name(p->status);
  bool valid;
  double floor = cl1_reward_raw(&svc->o->eval.reward, v, 0, &valid);
  char fb[400];
  snprintf(fb, sizeof fb, "no code was run: %s", p->note[0] ? p->note : v);
  it->result = answer(svc->o, "ok", v, floor, 0, NULL, fb);
  record(svc, it, NULL, 0, 0);
}

/* The code of a completion into it->code; false when answered (no code). */
static bool take_code(cl1_serve *svc, cl1_serve_item *it) {
  if (!it->completion) return true;
  cl1_parsed p;
  cl1_err err = {{0}};
  const char *lang = cl1_format_parse_lang(it->format, svc->o->eval.backend);
  bool have = false;
  if (cl1_parse_reply(it->completion, strlen(it->completion), lang, &p, &err))
    cl1_serve_infra(svc, it, err.msg);
  else if (p.status != CL1_PARSE_OK)
    no_code(svc, it, &p);
  else
    it->code = p.code, p.code = NULL, have = true;
  cl1_parsed_free(&p);
  return have;
}

static bool is_pass(const cJSON *r) {
  const cJSON *vd = cJSON_GetObjectItemCaseSensitive(r, "verdict");
  return cJSON_IsString(vd) && !strcmp(vd->valuestring, "pass");
}

/* A pass's answer r paid what st pays for speedup paid; whether that changed its reward. */
static bool pay(cl1_serve *svc, cJSON *r, const cl1_reward_stats *st, double paid) {
  bool valid;
  double reward = cl1_reward_normalize(&svc->o->eval.reward, st, "pass", paid, &valid);
  assert(valid && isfinite(reward));
  if (fabs(reward - num_of(r, "reward")) <= 1e-12) return false;
  cJSON_ReplaceItemInObjectCaseSensitive(r, "reward", cJSON_CreateNumber(reward));
  cJSON_ReplaceItemInObjectCaseSensitive(r, "score01",
                                         cJSON_CreateNumber(score01(svc->o, "pass", reward)));
  return true;
}

/* A pass's reward paid against the task's running statistics as they are at the answer: for a
 * new evaluation after it joined them (the judge normalised it against those before it), for a
 * stored one without joining them again (a repeat is no new evidence). So the same solution is
 * paid the same whether evaluated or repeated, and the passes a trainer's step is paid are
 * ranked by speed. Before, a stored answer kept the reward of its first evaluation: in GRPO
 * steps whose rollouts mostly repeat earlier solutions, rewards ranked them by when they were
 * first seen (on the H100, a 1.43x LeakyReLU was paid 0.52 against 0.91 for a 0.91x one seen
 * earlier). -1 with err when the statistics cannot be read (r as it was). */
static int repay(cl1_serve *svc, const cl1_serve_item *it, cJSON *r, double paid, cl1_err *err) {
  if (!is_pass(r)) return 0;
  cl1_reward_stats st;
  double best;
  if (cl1_reward_file_get(svc->stats_path, it->task->id, &st, &best, err)) return -1;
  pay(svc, r, &st, paid);
  return 0;
}

bool cl1_serve_from_store(cl1_serve *svc, cl1_serve_item *it) {
  int64_t sol, ev;
  char *text = NULL;
  double paid;
  cl1_err err = {{0}};
  if (cl1_store_score_find(svc->store, it->task->id, cl1_backend_name(svc->o->eval.backend),
                           it->code, cl1_shapes_name(svc->o->eval.shapes),
                           svc->protocol[it->format], &sol,
                           &ev, &text, &paid, &err)) {
    fprintf(stderr, "cudal1 serve: %s (evaluating the item again)\n", err.msg);
    return false;
  }
  cJSON *r = text ? cJSON_Parse(text) : NULL;
  free(text);
  if (!cJSON_IsObject(r)) {
    cJSON_Delete(r);
    return false;
  }
  if (repay(svc, it, r, paid, &err)) {
    fprintf(stderr, "cudal1 serve: %s (evaluating the item again)\n", err.msg);
    cJSON_Delete(r);
    return false;
  }
  it->result = r;
  it->cached = true;
  it->repayable = is_pass(r), it->paid = paid;
  record(svc, it, NULL, sol, ev);
  return true;
}

/* One request's passes, paid at its answer against different statistics (a repeat answered at
 * once, before the request's new evaluations joined them; each new one after itself), paid
 * again against the same: the statistics once all of them joined. A trainer's step is one
 * request, so its groups rank their passes by speed alone. */
void cl1_serve_batch_settle(cl1_serve *svc, cl1_serve_batch *b) {
  int n = 0;
  for (int i = 0; i < b->n; i++) n += b->items[i].repayable;
  if (n < 2) return;  /* one pass is paid against one set of statistics already */
  int64_t *ids = calloc((size_t)n, sizeof *ids);
  double *rw = calloc((size_t)n, sizeof *rw), *s01 = calloc((size_t)n, sizeof *s01);
  char **texts = calloc((size_t)n, sizeof *texts);
  /* each task's statistics read once: a trainer's step holds a few tasks many times */
  const cl1_serve_task **seen = calloc((size_t)n, sizeof *seen);
  cl1_reward_stats *stats = calloc((size_t)n, sizeof *stats);
  int k = 0, n_seen = 0;
  for (int i = 0; ids && rw && s01 && texts && seen && stats && i < b->n; i++) {
    cl1_serve_item *it = &b->items[i];
    if (!it->repayable) continue;
    int t = 0;
    while (t < n_seen && seen[t] != it->task) t++;
    if (t == n_seen) {
      cl1_err err = {{0}};
      double best;
      if (cl1_reward_file_get(svc->stats_path, it->task->id, &stats[t], &best, &err)) {
        fprintf(stderr, "cudal1 serve: %s (the reward first paid stands)\n", err.msg);
        continue;
      }
      seen[n_seen++] = it->task;
    }
    if (!pay(svc, it->result, &stats[t], it->paid)) continue;  /* already what they pay */
    if (!it->score_id || !(texts[k] = cJSON_PrintUnformatted(it->result))) continue;
    ids[k] = it->score_id, rw[k] = num_of(it->result, "reward");
    s01[k] = num_of(it->result, "score01");
    k++;
  }
  cl1_err err = {{0}};
  if (!ids || !rw || !s01 || !texts || !seen || !stats)
    fprintf(stderr, "cudal1 serve: out of memory settling a request (its rewards as first paid)\n");
  else if (k && cl1_store_score_repaid(svc->store, ids, rw, s01, (const char *const *)texts, k, &err))
    fprintf(stderr, "cudal1 serve: %s (the store keeps the rewards first paid)\n", err.msg);
  for (int i = 0; texts && i < k; i++) free(texts[i]);
  free(ids), free(rw), free(s01), free(texts), free(seen), free(stats);
}

void cl1_serve_prepare(cl1_serve *svc, cl1_serve_item *it) {
  it->state = CL1_ITEM_DONE;
  if (!take_code(svc, it)) return;
  if (!it->fresh && cl1_serve_from_store(svc, it)) return;
  cl1_err err = {{0}};
  pthread_mutex_lock(&svc->mu);
  long seq = ++svc->seq;
  pthread_mutex_unlock(&svc->mu);
  /* the extension tells the evaluator the solution's format (raw code and parsed alike) */
  snprintf(it->path, sizeof it->path, "%s/item-%ld.%s", svc->tmpdir, seq,
           cl1_format_ext(it->format, svc->o->eval.backend));
  if (cl1_file_write_atomic(it->path, it->code, &err)) {
    it->path[0] = 0;
    cl1_serve_infra(svc, it, err.msg);
    return;
  }
  it->state = CL1_ITEM_Q_COMPILE;
}

/* ---- the evaluation ------------------------------------------------------------------------- */

/* The first lines of text, at most n - 1 bytes. */
static void head_lines(char *out, size_t n, const char *text, int lines) {
  size_t k = 0;
  for (const char *p = text; *p && k + 1 < n && lines > 0; p++) {
    if (*p == '\n' && --lines == 0) break;
    out[k++] = *p;
  }
  out[k] = 0;
}

/* The last bytes of text (at most n - 1), from a line's start where one begins within them: a
 * crash's cause is at the end of its log (a Python traceback's last line), not at its head. */
static const char *tail_from_line(const char *text, size_t n) {
  size_t len = strlen(text);
  if (len < n) return text;
  const char *p = text + len - (n - 1), *nl = strchr(p, '\n');
  return nl && nl[1] ? nl + 1 : p;
}

/* What a multi-turn policy would be shown: the compiler's first lines, the first mismatch (the
 * judge's message names it), or the timing line. */
static void feedback(const cl1_eval_result *r, char *out, size_t n) {
  if (!strcmp(r->verdict, "pass")) {
    int k = snprintf(out, n, "correct on %d checks; reference %.4f ms, candidate %.4f ms: %.3fx",
                     r->checks, r->ref.median, r->cand.median, r->speedup);
    if (r->py_ext_errors && k > 0 && (size_t)k < n)
      snprintf(out + k, n - (size_t)k, "\n" CL1_EXT_FALLBACK_FMT, r->py_ext_error);
  } else if (!strcmp(r->verdict, "compile_error")) {
    char head[700];
    /* a compiler's first errors come first; a Python module's import error is a traceback,
       whose cause is its last line */
    if (strstr(r->diag, "Traceback (most recent call last)"))
      snprintf(head, sizeof head, "%.600s", tail_from_line(r->diag, 500));
    else
      head_lines(head, sizeof head, r->diag, 6);
    snprintf(out, n, "compile error:\n%s", head);
  } else {
    char tail[300] = "";
    if (r->cand_log[0] && (!strcmp(r->verdict, "crash") || !strcmp(r->verdict, "timeout")))
      snprintf(tail, sizeof tail, "\noutput: %.280s", tail_from_line(r->cand_log, 281));
    snprintf(out, n, "%s: %.700s%s", r->verdict, r->message, tail);
  }
}

static char *flags_json(const cl1_eval_result *r, cJSON **arr) {
  *arr = cJSON_CreateArray();
  for (int i = 0; i < r->n_flags; i++) cJSON_AddItemToArray(*arr, cJSON_CreateString(r->flags[i]));
  return cJSON_PrintUnformatted(*arr);
}

/* A verdict reached: the answer, and the evaluation recorded with it. */
static void judged(cl1_serve *svc, cl1_serve_item *it, const cl1_eval_opts *eo,
                   const cl1_eval_result *r) {
  if (!r->has_reward_norm) {  /* the reward's statistics file failed: ours, not the candidate's */
    char why[400];
    snprintf(why, sizeof why, "reward statistics: %s", r->reward_note);
    cl1_serve_infra(svc, it, why);
    return;
  }
  bool pass = !strcmp(r->verdict, "pass");
  cJSON *flags;
  char *fl = flags_json(r, &flags), fb[1100];
  feedback(r, fb, sizeof fb);
  it->result = answer(svc->o, "ok", r->verdict, r->reward_norm, pass ? r->speedup : 0, flags, fb);
  cl1_err rerr = {{0}};
  if (repay(svc, it, it->result, r->reward_speedup, &rerr))
    fprintf(stderr, "cudal1 serve: %s (the judge's reward stands)\n", rerr.msg);
  it->repayable = pass, it->paid = r->reward_speedup;
  char *doc = cl1_eval_json(eo, r);
  cl1_store_eval e = {
      .task_id = it->task->id, .device = r->device[0] ? r->device : svc->device,
      .driver = r->driver[0] ? r->driver : NULL, .shapes = cl1_shapes_name(eo->shapes),
      .protocol_json = svc->protocol[it->format], .verdict = r->verdict, .message = r->message,
      .flags_json = fl, .result_json = doc, .speedup = pass ? r->speedup : 0,
      .reward_speedup = pass ? r->reward_speedup : 0, .reward = r->reward,
      .ref_ms = r->ref.median, .cand_ms = r->cand.median, .spread = r->speedup_ci_rel,
      .wall_s = r->t_total};
  record(svc, it, &e, 0, 0);
  free(fl);
  free(doc);
}

void cl1_serve_evaluate(cl1_serve *svc, cl1_serve_item *it, cl1_gpu_lock *gpu) {
  cl1_eval_opts eo = svc->o->eval;
  eo.gpu = gpu;
  eo.task = it->task->dir;
  eo.solution = it->path;
  eo.reward_stats = svc->stats_path;
  cl1_eval_result *r = calloc(1, sizeof *r);
  cl1_err err = {{0}};
  if (!r) {
    cl1_serve_infra(svc, it, "out of memory");
    return;
  }
  int rc = cl1_eval_run(&eo, r, &err);
  if (rc == 0 && strcmp(r->verdict, "infra_error"))
    judged(svc, it, &eo, r);
  else  /* 2: the evaluator refused what this service wrote for it, also not the candidate */
    cl1_serve_infra(svc, it, rc ? err.msg : r->message);
  free(r);
}
