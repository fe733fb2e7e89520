/* cmd_optimize.c — `cudal1 optimize`: the contrastive loop (loop/optimize.h) from the command
 * line: which tasks, which policy server or replay file, how many rounds and samples, where the
 * store is; Ctrl-C stops cleanly and `--resume RUN` continues. */
#include <assert.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "loop/optimize.h"
#include "loop/prompt.h"
#include "store/store.h"
#include "task/task.h"

static const char usage_head[] =
    "usage: cudal1 optimize (--task TASK... | --suite level1|level2|level3|all | --resume RUN) [options]\n"
    "\n"
    "CUDA-L1's contrastive loop: for each task and round, the policy sees the reference and\n"
    "earlier solutions with their measured speedups, writes a faster one, and cudal1 evaluates\n"
    "it; everything goes to the store, each task's best solution to OUT/run-<id>/.\n"
    "\n"
    "tasks:\n"
    "  --task TASK...        suite ids (level1/19_ReLU), task folders or their task.json, kept\n"
    "                        by suite id (several may follow one --task)\n"
    "  --suite LEVEL         every task of level1, level2, level3 or all\n"
    "  --resume RUN          continue run RUN (or 'latest') of the store with its own options\n"
    "policy:\n"
    "  --backend openai|replay   (default openai)\n"
    "  --base-url URL        OpenAI-compatible server (default $CUDAL1_BASE_URL); the key comes\n"
    "                        from $CUDAL1_API_KEY, else $OPENAI_API_KEY (none: no header)\n"
    "  --model NAME          the model to ask (openai: required)\n"
    "  --replay FILE         JSONL of completions (replay backend)\n"
    "  --temperature T --top-p P --max-tokens N --seed N\n"
    "  --concurrency N       requests in flight (default 4)\n"
    "  --timeout S           per request (default 600)   --retries N (default 5)\n"
    "loop:\n"
    "  --rounds R            rounds per task (default 2)\n"
    "  --samples N           samples per round (default 4)\n"
    "  --exemplars N         earlier solutions shown per prompt (default 2)\n"
    "  --tau T               exemplar bucket temperature (default 1)\n"
    "  --format cabi|kernelbench  the solutions asked for (default cabi): cabi, a .cu/.c file\n"
    "                        defining cl1_forward (include/cudal1/solution.h); kernelbench, a\n"
    "                        Python file defining class ModelNew that replaces the task's\n"
    "                        PyTorch Model (load_inline, Triton or PyTorch), evaluated as .py\n"
    "  --template FILE       the prompt template (default prompts/contrastive.txt, with\n"
    "                        kernelbench prompts/contrastive_kernelbench.txt)\n"
    "  --parallel-tasks N    tasks generating at once (default 4)\n"
    "  --compile-jobs N      CUDA compiles ahead of the evaluation queue (default 4)\n"
    "evaluation (shared with cudal1 eval):\n";

static const char usage_tail[] =
    "output:\n"
    "  --db PATH             the store (default ./cudal1.db)\n"
    "  --out DIR             best solutions and summary.json (default ./out)\n"
    "  --no-progress         no status line\n"
    "  --review              passes at or above --review-threshold X (default 3) also go to the\n"
    "                        policy model as a reviewer of known speedup fakes; its opinion is\n"
    "                        stored with the evaluation (advisory: the verdict stays)\n"
    "\n"
    "Exit status: 0 done, 130 stopped by Ctrl-C (resume with --resume), 2 usage or input error,\n"
    "3 the run could not go on (store, server setup, no GPU, evaluator failure).\n";

static volatile sig_atomic_t g_sigints;

static void on_sigint(int sig) {
  (void)sig;
  if (++g_sigints > 1) _exit(130);
  cl1_optimize_stop();
  static const char msg[] = "\ncudal1: stopping after the evaluation in progress "
                            "(Ctrl-C again to quit at once)\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
}

/* "suite/level1/19_ReLU/task.json" -> "level1/19_ReLU" */
static char *id_of_path(const char *p) {
  const char *end = strrchr(p, '/');
  if (!end) return NULL;
  const char *a = end - 1;
  int slashes = 0;
  while (a > p && slashes < 2) {
    if (*a == '/') slashes++;
    if (slashes < 2) a--;
  }
  if (*a == '/') a++;
  return strndup(a, (size_t)(end - a));
}

static int add_suite(cl1_optimize_opts *o, const char *level, char **owned, int *n_owned) {
  int lv = !strcmp(level, "all") ? 0 : !strcmp(level, "level1") ? 1 : !strcmp(level, "level2") ? 2
           : !strcmp(level, "level3") ? 3 : -1;
  if (lv < 0) {
    fprintf(stderr, "cudal1 optimize: --suite: expected level1, level2, level3 or all, got '%s'\n", level);
    return 2;
  }
  char *paths[1024];
  int n = cl1_cli_suite_tasks(lv, paths, 1024);
  for (int i = 0; i < n; i++) {
    char *id = id_of_path(paths[i]);
    free(paths[i]);
    if (id && o->n_tasks < CL1_OPT_MAX_TASKS) {
      o->tasks[o->n_tasks++] = id;
      owned[(*n_owned)++] = id;
    } else {
      free(id);
    }
  }
  if (!n) {
    fprintf(stderr, "cudal1 optimize: --suite %s: no tasks under %s\n", level, cl1_suite_root());
    return 2;
  }
  return 0;
}

/* The options that take a value, to tell a trailing one without its value from an unknown one. */
static bool takes_value(const char *a) {
  static const char *const names[] = {
      "--suite", "--resume", "--backend", "--base-url", "--model", "--replay", "--db", "--out",
      "--template", "--format", "--rounds", "--samples", "--exemplars", "--parallel-tasks",
      "--compile-jobs", "--max-tokens", "--concurrency", "--retries", "--seed",
      "--review-threshold", "--tau", "--temperature", "--top-p", "--timeout"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(a, names[i])) return true;
  return false;
}

/* A --task argument, whatever its form, as the suite id the store, the replay file and --resume
 * know it by. */
static int task_id(cl1_optimize_opts *o, const char *arg, char **owned, int *n_owned) {
  cl1_task_ref ref;
  if (cl1_cli_task("optimize", arg, &ref)) return 2;
  int rc = 0;
  if (!ref.in_suite) {
    fprintf(stderr, "cudal1 optimize: %s holds task %s but is not the suite's (%s/%s): the store "
            "keeps a task by its id, so optimize runs the suite's tasks\n", ref.dir, ref.task->id,
            cl1_suite_root(), ref.task->id);
    rc = 2;
  }
  for (int i = 0; i < o->n_tasks && !rc; i++)
    if (!strcmp(o->tasks[i], ref.task->id)) {
      fprintf(stderr, "cudal1 optimize: --task: '%s' names %s a second time\n", arg, ref.task->id);
      rc = 2;
    }
  if (!rc && !(owned[*n_owned] = strdup(ref.task->id))) rc = 3;
  if (!rc) o->tasks[o->n_tasks++] = owned[(*n_owned)++];
  cl1_task_ref_release(&ref);
  return rc;
}

/* --resume: the run's own options from the store */
static int load_resume(const char *db, const char *which, cl1_optimize_opts *o, int64_t *run) {
  cl1_err err = {{0}};
  cl1_store *s = NULL;
  if (access(db, F_OK)) {
    fprintf(stderr, "cudal1 optimize: --resume: no store at %s (--db PATH)\n", db);
    return 2;
  }
  if (cl1_store_open(db, &s, &err)) {
    fprintf(stderr, "cudal1 optimize: %s\n", err.msg);
    return 3;
  }
  int rc = 0;
  long long id = 0;
  if (!strcmp(which, "latest")) {
    int64_t r = 0;
    if (cl1_store_run_latest(s, &r, &err)) rc = 3;
    else if (!r) { snprintf(err.msg, sizeof err.msg, "%s has no runs", db); rc = 2; }
    id = r;
  } else if (cl1_cli_int("--resume", which, 1, (long long)1 << 53, &id)) {
    rc = 2;
    err.msg[0] = 0;
  }
  cl1_store_run r = {0};
  if (!rc && cl1_store_run_get(s, id, &r, &err)) rc = 2;
  if (!rc && !strcmp(r.policy, "collect")) {
    snprintf(err.msg, sizeof err.msg, "run %lld is a collection (cudal1 collect), not an optimize "
             "run", id);
    rc = 2;
  }
  if (!rc && cl1_optimize_config_parse(r.config, o, &err)) rc = 2;
  cl1_store_run_free(&r);
  cl1_store_close(s);
  if (rc && err.msg[0]) fprintf(stderr, "cudal1 optimize: --resume: %s\n", err.msg);
  *run = id;
  return rc;
}

/* What `cudal1 optimize` was asked for. */
typedef struct {
  cl1_optimize_opts o;
  cl1_eval_opts eval;               /* the evaluation options shared with eval (cli_evalopts.c) */
  const char *resume;
  char *owned[CL1_OPT_MAX_TASKS];   /* task ids this command allocated */
  int n_owned;
} opt_args;

/* --task ID...: every argument up to the next option. 0, or 2/3 (said). */
static int parse_tasks(opt_args *a, int argc, char **argv, int *i) {
  if (*i + 1 >= argc || argv[*i + 1][0] == '-') {
    fprintf(stderr, "cudal1 optimize: --task needs a task id\n");
    return 2;
  }
  int rc = 0;
  while (*i + 1 < argc && argv[*i + 1][0] != '-' && !rc) {
    if (a->o.n_tasks >= CL1_OPT_MAX_TASKS) {
      fprintf(stderr, "cudal1 optimize: too many tasks\n");
      return 2;
    }
    rc = task_id(&a->o, argv[++*i], a->owned, &a->n_owned);
  }
  return rc;
}

/* An option with a text value; 0, or -1 when f is none of them. */
static int parse_text(opt_args *a, const char *f, const char *val) {
  cl1_optimize_opts *o = &a->o;
  if (!strcmp(f, "--suite")) return add_suite(o, val, a->owned, &a->n_owned);
  if (!strcmp(f, "--resume")) a->resume = val;
  else if (!strcmp(f, "--backend")) o->policy.kind = val;
  else if (!strcmp(f, "--base-url")) o->policy.base_url = val;
  else if (!strcmp(f, "--model")) o->policy.model = val;
  else if (!strcmp(f, "--replay")) o->policy.replay_path = val;
  else if (!strcmp(f, "--db")) o->db_path = val;
  else if (!strcmp(f, "--out")) o->out_dir = val;
  else if (!strcmp(f, "--template")) o->template_path = val;
  else if (!strcmp(f, "--format")) {
    if (cl1_format_parse(val, &o->format)) {
      fprintf(stderr, "cudal1 optimize: --format: expected cabi or kernelbench, got '%s'\n", val);
      return 2;
    }
  }
  else return -1;
  return 0;
}

/* An option with a number; 0, 2 (said), or -1 when f is none of them. */
static int parse_number(opt_args *a, const char *f, const char *val) {
  cl1_optimize_opts *o = &a->o;
  long long v = 0;
  int rc = -1, *ip = NULL;
  if (!strcmp(f, "--rounds")) rc = cl1_cli_int(f, val, 1, 1000, &v), ip = &o->rounds;
  else if (!strcmp(f, "--samples")) rc = cl1_cli_int(f, val, 1, 1024, &v), ip = &o->samples;
  else if (!strcmp(f, "--exemplars"))
    rc = cl1_cli_int(f, val, 0, CL1_PROMPT_MAX_EXEMPLARS, &v), ip = &o->exemplars;
  else if (!strcmp(f, "--parallel-tasks")) rc = cl1_cli_int(f, val, 1, 64, &v), ip = &o->parallel_tasks;
  else if (!strcmp(f, "--compile-jobs")) rc = cl1_cli_int(f, val, 0, 64, &v), ip = &o->compile_jobs;
  else if (!strcmp(f, "--max-tokens"))
    rc = cl1_cli_int(f, val, 1, 10000000, &v), ip = &o->policy.max_tokens;
  else if (!strcmp(f, "--concurrency")) rc = cl1_cli_int(f, val, 1, 1024, &v), ip = &o->policy.concurrency;
  else if (!strcmp(f, "--retries")) rc = cl1_cli_int(f, val, 0, 100, &v), ip = &o->policy.retries;
  else if (!strcmp(f, "--seed")) {
    if (!(rc = cl1_cli_int(f, val, 0, (long long)1 << 53, &v)))
      o->seed = (uint64_t)v, o->policy.seed = v, o->policy.has_seed = 1;
  }
  else if (!strcmp(f, "--review-threshold")) rc = cl1_cli_double(f, val, 0, 1e9, &o->review_threshold);
  else if (!strcmp(f, "--tau")) rc = cl1_cli_double(f, val, 1e-6, 1e6, &o->tau);
  else if (!strcmp(f, "--temperature")) rc = cl1_cli_double(f, val, 0, 10, &o->policy.temperature);
  else if (!strcmp(f, "--top-p")) rc = cl1_cli_double(f, val, 0, 1, &o->policy.top_p);
  else if (!strcmp(f, "--timeout")) rc = cl1_cli_double(f, val, 0.001, 86400, &o->policy.timeout_s);
  if (ip && !rc) *ip = (int)v;
  return rc;
}

/* The shared evaluation options as the run keeps them (the store and the config know the device
 * and the shapes by name). */
static void adopt_eval_opts(cl1_optimize_opts *o, const cl1_eval_opts *e) {
  o->device = cl1_backend_name(e->backend);
  o->shapes = cl1_shapes_name(e->shapes);
  o->min_trials = e->min_trials;
  o->max_trials = e->max_trials;
  o->time_budget_s = e->time_budget_s;
}

/* The arguments into a: 0, or 2/3 with the message said. */
static int parse_args(int argc, char **argv, opt_args *a) {
  int rc = 0;
  for (int i = 1; i < argc && !rc; i++) {
    const char *f = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if ((rc = cl1_cli_eval_opt_parse("optimize", argc, argv, &i, &a->eval)) >= 0) continue;
    rc = 0;
    if (!strcmp(f, "--no-progress")) { a->o.progress = false; continue; }
    if (!strcmp(f, "--review")) { a->o.review = true; continue; }
    if (!strcmp(f, "--task")) { rc = parse_tasks(a, argc, argv, &i); continue; }
    if (!takes_value(f)) return cl1_cli_unknown("optimize", f);
    if (!val) {
      fprintf(stderr, "cudal1 optimize: %s needs a value (see cudal1 optimize --help)\n", f);
      return 2;
    }
    i++;
    if ((rc = parse_text(a, f, val)) < 0) rc = parse_number(a, f, val);
    assert(rc >= 0);  /* takes_value names only options parse_text or parse_number knows */
  }
  if (rc) return rc;
  cl1_cli_eval_opts_finish(&a->eval);
  adopt_eval_opts(&a->o, &a->eval);
  return 0;
}

/* --resume, and what the options must say together; 0, or 2/3 (said). */
static int check_args(opt_args *a, int64_t *run) {
  cl1_optimize_opts *o = &a->o;
  if (a->resume) {
    if (o->n_tasks) {
      fprintf(stderr, "cudal1 optimize: --resume takes the run's own tasks; drop --task/--suite\n");
      return 2;
    }
    int rc = load_resume(o->db_path, a->resume, o, run);
    if (rc) return rc;
  }
  if (!o->n_tasks) {
    fprintf(stderr, "cudal1 optimize: no task given (--task ID, --suite LEVEL or --resume RUN)\n");
    return 2;
  }
  if (!strcmp(o->policy.kind, "openai") && !o->policy.base_url) {
    fprintf(stderr, "cudal1 optimize: --base-url (or $CUDAL1_BASE_URL) is needed for the openai "
                    "backend\n");
    return 2;
  }
  if (!strcmp(o->policy.kind, "replay") && !o->policy.replay_path) {
    fprintf(stderr, "cudal1 optimize: --replay FILE is needed for the replay backend\n");
    return 2;
  }
  return 0;
}

static void print_summary(const cl1_optimize_opts *o, const cl1_optimize_stats *st) {
  if (!st->run_id) return;
  printf("run %lld%s: %d samples, %d evaluated, %d passed (%d generation errors, %d replies "
         "without usable code); %d of %d tasks with a passing solution; %.1f s\n",
         (long long)st->run_id, st->interrupted ? " (stopped)" : "", st->samples, st->evaluated,
         st->passed, st->gen_errors, st->parse_failures, st->tasks_improved, o->n_tasks, st->wall_s);
  printf("best solutions: %s/run-%lld/   report: cudal1 report --db %s --run %lld\n", o->out_dir,
         (long long)st->run_id, o->db_path, (long long)st->run_id);
  if (st->interrupted)
    printf("continue with: cudal1 optimize --db %s --resume %lld\n", o->db_path,
           (long long)st->run_id);
}

/* The loop, Ctrl-C stopping it cleanly; the exit status. */
static int run(const cl1_optimize_opts *o, int64_t resume_run) {
  struct sigaction sa = {0};
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  cl1_optimize_stats st;
  cl1_err err = {{0}};
  int rc = cl1_optimize_run(o, resume_run, &st, &err);
  if (rc) fprintf(stderr, "cudal1 optimize: %s\n", err.msg);
  print_summary(o, &st);
  return rc ? rc : st.interrupted ? 130 : 0;
}

int cl1_cmd_optimize(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage_head)) {
    cl1_cli_eval_opts_usage(stdout);
    fputs(usage_tail, stdout);
    return 0;
  }
  opt_args *a = calloc(1, sizeof *a);
  if (!a) return fprintf(stderr, "cudal1 optimize: out of memory\n"), 3;
  cl1_optimize_opts_default(&a->o);
  cl1_eval_opts_default(&a->eval);
  const char *e = getenv("CUDAL1_BASE_URL");
  a->o.policy.kind = "openai";
  a->o.policy.base_url = e && *e ? e : NULL;
  a->o.policy.api_key = cl1_cli_api_key();
  int64_t resume_run = 0;
  int rc = parse_args(argc, argv, a);
  if (!rc) rc = check_args(a, &resume_run);
  if (!rc) rc = run(&a->o, resume_run);
  for (int i = 0; i < a->n_owned; i++) free(a->owned[i]);
  cl1_optimize_opts_release(&a->o);
  free(a);
  return rc;
}
