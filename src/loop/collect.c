/* collect.c — `cudal1 collect` (collect.h): the --policy spec, the run's setup (policies opened
 * and checked, tasks, the run row labelled 'collect'), the producers that ask each policy for N
 * completions of each task's round-1 prompt and hand them to optimize's pipeline, and the report
 * per policy, counted from the store. */
#include "collect.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "optimize_int.h"
#include "../base/proc.h"

/* ---- the --policy spec ------------------------------------------------------------------------ */

static int copy_part(char *dst, size_t cap, const char *src, size_t n, const char *what,
                     cl1_err *err) {
  if (n >= cap) return cl1_err_set(err, "%s is too long (%zu bytes, at most %zu)", what, n, cap - 1);
  memcpy(dst, src, n);
  dst[n] = 0;
  return 0;
}

static bool is_http(const char *s) { return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8); }

/* Where the URL's authority (host, optional :port) ends in u (after the scheme). */
static const char *authority_end(const char *h) {
  if (*h == '[') {
    const char *b = strchr(h, ']');
    h = b ? b + 1 : h + strlen(h);
  } else {
    h += strcspn(h, ":/");
  }
  if (*h == ':' && isdigit((unsigned char)h[1])) {
    const char *q = h + 1;
    while (isdigit((unsigned char)*q)) q++;
    if (*q == ':' || *q == '/' || !*q) h = q; /* a port; anything else is the model's name */
  }
  return h;
}

static int parse_openai(const char *rest, cl1_collect_policy *out, cl1_err *err) {
  const char *hash = strrchr(rest, '#'), *model;
  size_t url_len;
  if (hash) {
    url_len = (size_t)(hash - rest);
    model = hash + 1;
  } else {
    if (!is_http(rest))
      return cl1_err_set(err, "the URL must start with http:// or https:// (NAME=openai:URL:MODEL "
                              "or NAME=openai:URL#MODEL)");
    const char *a = authority_end(rest + (rest[4] == 's' ? 8 : 7));
    const char *c = *a == ':' ? a : *a == '/' ? strchr(a, ':') : NULL;
    if (!c)
      return cl1_err_set(err, "no MODEL after the URL (NAME=openai:URL:MODEL, e.g. "
                              "A=openai:http://127.0.0.1:8000/v1:qwen2.5:7b, or URL#MODEL)");
    url_len = (size_t)(c - rest);
    model = c + 1;
  }
  if (!url_len) return cl1_err_set(err, "no URL (NAME=openai:URL:MODEL)");
  if (copy_part(out->url, sizeof out->url, rest, url_len, "the URL", err)) return -1;
  if (!is_http(out->url))
    return cl1_err_set(err, "the URL '%s' does not start with http:// or https://", out->url);
  if (!*model) return cl1_err_set(err, "no MODEL after the URL '%s'", out->url);
  return copy_part(out->model, sizeof out->model, model, strlen(model), "the MODEL", err);
}

int cl1_collect_policy_parse(const char *spec, cl1_collect_policy *out, cl1_err *err) {
  memset(out, 0, sizeof *out);
  const char *eq = strchr(spec, '=');
  if (!eq) return cl1_err_set(err, "expected NAME=openai:URL:MODEL or NAME=replay:FILE");
  size_t nl = (size_t)(eq - spec);
  bool ok = nl > 0 && nl < sizeof out->name;
  for (size_t i = 0; ok && i < nl; i++)
    ok = isalnum((unsigned char)spec[i]) || strchr("_-.", spec[i]);
  if (!ok)
    return cl1_err_set(err, "the NAME before '=' must be 1 to %zu letters, digits, '_', '-' or '.'",
                       sizeof out->name - 1);
  memcpy(out->name, spec, nl);
  const char *kind = eq + 1, *colon = strchr(kind, ':');
  size_t kl = colon ? (size_t)(colon - kind) : strlen(kind);
  if (kl == 6 && !strncmp(kind, "replay", 6)) {
    strcpy(out->kind, "replay");
    if (!colon || !colon[1]) return cl1_err_set(err, "no FILE (NAME=replay:FILE)");
    return copy_part(out->file, sizeof out->file, colon + 1, strlen(colon + 1), "the FILE", err);
  }
  if (kl == 6 && !strncmp(kind, "openai", 6)) {
    strcpy(out->kind, "openai");
    if (!colon || !colon[1]) return cl1_err_set(err, "no URL and MODEL (NAME=openai:URL:MODEL)");
    return parse_openai(colon + 1, out, err);
  }
  return cl1_err_set(err, "unknown kind '%.*s' after '=' (openai or replay)", (int)kl, kind);
}

/* ---- the run ---------------------------------------------------------------------------------- */

void cl1_collect_opts_default(cl1_collect_opts *o) {
  memset(o, 0, sizeof *o);
  o->n = 4;
  o->device = "cuda";
  o->shapes = "small";
  o->db_path = "cudal1.db";
  o->parallel_tasks = 4;
  o->compile_jobs = 4;
  cl1_policy_opts_default(&o->request);
}

void cl1_collect_stop(void) { cl1_optimize_stop(); }

typedef struct {
  const cl1_collect_opts *co;
  cl1_optimize_opts oo;        /* what optimize's pipeline reads: tasks, device, trials, ... */
  cl1_policy *pol[CL1_COLLECT_MAX_POLICIES];
  int next_unit;               /* under L->mu: (task, policy) pairs handed out */
} collect_state;

/* Policy p's n completions of task t's round-1 prompt, stored as samples p*n .. p*n+n-1 of the
 * task's round 1 and queued. -2 with err when the policy's answer showed its spec wrong. */
static int collect_unit(cl1_opt_loop *L, collect_state *C, int t, int p, cl1_err *err) {
  const cl1_collect_opts *o = C->co;
  const cl1_collect_policy *cp = &o->policies[p];
  int64_t rid = 0;
  if (cl1_store_round_open(L->store, L->run_id, o->tasks[t], 1, &rid, err)) return -1;
  char *prompt = NULL, *sys = NULL, *usr = NULL, *ids = NULL;
  int rc = cl1_opt_build_prompt(L, t, 1, &prompt, &sys, &usr, &ids, err);
  cl1_completion *c = rc ? NULL : calloc((size_t)o->n, sizeof *c);
  if (!rc && !c) rc = cl1_err_set(err, "out of memory");
  if (!rc && !(rc = cl1_policy_generate(C->pol[p], o->tasks[t], sys, usr, o->n, c, err)) &&
      cl1_policy_fatal(C->pol[p], err)) {
    cl1_err_wrap(err, "--policy %s", cp->name);
    rc = -2;
  }
  cl1_opt_source src = {cp->name, cp->kind[0] == 'o' ? cp->model : NULL, cp->kind[0] == 'r'};
  for (int i = 0; !rc && i < o->n; i++)
    rc = cl1_opt_take_completion(L, t, rid, p * o->n + i, prompt, ids, &c[i], &src, err);
  for (int i = 0; c && i < o->n; i++) cl1_completion_clear(&c[i]);
  free(c);
  free(prompt);
  free(sys);
  free(usr);
  free(ids);
  return rc;
}

/* A producer: units task-major, so the policies take turns on each task. */
static void *collect_thread(void *arg) {
  cl1_opt_loop *L = arg;
  collect_state *C = L->ud;
  int units = C->co->n_tasks * C->co->n_policies;
  for (;;) {
    pthread_mutex_lock(&L->mu);
    int u = C->next_unit++;
    pthread_mutex_unlock(&L->mu);
    if (u >= units || cl1_opt_stopping(L)) break;
    cl1_err e = {{0}};
    int rc = collect_unit(L, C, u / C->co->n_policies, u % C->co->n_policies, &e);
    if (rc) {
      cl1_opt_fail(L, &e, rc == -2 ? 2 : 3);
      break;
    }
  }
  cl1_opt_producer_exit(L);
  return NULL;
}

static int check_opts(const cl1_collect_opts *o, cl1_err *err) {
  if (o->n_tasks < 1) return cl1_err_set(err, "no task given (--tasks)");
  if (o->n_policies < 1) return cl1_err_set(err, "no policy given (--policy NAME=...)");
  if (o->n < 1) return cl1_err_set(err, "-n %d: at least 1 completion per task", o->n);
  if (strcmp(o->device, "cuda") && strcmp(o->device, "host"))
    return cl1_err_set(err, "--device: expected cuda or host, got '%s'", o->device);
  if (cl1_shapes_parse(o->shapes) < 0)
    return cl1_err_set(err, "--shapes: expected test, small or large, got '%s'", o->shapes);
  for (int i = 0; i < o->n_policies; i++)
    for (int j = 0; j < i; j++)
      if (!strcmp(o->policies[i].name, o->policies[j].name))
        return cl1_err_set(err, "--policy: the name '%s' is given twice", o->policies[i].name);
  return 0;
}

/* Opens every policy (a replay file is read and checked here) and checks it can serve (an
 * unreachable server stops the collection before a run is recorded). 0, 2 or 3. */
static int open_policies(const cl1_collect_opts *o, collect_state *C, cl1_err *err) {
  for (int i = 0; i < o->n_policies; i++) {
    const cl1_collect_policy *p = &o->policies[i];
    cl1_policy_opts po = o->request;
    bool openai = !strcmp(p->kind, "openai");
    po.kind = p->kind;
    po.base_url = openai ? p->url : NULL;
    po.model = openai ? p->model : NULL;
    po.replay_path = openai ? NULL : p->file;
    if (cl1_policy_open(&po, &C->pol[i], err)) {
      cl1_err_wrap(err, "--policy %s", p->name);
      return 2;
    }
  }
  for (int i = 0; i < o->n_policies; i++) {
    int rc = cl1_policy_check(C->pol[i], err);
    if (rc) {
      cl1_err_wrap(err, "--policy %s", o->policies[i].name);
      return rc;
    }
  }
  return 0;
}

static char *config_json(const cl1_collect_opts *o) {
  cJSON *c = cJSON_CreateObject(), *t = cJSON_AddArrayToObject(c, "tasks");
  cJSON_AddStringToObject(c, "kind", "collect");
  for (int i = 0; i < o->n_tasks; i++) cJSON_AddItemToArray(t, cJSON_CreateString(o->tasks[i]));
  cJSON *ps = cJSON_AddArrayToObject(c, "policies");
  for (int i = 0; i < o->n_policies; i++) {
    const cl1_collect_policy *p = &o->policies[i];
    cJSON *q = cJSON_CreateObject();
    cJSON_AddStringToObject(q, "name", p->name);
    cJSON_AddStringToObject(q, "kind", p->kind);
    if (p->kind[0] == 'o') {
      cJSON_AddStringToObject(q, "base_url", p->url);
      cJSON_AddStringToObject(q, "model", p->model);
    } else {
      cJSON_AddStringToObject(q, "replay", p->file);
    }
    cJSON_AddItemToArray(ps, q);
  }
  cJSON_AddNumberToObject(c, "n", o->n);
  cJSON_AddStringToObject(c, "device", o->device);
  cJSON_AddStringToObject(c, "shapes", o->shapes);
  cJSON_AddNumberToObject(c, "exemplars", 0);
  cJSON_AddNumberToObject(c, "min_trials", o->min_trials);
  cJSON_AddNumberToObject(c, "max_trials", o->max_trials);
  cJSON_AddNumberToObject(c, "time_budget_s", o->time_budget_s);
  cJSON_AddNumberToObject(c, "temperature", o->request.temperature);
  cJSON_AddNumberToObject(c, "max_tokens", o->request.max_tokens);
  char *s = cJSON_Print(c);
  cJSON_Delete(c);
  return s;
}

/* The pipeline's view of the collection: round 1 of each task, no exemplars (see README). */
static void loop_opts(const cl1_collect_opts *o, cl1_optimize_opts *oo) {
  cl1_optimize_opts_default(oo);
  for (int i = 0; i < o->n_tasks; i++) oo->tasks[i] = o->tasks[i];
  oo->n_tasks = o->n_tasks;
  oo->rounds = 1;
  oo->samples = o->n;
  oo->exemplars = 0;
  oo->device = o->device;
  oo->shapes = o->shapes;
  oo->db_path = o->db_path;
  oo->parallel_tasks = o->parallel_tasks;
  oo->compile_jobs = o->compile_jobs;
  oo->min_trials = o->min_trials;
  oo->max_trials = o->max_trials;
  oo->time_budget_s = o->time_budget_s;
  oo->progress = o->progress;
}

/* Everything before the pipeline: 0, 2 or 3 (err). */
static int prepare(cl1_opt_loop *L, collect_state *C, cl1_err *err) {
  const cl1_collect_opts *o = C->co;
  if (check_opts(o, err)) return 2;
  L->backend = strcmp(o->device, "cuda") ? CL1_BACKEND_HOST : CL1_BACKEND_CUDA;
  if (L->backend == CL1_BACKEND_CUDA && cl1_proc_gpu_name(L->gpu, sizeof L->gpu, err)) return 3;
  int rc = open_policies(o, C, err);
  if (rc) return rc;
  if (cl1_store_open(o->db_path, &L->store, err)) return 3;
  if (cl1_opt_load_tasks(L, err)) return 2;
  char *cfg = config_json(o);
  if (!cfg) return cl1_err_set(err, "out of memory"), 3;
  rc = cl1_store_run_create(L->store, cfg, "collect", NULL, o->device, o->shapes, &L->run_id, err);
  free(cfg);
  if (rc) return 3;
  const char *tmp = getenv("TMPDIR");
  snprintf(L->tmpdir, sizeof L->tmpdir, "%s/cudal1-collect%lld-XXXXXX", tmp && *tmp ? tmp : "/tmp",
           (long long)L->run_id);
  if (!mkdtemp(L->tmpdir))
    return cl1_err_set(err, "cannot create %s: %s", L->tmpdir, strerror(errno)), 3;
  return 0;
}

/* Each task's round 1 closed with the run's best, once every unit is done. */
static int close_rounds(cl1_opt_loop *L, cl1_err *err) {
  const cl1_optimize_opts *o = L->o;
  for (int t = 0; t < o->n_tasks; t++) {
    char st[16];
    int64_t rid = 0, sol = 0;
    double best = 0;
    if (cl1_store_round_status(L->store, L->run_id, o->tasks[t], 1, st, &rid, err)) return -1;
    if (!rid) continue;
    if (cl1_store_best(L->store, o->tasks[t], o->device, o->shapes, L->run_id, &sol, &best, err) ||
        cl1_store_round_close(L->store, rid, sol ? best : -1, err))
      return -1;
  }
  return 0;
}

static int tally(cl1_opt_loop *L, const cl1_collect_opts *o, cl1_collect_report *rep,
                 cl1_err *err) {
  rep->n_lines = o->n_policies;
  for (int i = 0; i < o->n_policies; i++) {
    cl1_collect_line *l = &rep->lines[i];
    l->p = &o->policies[i];
    if (cl1_store_policy_tally(L->store, L->run_id, l->p->name, &l->t, err)) return -1;
    l->infra = l->t.gen_errors + l->t.unjudged;
    l->judged = l->t.asked - l->infra;
    l->with_code = l->t.with_code - l->t.unjudged;
    assert(l->judged >= 0 && l->with_code >= 0 && l->with_code <= l->judged);
  }
  return 0;
}

/* After the pipeline: rounds, the run's status, the counts. ret: the pipeline's exit status. */
static int finish(cl1_opt_loop *L, collect_state *C, cl1_collect_report *rep, int ret,
                  cl1_err *err) {
  cl1_err e2 = {{0}};
  rep->interrupted = L->st->interrupted;
  if (!ret && !rep->interrupted && close_rounds(L, &e2)) *err = e2, ret = 3;
  if (tally(L, C->co, rep, &e2) && !ret) *err = e2, ret = 3;
  int asked = 0, gen_errors = 0;
  for (int i = 0; i < rep->n_lines; i++)
    asked += rep->lines[i].t.asked, gen_errors += rep->lines[i].t.gen_errors;
  bool none = !ret && !rep->interrupted && asked > 0 && gen_errors == asked;
  if (none) {
    cl1_err_set(err, "no policy gave a completion: all %d requested failed; the first: %s", asked,
                L->first_gen_error);
    ret = 3;
  }
  const char *status = ret ? "failed" : rep->interrupted ? "interrupted" : "done";
  cl1_strcpy(rep->status, sizeof rep->status, status);
  if (cl1_store_run_set_status(L->store, L->run_id, status, &e2) && !ret) *err = e2, ret = 3;
  return ret;
}

static void cleanup(cl1_opt_loop *L, collect_state *C) {
  if (L->tmpdir[0]) rmdir(L->tmpdir);
  if (L->abandoned) return; /* producers still waiting on a policy use all of it; the process ends */
  for (int i = 0; i < C->co->n_tasks; i++) cl1_task_free(L->task[i]);
  for (int i = 0; i < C->co->n_policies; i++) cl1_policy_close(C->pol[i]);
  cl1_store_close(L->store);
}

int cl1_collect_run(const cl1_collect_opts *o, cl1_collect_report *rep, cl1_err *err) {
  memset(rep, 0, sizeof *rep);
  double t0 = cl1_now();
  cl1_opt_loop *L = calloc(1, sizeof *L);
  collect_state *C = calloc(1, sizeof *C);
  cl1_optimize_stats *st = calloc(1, sizeof *st);
  if (!L || !C || !st) {
    free(L), free(C), free(st);
    return cl1_err_set(err, "out of memory"), 3;
  }
  C->co = o;
  loop_opts(o, &C->oo);
  *L = (cl1_opt_loop){.o = &C->oo, .st = st, .tty = isatty(2), .producer = collect_thread,
                      .ud = C, .no_resume = true};
  pthread_mutex_init(&L->mu, NULL);
  pthread_cond_init(&L->cv, NULL);
  int ret = prepare(L, C, err);
  if (!ret) {
    rep->run_id = L->run_id;
    ret = cl1_opt_pipeline(L, err) ? (L->fatal_rc ? L->fatal_rc : 3) : 0;
    if (o->progress && L->tty) fputs("\n", stderr);
    st->interrupted = cl1_opt_stopping(L) && !L->fatal;
    ret = finish(L, C, rep, ret, err);
  }
  rep->wall_s = cl1_now() - t0;
  cleanup(L, C);
  if (L->abandoned) return ret; /* its threads still use L, C and st */
  pthread_mutex_destroy(&L->mu);
  pthread_cond_destroy(&L->cv);
  free(L), free(C), free(st);
  return ret;
}

/* ---- the report ------------------------------------------------------------------------------- */

static double rate(int k, int judged) { return judged > 0 ? (double)k / judged : NAN; }

/* "2 (66.7%)", or "0 (-)" when nothing was judged. */
static void cell(char *buf, size_t n, int k, int judged) {
  if (judged > 0) snprintf(buf, n, "%d (%.1f%%)", k, 100.0 * k / judged);
  else snprintf(buf, n, "%d (-)", k);
}

static const char *model_of(const cl1_collect_policy *p) {
  return p->kind[0] == 'o' ? p->model : "(replay)";
}

char *cl1_collect_report_table(const cl1_collect_opts *o, const cl1_collect_report *r) {
  size_t cap = 1024 + (size_t)r->n_lines * 512, len = 0;
  char *out = malloc(cap);
  if (!out) return NULL;
  int w = 6, mw = 5;
  for (int i = 0; i < r->n_lines; i++) {
    int a = (int)strlen(r->lines[i].p->name), b = (int)strlen(model_of(r->lines[i].p));
    w = a > w ? a : w;
    mw = b > mw ? (b > 40 ? 40 : b) : mw;
  }
  len += (size_t)snprintf(out + len, cap - len,
                          "collect run %lld%s: %d task%s x %d completion%s per policy, %s/%s\n"
                          "%-*s  %-*.*s  %6s  %6s  %-14s  %-14s  %-14s  %s\n",
                          (long long)r->run_id, r->interrupted                  ? " (stopped)"
                                                : !strcmp(r->status, "failed") ? " (failed)" : "",
                          o->n_tasks,
                          o->n_tasks == 1 ? "" : "s", o->n, o->n == 1 ? "" : "s", o->device,
                          o->shapes, w, "policy", mw, mw, "model", "asked", "infra", "with code",
                          "executable", "correct", "faster");
  for (int i = 0; i < r->n_lines; i++) {
    const cl1_collect_line *l = &r->lines[i];
    char c[4][32];
    cell(c[0], sizeof c[0], l->with_code, l->judged);
    cell(c[1], sizeof c[1], l->t.executable, l->judged);
    cell(c[2], sizeof c[2], l->t.correct, l->judged);
    cell(c[3], sizeof c[3], l->t.faster, l->judged);
    len += (size_t)snprintf(out + len, cap - len, "%-*s  %-*.*s  %6d  %6d  %-14s  %-14s  %-14s  %s\n",
                            w, l->p->name, mw, mw, model_of(l->p), l->t.asked, l->infra, c[0], c[1],
                            c[2], c[3]);
  }
  snprintf(out + len, cap - len,
           "rates: of the completions judged (asked - infra); faster: correct with speedup > 1.0\n"
           "infra: generation errors, and code left unevaluated (the evaluator could not judge it, "
           "or the run was stopped); never counted against a policy\n");
  return out;
}

static void add_rate(cJSON *o, const char *k, int n, int judged) {
  double v = rate(n, judged);
  if (isnan(v)) cJSON_AddNullToObject(o, k);
  else cJSON_AddNumberToObject(o, k, v);
}

static cJSON *line_json(const cl1_collect_line *l) {
  cJSON *q = cJSON_CreateObject();
  cJSON_AddStringToObject(q, "name", l->p->name);
  cJSON_AddStringToObject(q, "kind", l->p->kind);
  if (l->p->kind[0] == 'o') {
    cJSON_AddStringToObject(q, "model", l->p->model);
    cJSON_AddStringToObject(q, "base_url", l->p->url);
  } else {
    cJSON_AddNullToObject(q, "model");
    cJSON_AddStringToObject(q, "replay", l->p->file);
  }
  const char *k[] = {"asked", "infra", "gen_errors", "unevaluated", "judged", "with_code",
                     "executable", "correct", "faster"};
  int v[] = {l->t.asked, l->infra, l->t.gen_errors, l->t.unjudged, l->judged, l->with_code,
             l->t.executable, l->t.correct, l->t.faster};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) cJSON_AddNumberToObject(q, k[i], v[i]);
  cJSON *rt = cJSON_AddObjectToObject(q, "rates");
  add_rate(rt, "with_code", l->with_code, l->judged);
  add_rate(rt, "executable", l->t.executable, l->judged);
  add_rate(rt, "correct", l->t.correct, l->judged);
  add_rate(rt, "faster", l->t.faster, l->judged);
  return q;
}

char *cl1_collect_report_json(const cl1_collect_opts *o, const cl1_collect_report *r) {
  cJSON *d = cJSON_CreateObject();
  cJSON_AddNumberToObject(d, "run", (double)r->run_id);
  cJSON_AddStringToObject(d, "db", o->db_path);
  cJSON_AddStringToObject(d, "device", o->device);
  cJSON_AddStringToObject(d, "shapes", o->shapes);
  cJSON_AddNumberToObject(d, "tasks", o->n_tasks);
  cJSON_AddNumberToObject(d, "n", o->n);
  cJSON_AddStringToObject(d, "status", r->status);
  cJSON_AddBoolToObject(d, "interrupted", r->interrupted);
  cJSON_AddNumberToObject(d, "wall_s", r->wall_s);
  cJSON *ps = cJSON_AddArrayToObject(d, "policies");
  for (int i = 0; i < r->n_lines; i++) cJSON_AddItemToArray(ps, line_json(&r->lines[i]));
  char *s = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  return s;
}
