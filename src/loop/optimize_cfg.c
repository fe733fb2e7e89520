/* optimize_cfg.c — the optimize run's options (defaults, the config JSON stored with the run and
 * read back by --resume), its setup (store, tasks, policy, the run row, the device check) and its
 * outputs (each task's best passing solution under out/run-<id>/ and summary.json). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "optimize_int.h"
#include "../base/file.h"
#include "../base/proc.h"
#include "../eval/eval.h"
#include "review.h"

void cl1_optimize_opts_default(cl1_optimize_opts *o) {
  memset(o, 0, sizeof *o);
  o->rounds = 2;
  o->samples = 4;
  o->exemplars = 2;
  o->tau = 1.0;
  o->device = "cuda";
  o->shapes = "small";
  o->db_path = "cudal1.db";
  o->out_dir = "out";
  o->parallel_tasks = 4;
  o->compile_jobs = 4;
  o->seed = 1;
  o->progress = true;
  o->review_threshold = CL1_REVIEW_DEFAULT_THRESHOLD;
  cl1_policy_opts_default(&o->policy);
}

int cl1_opt_task_index(const cl1_optimize_opts *o, const char *task_id) {
  for (int i = 0; i < o->n_tasks; i++)
    if (!strcmp(o->tasks[i], task_id)) return i;
  return -1;
}

/* ---- config JSON ------------------------------------------------------------------------------ */

char *cl1_optimize_config_json(const cl1_optimize_opts *o) {
  cJSON *c = cJSON_CreateObject(), *t = cJSON_AddArrayToObject(c, "tasks");
  for (int i = 0; i < o->n_tasks; i++) cJSON_AddItemToArray(t, cJSON_CreateString(o->tasks[i]));
  cJSON_AddNumberToObject(c, "rounds", o->rounds);
  cJSON_AddNumberToObject(c, "samples", o->samples);
  cJSON_AddNumberToObject(c, "exemplars", o->exemplars);
  cJSON_AddNumberToObject(c, "tau", o->tau);
  cJSON_AddStringToObject(c, "device", o->device);
  cJSON_AddStringToObject(c, "shapes", o->shapes);
  cJSON_AddStringToObject(c, "out_dir", o->out_dir);
  if (o->template_path) cJSON_AddStringToObject(c, "template", o->template_path);
  cJSON_AddStringToObject(c, "format", cl1_format_name(o->format));
  cJSON_AddNumberToObject(c, "parallel_tasks", o->parallel_tasks);
  cJSON_AddNumberToObject(c, "compile_jobs", o->compile_jobs);
  char seed[24];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
  cJSON_AddStringToObject(c, "seed", seed); /* 64 bits survive as text, not as a double */
  cJSON_AddNumberToObject(c, "min_trials", o->min_trials);
  cJSON_AddNumberToObject(c, "max_trials", o->max_trials);
  cJSON_AddNumberToObject(c, "time_budget_s", o->time_budget_s);
  cJSON_AddBoolToObject(c, "review", o->review);
  cJSON_AddNumberToObject(c, "review_threshold", o->review_threshold);
  const cl1_policy_opts *p = &o->policy;
  cJSON *q = cJSON_AddObjectToObject(c, "policy");
  cJSON_AddStringToObject(q, "kind", p->kind ? p->kind : "");
  if (p->base_url) cJSON_AddStringToObject(q, "base_url", p->base_url);
  if (p->model) cJSON_AddStringToObject(q, "model", p->model);
  if (p->replay_path) cJSON_AddStringToObject(q, "replay", p->replay_path);
  cJSON_AddNumberToObject(q, "temperature", p->temperature);
  cJSON_AddNumberToObject(q, "top_p", p->top_p);
  cJSON_AddNumberToObject(q, "max_tokens", p->max_tokens);
  if (p->has_seed) cJSON_AddNumberToObject(q, "seed", (double)p->seed);
  cJSON_AddNumberToObject(q, "concurrency", p->concurrency);
  cJSON_AddNumberToObject(q, "timeout_s", p->timeout_s);
  cJSON_AddNumberToObject(q, "retries", p->retries);
  cJSON_AddNumberToObject(q, "backoff_s", p->backoff_s);
  char *s = cJSON_Print(c);
  cJSON_Delete(c);
  return s;
}

static const char *str_or(const cJSON *o, const char *k, const char *d) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : d;
}

static double num_or(const cJSON *o, const char *k, double d) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : d;
}

int cl1_optimize_config_parse(const char *json, cl1_optimize_opts *o, cl1_err *err) {
  cJSON *c = cJSON_Parse(json);
  if (!c) return cl1_err_set(err, "the run's config is not JSON");
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "tasks"), *e;
  if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) < 1 || cJSON_GetArraySize(t) > CL1_OPT_MAX_TASKS) {
    cJSON_Delete(c);
    return cl1_err_set(err, "the run's config: tasks: expected 1..%d task ids", CL1_OPT_MAX_TASKS);
  }
  o->n_tasks = 0;
  cJSON_ArrayForEach(e, t) {
    if (!cJSON_IsString(e)) {
      cJSON_Delete(c);
      return cl1_err_set(err, "the run's config: tasks[%d]: not a string", o->n_tasks);
    }
    o->tasks[o->n_tasks++] = e->valuestring;
  }
  o->rounds = (int)num_or(c, "rounds", o->rounds);
  o->samples = (int)num_or(c, "samples", o->samples);
  o->exemplars = (int)num_or(c, "exemplars", o->exemplars);
  o->tau = num_or(c, "tau", o->tau);
  o->device = str_or(c, "device", o->device);
  o->shapes = str_or(c, "shapes", o->shapes);
  o->out_dir = str_or(c, "out_dir", o->out_dir);
  o->template_path = str_or(c, "template", NULL);
  /* runs from before --format asked for the C ABI */
  const char *fmt = str_or(c, "format", "cabi");
  if (cl1_format_parse(fmt, &o->format)) {
    cJSON_Delete(c);
    return cl1_err_set(err, "the run's config: format: expected cabi or kernelbench, got '%s'", fmt);
  }
  o->parallel_tasks = (int)num_or(c, "parallel_tasks", o->parallel_tasks);
  o->compile_jobs = (int)num_or(c, "compile_jobs", o->compile_jobs);
  o->seed = strtoull(str_or(c, "seed", "1"), NULL, 10);
  o->min_trials = (int)num_or(c, "min_trials", 0);
  o->max_trials = (int)num_or(c, "max_trials", 0);
  o->time_budget_s = num_or(c, "time_budget_s", 0);
  o->review = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "review"));
  o->review_threshold = num_or(c, "review_threshold", o->review_threshold);
  const cJSON *q = cJSON_GetObjectItemCaseSensitive(c, "policy");
  cl1_policy_opts *p = &o->policy;
  p->kind = str_or(q, "kind", p->kind);
  p->base_url = str_or(q, "base_url", p->base_url);
  p->model = str_or(q, "model", p->model);
  p->replay_path = str_or(q, "replay", p->replay_path);
  p->temperature = num_or(q, "temperature", p->temperature);
  p->top_p = num_or(q, "top_p", p->top_p);
  p->max_tokens = (int)num_or(q, "max_tokens", p->max_tokens);
  if (cJSON_GetObjectItemCaseSensitive(q, "seed")) {
    p->has_seed = 1;
    p->seed = (long long)num_or(q, "seed", 0);
  }
  p->concurrency = (int)num_or(q, "concurrency", p->concurrency);
  p->timeout_s = num_or(q, "timeout_s", p->timeout_s);
  p->retries = (int)num_or(q, "retries", p->retries);
  p->backoff_s = num_or(q, "backoff_s", p->backoff_s);
  cJSON_Delete(o->cfg_doc); /* the strings read back live in the parsed document */
  o->cfg_doc = c;
  return 0;
}

void cl1_optimize_opts_release(cl1_optimize_opts *o) {
  cJSON_Delete(o->cfg_doc);
  o->cfg_doc = NULL;
}

/* ---- setup -------------------------------------------------------------------------------- */

static int check_opts(const cl1_optimize_opts *o, cl1_err *err) {
  if (o->n_tasks < 1) return cl1_err_set(err, "no task given (--task ID or --suite LEVEL)");
  if (strcmp(o->device, "cuda") && strcmp(o->device, "host"))
    return cl1_err_set(err, "--device: expected cuda or host, got '%s'", o->device);
  if (cl1_shapes_parse(o->shapes) < 0)
    return cl1_err_set(err, "--shapes: expected test, small or large, got '%s'", o->shapes);
  if (o->format != CL1_FORMAT_CABI && o->format != CL1_FORMAT_KERNELBENCH)
    return cl1_err_set(err, "--format: expected cabi or kernelbench");
  /* prompts/review.txt explains the C ABI's ways to fake a speedup, not a Python module's */
  if (o->review && o->format == CL1_FORMAT_KERNELBENCH)
    return cl1_err_set(err, "--review reviews C ABI solutions (prompts/review.txt); it cannot be "
                            "used with --format kernelbench");
  if (o->rounds < 1 || o->samples < 1 || o->exemplars < 0 || !(o->tau > 0) ||
      o->parallel_tasks < 1 || o->compile_jobs < 0)
    return cl1_err_set(err, "rounds, samples and parallel tasks must be >= 1, exemplars and "
                            "compile jobs >= 0, tau > 0");
  return 0;
}

int cl1_opt_load_tasks(cl1_opt_loop *L, cl1_err *err) {
  for (int i = 0; i < L->o->n_tasks; i++) {
    char dir[4096];
    if (cl1_task_find(cl1_suite_root(), L->o->tasks[i], dir, sizeof dir, err) ||
        cl1_task_load(dir, &L->task[i], err))
      return -1;
    if (strcmp(L->task[i]->id, L->o->tasks[i]))
      return cl1_err_set(err, "task '%s': give its full id '%s'", L->o->tasks[i], L->task[i]->id);
    if (!L->task[i]->has_set[cl1_shapes_parse(L->o->shapes)])
      return cl1_err_set(err, "task %s has no '%s' shape set", L->task[i]->id, L->o->shapes);
    /* degenerate at the run's shape set (a note may name one set: ReLU is degenerate only at
       large, where its inputs are all positive) */
    if (cl1_store_task_put(L->store, L->task[i]->id, L->task[i]->level, L->task[i]->name,
                           cl1_task_degenerate_at(L->task[i], cl1_shapes_parse(L->o->shapes)), err))
      return -1;
  }
  return 0;
}

static int open_run(cl1_opt_loop *L, int64_t resume_run, cl1_err *err) {
  const cl1_optimize_opts *o = L->o;
  if (resume_run) {
    cl1_store_run r;
    if (cl1_store_run_get(L->store, resume_run, &r, err)) return -1;
    bool same = !strcmp(r.device, o->device) && !strcmp(r.shapes, o->shapes);
    bool done = !strcmp(r.status, "done");
    cl1_store_run_free(&r);
    if (!same) return cl1_err_set(err, "run %lld: its options do not match", (long long)resume_run);
    if (done) return cl1_err_set(err, "run %lld is done already; nothing to resume", (long long)resume_run);
    L->run_id = resume_run;
    return cl1_store_run_set_status(L->store, resume_run, "running", err);
  }
  char *cfg = cl1_optimize_config_json(o);
  if (!cfg) return cl1_err_set(err, "out of memory");
  int rc = cl1_store_run_create(L->store, cfg, o->policy.kind, o->policy.model, o->device,
                                o->shapes, &L->run_id, err);
  free(cfg);
  return rc;
}

int cl1_opt_prepare(cl1_opt_loop *L, int64_t resume_run, cl1_err *err) {
  const cl1_optimize_opts *o = L->o;
  if (check_opts(o, err)) return 2;
  L->backend = strcmp(o->device, "cuda") ? CL1_BACKEND_HOST : CL1_BACKEND_CUDA;
  L->replay = o->policy.kind && !strcmp(o->policy.kind, "replay");
  if (L->replay && o->review)
    return cl1_err_set(err, "--review asks the policy model for an opinion: it needs --backend openai"), 2;
  if (L->backend == CL1_BACKEND_CUDA && cl1_proc_gpu_name(L->gpu, sizeof L->gpu, err)) return 3;
  if (cl1_policy_open(&o->policy, &L->pol, err)) return 2;
  if (cl1_store_open(o->db_path, &L->store, err)) return 3;
  int rc = cl1_opt_load_tasks(L, err);
  if (rc) return 2;
  /* an unreachable server or a refused key stops here, before a run is recorded */
  if ((rc = cl1_policy_check(L->pol, err))) return rc;
  if (open_run(L, resume_run, err)) return resume_run ? 2 : 3;
  const char *tmp = getenv("TMPDIR");
  snprintf(L->tmpdir, sizeof L->tmpdir, "%s/cudal1-run%lld-XXXXXX", tmp && *tmp ? tmp : "/tmp",
           (long long)L->run_id);
  if (!mkdtemp(L->tmpdir)) return cl1_err_set(err, "cannot create %s: %s", L->tmpdir, strerror(errno)), 3;
  return 0;
}

void cl1_opt_cleanup(cl1_opt_loop *L) {
  if (L->tmpdir[0]) rmdir(L->tmpdir);
  /* threads left waiting on the policy still hold the store, the policy and the tasks; the
     process is about to end (Ctrl-C), so they are not freed under them */
  if (L->abandoned) return;
  for (int i = 0; i < L->o->n_tasks; i++) cl1_task_free(L->task[i]);
  cl1_policy_close(L->pol);
  cl1_store_close(L->store);
}

/* ---- outputs ------------------------------------------------------------------------------ */

/* out/run-<id>/<level>/<name>.cu|c|py for every task with a passing solution in this run, and
 * out/run-<id>/summary.json. */
int cl1_opt_write_outputs(cl1_opt_loop *L, cl1_err *err) {
  const cl1_optimize_opts *o = L->o;
  char dir[4096], path[4400];
  snprintf(dir, sizeof dir, "%s/run-%lld", o->out_dir, (long long)L->run_id);
  if (cl1_file_mkdirs(dir, err)) return -1;
  cJSON *doc = cJSON_CreateObject(), *tasks = cJSON_CreateArray();
  cJSON_AddNumberToObject(doc, "run", (double)L->run_id);
  cJSON_AddStringToObject(doc, "policy", o->policy.kind ? o->policy.kind : "");
  if (L->replay) cJSON_AddStringToObject(doc, "note", "replayed completions (not generated)");
  if (o->policy.model) cJSON_AddStringToObject(doc, "model", o->policy.model);
  cJSON_AddStringToObject(doc, "device", o->device);
  if (L->gpu[0]) cJSON_AddStringToObject(doc, "gpu", L->gpu);
  cJSON_AddStringToObject(doc, "shapes", o->shapes);
  cJSON_AddStringToObject(doc, "format", cl1_format_name(o->format));
  cJSON_AddStringToObject(doc, "db", o->db_path);
  int rc = 0;
  L->st->tasks_improved = 0;
  for (int t = 0; t < o->n_tasks && !rc; t++) {
    int64_t sol = 0;
    double best = 0;
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "task", o->tasks[t]);
    rc = cl1_store_best(L->store, o->tasks[t], o->device, o->shapes, L->run_id, &sol, &best, err);
    if (!rc && sol) {
      char *src = NULL;
      snprintf(path, sizeof path, "%s/level%d", dir, L->task[t]->level);
      rc = cl1_file_mkdirs(path, err) || cl1_store_solution_source(L->store, sol, &src, err);
      snprintf(path, sizeof path, "%s/level%d/%s.%s", dir, L->task[t]->level, L->task[t]->name,
               cl1_format_ext(o->format, L->backend));
      if (!rc) rc = cl1_file_write_atomic(path, src, err);
      free(src);
      cJSON_AddNumberToObject(row, "best_speedup", best);
      cJSON_AddNumberToObject(row, "solution_id", (double)sol);
      cJSON_AddStringToObject(row, "file", path);
      L->st->tasks_improved++;
    } else {
      cJSON_AddNullToObject(row, "best_speedup");
    }
    cJSON_AddItemToArray(tasks, row);
  }
  cJSON_AddItemToObject(doc, "tasks", tasks);
  const cl1_optimize_stats *s = L->st;
  cJSON *js = cJSON_AddObjectToObject(doc, "stats");
  cJSON_AddNumberToObject(js, "samples", s->samples);
  cJSON_AddNumberToObject(js, "evaluated", s->evaluated);
  cJSON_AddNumberToObject(js, "passed", s->passed);
  cJSON_AddNumberToObject(js, "gen_errors", s->gen_errors);
  cJSON_AddNumberToObject(js, "parse_failures", s->parse_failures);
  cJSON_AddNumberToObject(js, "wall_s", s->wall_s);
  cJSON_AddNumberToObject(js, "gen_s", s->gen_s);
  cJSON_AddNumberToObject(js, "eval_s", s->eval_s);
  cJSON_AddNumberToObject(js, "eval_busy_s", s->eval_busy_s);
  cJSON_AddNumberToObject(js, "compile_s", s->compile_s);
  cJSON_AddNumberToObject(js, "loop_overhead_s", s->overhead_s);
  cJSON_AddBoolToObject(js, "interrupted", s->interrupted);
  char *text = cJSON_Print(doc);
  cJSON_Delete(doc);
  snprintf(path, sizeof path, "%s/summary.json", dir);
  if (!rc) rc = text ? cl1_file_write_atomic(path, text, err) : cl1_err_set(err, "out of memory");
  free(text);
  return rc;
}
