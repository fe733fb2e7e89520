/* cmd_optimize.c — `cudal1 optimize`: the contrastive loop (loop/optimize.h) from the command
 * line: which tasks, which policy server or replay file, how many rounds and samples, where the
 * store is; Ctrl-C stops cleanly and `--resume RUN` continues. */
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

static const char usage[] =
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
    "  --template FILE       the prompt template (default prompts/contrastive.txt)\n"
    "  --parallel-tasks N    tasks generating at once (default 4)\n"
    "  --compile-jobs N      CUDA compiles ahead of the evaluation queue (default 4)\n"
    "evaluation:\n"
    "  --device cuda|host    (default cuda; host: C solutions on the CPU)\n"
    "  --shapes test|small|large   (default small)\n"
    "  --min-trials N --max-trials N --time-budget S   the timing protocol (evaluator defaults)\n"
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
      "--suite", "--resume", "--backend", "--base-url", "--model", "--replay", "--device",
      "--shapes", "--db", "--out", "--template", "--rounds", "--samples", "--exemplars",
      "--parallel-tasks", "--compile-jobs", "--min-trials", "--max-trials", "--max-tokens",
      "--concurrency", "--retries", "--seed", "--review-threshold", "--tau", "--temperature",
      "--top-p", "--timeout", "--time-budget"};
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
  if (!rc && cl1_optimize_config_parse(r.config, o, &err)) rc = 2;
  cl1_store_run_free(&r);
  cl1_store_close(s);
  if (rc && err.msg[0]) fprintf(stderr, "cudal1 optimize: --resume: %s\n", err.msg);
  *run = id;
  return rc;
}

int cl1_cmd_optimize(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage)) return 0;
  cl1_optimize_opts o;
  cl1_optimize_opts_default(&o);
  const char *resume = NULL, *e = getenv("CUDAL1_BASE_URL");
  o.policy.kind = "openai";
  o.policy.base_url = e && *e ? e : NULL;
  o.policy.api_key = cl1_cli_api_key();
  char *owned[CL1_OPT_MAX_TASKS];
  int n_owned = 0, rc = 0;
  long long v;
  double d;
  for (int i = 1; i < argc && !rc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--no-progress")) { o.progress = false; continue; }
    if (!strcmp(a, "--review")) { o.review = true; continue; }
    if (!strcmp(a, "--task")) {
      if (!val || val[0] == '-') { fprintf(stderr, "cudal1 optimize: --task needs a task id\n"); return 2; }
      while (i + 1 < argc && argv[i + 1][0] != '-' && !rc) {
        if (o.n_tasks >= CL1_OPT_MAX_TASKS) { fprintf(stderr, "cudal1 optimize: too many tasks\n"); return 2; }
        rc = task_id(&o, argv[++i], owned, &n_owned);
      }
      continue;
    }
    if (!val && !takes_value(a)) return cl1_cli_unknown("optimize", a);
    if (!val) { fprintf(stderr, "cudal1 optimize: %s needs a value (see cudal1 optimize --help)\n", a); return 2; }
    i++;
    if (!strcmp(a, "--suite")) rc = add_suite(&o, val, owned, &n_owned);
    else if (!strcmp(a, "--resume")) resume = val;
    else if (!strcmp(a, "--backend")) o.policy.kind = val;
    else if (!strcmp(a, "--base-url")) o.policy.base_url = val;
    else if (!strcmp(a, "--model")) o.policy.model = val;
    else if (!strcmp(a, "--replay")) o.policy.replay_path = val;
    else if (!strcmp(a, "--device")) o.device = val;
    else if (!strcmp(a, "--shapes")) o.shapes = val;
    else if (!strcmp(a, "--db")) o.db_path = val;
    else if (!strcmp(a, "--out")) o.out_dir = val;
    else if (!strcmp(a, "--template")) o.template_path = val;
    else if (!strcmp(a, "--rounds")) rc = cl1_cli_int(a, val, 1, 1000, &v), o.rounds = (int)v;
    else if (!strcmp(a, "--samples")) rc = cl1_cli_int(a, val, 1, 1024, &v), o.samples = (int)v;
    else if (!strcmp(a, "--exemplars")) rc = cl1_cli_int(a, val, 0, CL1_PROMPT_MAX_EXEMPLARS, &v), o.exemplars = (int)v;
    else if (!strcmp(a, "--parallel-tasks")) rc = cl1_cli_int(a, val, 1, 64, &v), o.parallel_tasks = (int)v;
    else if (!strcmp(a, "--compile-jobs")) rc = cl1_cli_int(a, val, 0, 64, &v), o.compile_jobs = (int)v;
    else if (!strcmp(a, "--min-trials")) rc = cl1_cli_int(a, val, 1, 100000, &v), o.min_trials = (int)v;
    else if (!strcmp(a, "--max-trials")) rc = cl1_cli_int(a, val, 1, 100000, &v), o.max_trials = (int)v;
    else if (!strcmp(a, "--max-tokens")) rc = cl1_cli_int(a, val, 1, 10000000, &v), o.policy.max_tokens = (int)v;
    else if (!strcmp(a, "--concurrency")) rc = cl1_cli_int(a, val, 1, 1024, &v), o.policy.concurrency = (int)v;
    else if (!strcmp(a, "--retries")) rc = cl1_cli_int(a, val, 0, 100, &v), o.policy.retries = (int)v;
    else if (!strcmp(a, "--seed")) {
      rc = cl1_cli_int(a, val, 0, (long long)1 << 53, &v);
      o.seed = (uint64_t)v;
      o.policy.seed = v;
      o.policy.has_seed = 1;
    }
    else if (!strcmp(a, "--review-threshold")) rc = cl1_cli_double(a, val, 0, 1e9, &d), o.review_threshold = d;
    else if (!strcmp(a, "--tau")) rc = cl1_cli_double(a, val, 1e-6, 1e6, &d), o.tau = d;
    else if (!strcmp(a, "--temperature")) rc = cl1_cli_double(a, val, 0, 10, &d), o.policy.temperature = d;
    else if (!strcmp(a, "--top-p")) rc = cl1_cli_double(a, val, 0, 1, &d), o.policy.top_p = d;
    else if (!strcmp(a, "--timeout")) rc = cl1_cli_double(a, val, 0.001, 86400, &d), o.policy.timeout_s = d;
    else if (!strcmp(a, "--time-budget")) rc = cl1_cli_double(a, val, 0.01, 3600, &d), o.time_budget_s = d;
    else rc = cl1_cli_unknown("optimize", a);
  }
  int64_t run = 0;
  if (!rc && resume) {
    if (o.n_tasks) { fprintf(stderr, "cudal1 optimize: --resume takes the run's own tasks; drop --task/--suite\n"); rc = 2; }
    else rc = load_resume(o.db_path, resume, &o, &run);
  }
  if (!rc && !o.n_tasks) { fprintf(stderr, "cudal1 optimize: no task given (--task ID, --suite LEVEL or --resume RUN)\n"); rc = 2; }
  if (!rc && !strcmp(o.policy.kind, "openai") && !o.policy.base_url) {
    fprintf(stderr, "cudal1 optimize: --base-url (or $CUDAL1_BASE_URL) is needed for the openai backend\n");
    rc = 2;
  }
  if (!rc && !strcmp(o.policy.kind, "replay") && !o.policy.replay_path) {
    fprintf(stderr, "cudal1 optimize: --replay FILE is needed for the replay backend\n");
    rc = 2;
  }
  if (rc) {
    for (int i = 0; i < n_owned; i++) free(owned[i]);
    cl1_optimize_opts_release(&o);
    return rc;
  }
  struct sigaction sa = {0};
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  cl1_optimize_stats st;
  cl1_err err = {{0}};
  rc = cl1_optimize_run(&o, run, &st, &err);
  if (rc) fprintf(stderr, "cudal1 optimize: %s\n", err.msg);
  if (st.run_id) {
    printf("run %lld%s: %d samples, %d evaluated, %d passed (%d generation errors, %d replies "
           "without usable code); %d of %d tasks with a passing solution; %.1f s\n",
           (long long)st.run_id, st.interrupted ? " (stopped)" : "", st.samples, st.evaluated,
           st.passed, st.gen_errors, st.parse_failures, st.tasks_improved, o.n_tasks, st.wall_s);
    printf("best solutions: %s/run-%lld/   report: cudal1 report --db %s --run %lld\n", o.out_dir,
           (long long)st.run_id, o.db_path, (long long)st.run_id);
    if (st.interrupted) printf("continue with: cudal1 optimize --db %s --resume %lld\n", o.db_path,
                               (long long)st.run_id);
  }
  for (int i = 0; i < n_owned; i++) free(owned[i]);
  cl1_optimize_opts_release(&o);
  return rc ? rc : st.interrupted ? 130 : 0;
}
