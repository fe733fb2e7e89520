/* cmd_collect.c — `cudal1 collect`: stage 1 of CUDA-L1's training from the command line (loop/
 * collect.h): which policies (--policy NAME=...), which tasks, how many completions each; the
 * evaluation options shared with eval and optimize; the per-policy report as a table or JSON.
 * Ctrl-C stops asking and still prints the report of what was recorded. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "loop/collect.h"

static const char usage_head[] =
    "usage: cudal1 collect --db DB --policy SPEC [--policy SPEC ...] --tasks TASK... [-n N]\n"
    "                      [options]\n"
    "\n"
    "Stage 1 of CUDA-L1's training (data collection): every policy answers every task's round-1\n"
    "prompt (the optimizer's prompt without exemplars, the prompt `cudal1 dataset sft` puts in its\n"
    "rows) N times; each reply is parsed, evaluated and recorded in the store with the policy's\n"
    "NAME and model, in one run labelled 'collect'. `cudal1 dataset sft` then exports the correct\n"
    "ones. At the end, per policy: completions asked, infra errors, replies with code, executable\n"
    "(compiled and ran), correct (pass) and faster (pass with speedup > 1.0), with rates.\n"
    "\n"
    "  --db DB               the store (created if absent)\n"
    "  --policy SPEC         a policy, repeatable, names distinct:\n"
    "                          NAME=openai:URL:MODEL  an OpenAI-compatible server; URL starts with\n"
    "                            http:// or https://, MODEL is everything after the first ':'\n"
    "                            past the URL's host:port, or past its path's start when it has\n"
    "                            one: A=openai:http://127.0.0.1:8000/v1:qwen2.5:7b\n"
    "                          NAME=openai:URL#MODEL  the same, split at the last '#' (any URL)\n"
    "                          NAME=replay:FILE       completions from a JSONL file (as optimize's\n"
    "                            --replay)\n"
    "                        NAME: letters, digits, '_', '-', '.'\n"
    "  --tasks TASK...       suite ids, task folders or task.json files, or level1, level2,\n"
    "                        level3 or all (several may follow one --tasks; repeatable)\n"
    "  -n N                  completions per task per policy (default 4)\n"
    "  --api-key-env VAR     the openai policies' API key from $VAR (default: $CUDAL1_API_KEY,\n"
    "                        else $OPENAI_API_KEY, as optimize; none: no header)\n"
    "  --temperature T --max-tokens M\n"
    "  --concurrency C       requests in flight per policy (default 4)\n"
    "  --json                the report as one JSON object on stdout\n"
    "  --no-progress         no status line on stderr\n"
    "evaluation (shared with cudal1 eval and optimize):\n";

static const char usage_tail[] =
    "\n"
    "Infra errors — a completion the server or the replay file did not give, code the evaluator\n"
    "could not judge or that Ctrl-C left unevaluated — never count against a policy: the rates\n"
    "are of the completions judged (asked - infra).\n"
    "Exit status: 0 done, 130 stopped by Ctrl-C (the report so far is printed; what was recorded\n"
    "stays), 2 usage or input error (a malformed --policy, a duplicate NAME, a task, a replay\n"
    "file), 3 the collection could not go on (a server unreachable, the store, no GPU, an\n"
    "evaluation the evaluator could not judge, no completion at all).\n";

static volatile sig_atomic_t g_sigints;

static void on_sigint(int sig) {
  (void)sig;
  if (++g_sigints > 1) _exit(130);
  cl1_collect_stop();
  static const char msg[] = "\ncudal1 collect: stopping after the evaluation in progress "
                            "(Ctrl-C again to quit at once)\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
}

typedef struct {
  cl1_collect_opts o;
  cl1_eval_opts eval;       /* the evaluation options shared with eval (cli_evalopts.c) */
  const char *key_env;
  bool json;
} collect_args;

/* Task arg (a level or one task) added by suite id; 0, or 2 (said). */
static int add_task(cl1_collect_opts *o, const char *arg) {
  cl1_task_ref ref;
  if (cl1_cli_task("collect", arg, &ref)) return 2;
  int rc = 0;
  if (!ref.in_suite) {
    fprintf(stderr, "cudal1 collect: %s holds task %s but is not the suite's (%s/%s): the store "
            "keeps a task by its id\n", ref.dir, ref.task->id, cl1_suite_root(), ref.task->id);
    rc = 2;
  }
  for (int i = 0; i < o->n_tasks && !rc; i++)
    if (!strcmp(o->tasks[i], ref.task->id)) {
      fprintf(stderr, "cudal1 collect: --tasks: '%s' names %s a second time\n", arg, ref.task->id);
      rc = 2;
    }
  if (!rc && o->n_tasks >= CL1_OPT_MAX_TASKS) {
    fprintf(stderr, "cudal1 collect: --tasks: more than %d tasks\n", CL1_OPT_MAX_TASKS);
    rc = 2;
  }
  if (!rc && !(o->tasks[o->n_tasks] = strdup(ref.task->id))) rc = 3;
  if (!rc) o->n_tasks++;
  cl1_task_ref_release(&ref);
  return rc;
}

static int add_tasks(cl1_collect_opts *o, const char *arg) {
  int lv = !strcmp(arg, "all") ? 0 : !strcmp(arg, "level1") ? 1 : !strcmp(arg, "level2") ? 2
           : !strcmp(arg, "level3") ? 3 : -1;
  if (lv < 0) return add_task(o, arg);
  char *paths[1024];
  int n = cl1_cli_suite_tasks(lv, paths, 1024), rc = 0;
  if (!n) {
    fprintf(stderr, "cudal1 collect: --tasks %s: no tasks under %s\n", arg, cl1_suite_root());
    rc = 2;
  }
  for (int i = 0; i < n; i++) {
    if (!rc) rc = add_task(o, paths[i]);
    free(paths[i]);
  }
  return rc;
}

static int add_policy(cl1_collect_opts *o, const char *spec) {
  cl1_err err = {{0}};
  if (o->n_policies >= CL1_COLLECT_MAX_POLICIES) {
    fprintf(stderr, "cudal1 collect: --policy '%s': more than %d policies\n", spec,
            CL1_COLLECT_MAX_POLICIES);
    return 2;
  }
  cl1_collect_policy *p = &o->policies[o->n_policies];
  if (cl1_collect_policy_parse(spec, p, &err)) {
    fprintf(stderr, "cudal1 collect: --policy '%s': %s\n", spec, err.msg);
    return 2;
  }
  for (int i = 0; i < o->n_policies; i++)
    if (!strcmp(o->policies[i].name, p->name)) {
      fprintf(stderr, "cudal1 collect: --policy '%s': the name %s is taken by an earlier "
              "--policy\n", spec, p->name);
      return 2;
    }
  o->n_policies++;
  return 0;
}

/* An option with a value at argv[*i]; 0, 2 (said), or -1 when it is none of them. */
static int parse_value(collect_args *a, int argc, char **argv, int *i) {
  static const char *const names[] = {"--db", "--policy", "--tasks", "-n", "--api-key-env",
                                      "--temperature", "--max-tokens", "--concurrency"};
  const char *f = argv[*i];
  size_t k = 0;
  while (k < sizeof names / sizeof *names && strcmp(f, names[k])) k++;
  if (k == sizeof names / sizeof *names) return -1;
  if (*i + 1 >= argc || (argv[*i + 1][0] == '-' && argv[*i + 1][1])) {
    fprintf(stderr, "cudal1 collect: %s needs a value (see cudal1 collect --help)\n", f);
    return 2;
  }
  const char *v = argv[++*i];
  cl1_collect_opts *o = &a->o;
  long long n = 0;
  int rc = 0;
  switch (k) {
  case 0: o->db_path = v; break;
  case 1: rc = add_policy(o, v); break;
  case 2:
    rc = add_tasks(o, v);
    while (!rc && *i + 1 < argc && argv[*i + 1][0] != '-') rc = add_tasks(o, argv[++*i]);
    break;
  case 3: if (!(rc = cl1_cli_int(f, v, 1, 1024, &n))) o->n = (int)n; break;
  case 4: a->key_env = v; break;
  case 5: rc = cl1_cli_double(f, v, 0, 10, &o->request.temperature); break;
  case 6: if (!(rc = cl1_cli_int(f, v, 1, 10000000, &n))) o->request.max_tokens = (int)n; break;
  case 7: if (!(rc = cl1_cli_int(f, v, 1, 1024, &n))) o->request.concurrency = (int)n; break;
  }
  return rc;
}

/* What the options must say together, and the API key; 0, or 2 (said). */
static int check_args(collect_args *a) {
  cl1_collect_opts *o = &a->o;
  const char *missing = !a->o.db_path ? "--db DB (the store to record in)"
                        : !o->n_policies ? "--policy NAME=openai:URL:MODEL or NAME=replay:FILE"
                        : !o->n_tasks ? "--tasks TASK... (or level1, level2, level3, all)" : NULL;
  if (missing) {
    fprintf(stderr, "cudal1 collect: %s is required\n", missing);
    return 2;
  }
  bool openai = false;
  for (int i = 0; i < o->n_policies; i++) openai |= !strcmp(o->policies[i].kind, "openai");
  if (!a->key_env) {
    o->request.api_key = cl1_cli_api_key();
    return 0;
  }
  const char *k = getenv(a->key_env);
  if (openai && (!k || !*k)) {
    fprintf(stderr, "cudal1 collect: --api-key-env %s: $%s is not set (or empty)\n", a->key_env,
            a->key_env);
    return 2;
  }
  o->request.api_key = k && *k ? k : NULL;
  return 0;
}

static int parse_args(int argc, char **argv, collect_args *a) {
  for (int i = 1; i < argc; i++) {
    int rc = cl1_cli_eval_opt_parse("collect", argc, argv, &i, &a->eval);
    if (rc >= 0) {
      if (rc) return rc;
      continue;
    }
    if (!strcmp(argv[i], "--json")) { a->json = true; continue; }
    if (!strcmp(argv[i], "--no-progress")) { a->o.progress = false; continue; }
    if ((rc = parse_value(a, argc, argv, &i)) > 0) return rc;
    if (rc < 0) return cl1_cli_unknown("collect", argv[i]);
  }
  cl1_cli_eval_opts_finish(&a->eval);
  a->o.device = cl1_backend_name(a->eval.backend);
  a->o.shapes = cl1_shapes_name(a->eval.shapes);
  a->o.min_trials = a->eval.min_trials;
  a->o.max_trials = a->eval.max_trials;
  a->o.time_budget_s = a->eval.time_budget_s;
  return check_args(a);
}

static int run(collect_args *a) {
  struct sigaction sa = {0};
  sa.sa_handler = on_sigint;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  cl1_collect_report rep;
  cl1_err err = {{0}};
  int rc = cl1_collect_run(&a->o, &rep, &err);
  if (rc) fprintf(stderr, "cudal1 collect: %s\n", err.msg);
  if (rep.run_id) { /* what was recorded, also after Ctrl-C or a failure */
    char *text = a->json ? cl1_collect_report_json(&a->o, &rep) : cl1_collect_report_table(&a->o, &rep);
    if (!text) return fprintf(stderr, "cudal1 collect: out of memory\n"), 3;
    fputs(text, stdout);
    if (a->json) fputs("\n", stdout);
    free(text);
    fflush(stdout);
  }
  return rc ? rc : rep.interrupted ? 130 : 0;
}

int cl1_cmd_collect(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage_head)) {
    cl1_cli_eval_opts_usage(stdout);
    fputs(usage_tail, stdout);
    return 0;
  }
  collect_args *a = calloc(1, sizeof *a);
  if (!a) return fprintf(stderr, "cudal1 collect: out of memory\n"), 3;
  cl1_collect_opts_default(&a->o);
  a->o.db_path = NULL;
  a->o.progress = true;
  cl1_eval_opts_default(&a->eval);
  int rc = parse_args(argc, argv, a);
  if (!rc) rc = run(a);
  for (int i = 0; i < a->o.n_tasks; i++) free(a->o.tasks[i]);
  free(a);
  return rc;
}
