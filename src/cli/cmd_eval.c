/* cmd_eval.c — `cudal1 eval`: one candidate, one verdict, a short report or JSON. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "base/file.h"
#include "eval/eval.h"
#include "loop/review.h"
#include "loop/baselines.h"
#include "store/store.h"
#include "policy/policy.h"
#include "task/task.h"

static const char help_head[] =
    "usage: cudal1 eval --task TASK --solution FILE [options]\n"
    "\n"
    "Evaluates FILE (CUDA C++ .cu for --device cuda, C .c for --device host) against the task's\n"
    "reference: static gate, compile (cached), verification on fresh random inputs in a sandboxed\n"
    "process, timing against the reference, speedup, reward and verdict.\n"
    "\n"
    "options:\n"
    "  --task TASK          suite id (level1/19_ReLU; also 19_ReLU, 1/19), task folder or its\n"
    "                       task.json\n"
    "  --solution FILE      the candidate source\n"
    "evaluation (shared with cudal1 optimize):\n";

static const char help_tail[] =
    "more evaluation options:\n"
    "  --graph              time CUDA-graph launches of the call (both solutions)\n"
    "  --warm-cache         do not flush L2 between trials\n"
    "  --json               print the result as JSON\n"
    "  --seed N             fixed seeds (default: fresh random seeds per evaluation)\n"
    "  --time-sets N        input sets rotated while timing, 1-4 (default 2)\n"
    "  --timeout S          per-call time limit in seconds (default 10)\n"
    "  --hold-us U          CUDA: hold the whole GPU U us before each timed call's start event,\n"
    "                       so the call's launches are queued when it starts (default 100; 0: off)\n"
    "  --suspicious X       re-measure speedups >= X in fresh processes (default 3)\n"
    "  --remeasure N        how many re-measurements (default 2)\n"
    "  --peak-bw B          bytes/s for the roofline floor instead of `cudal1 gpu peaks`' cache\n"
    "  --reward-stats FILE  running per-task reward statistics (JSON, created if missing): the\n"
    "                       reward is also normalised against them, and a speedup over twice the\n"
    "                       task's best so far is re-measured\n"
    "  --reward-clip K      clip of the normalised reward (default 1.5)\n"
    "  --log-reward         reward = ln(speedup) instead of the speedup\n"
    "  --mem-allowance MIB  the candidate's memory beyond what the harness holds when the\n"
    "                       sandbox closes (default: 2x the task's data + 1024 on the host,\n"
    "                       3x + 8192 on CUDA; `--json` says the figures used under \"machine\")\n"
    "  --no-sandbox         debugging only: run the candidate unconfined\n"
    "  --baseline NAME      also the speedup against PyTorch baseline NAME (eager, compile,\n"
    "                       reduce-overhead, graph; repeatable) from the store (--db PATH,\n"
    "                       default ./cudal1.db; `cudal1 baselines import`), through the\n"
    "                       reference timed beside it\n"
    "  --db PATH            the store --baseline reads (default ./cudal1.db)\n"
    "  --review             a pass at or above --review-threshold (default 3) goes to a reviewer\n"
    "                       model with the known ways to fake a speedup; its opinion is printed\n"
    "                       and kept in the JSON (\"review\"), the verdict stays the measured one\n"
    "  --review-model NAME  the reviewer (required with --review)\n"
    "  --review-base-url U  its OpenAI-compatible server (default $CUDAL1_BASE_URL; key from\n"
    "                       $CUDAL1_API_KEY, else $OPENAI_API_KEY)\n"
    "  --review-threshold X --review-template FILE (default prompts/review.txt)\n"
    "\n"
    "verdicts: pass, incorrect, crash, timeout, compile_error, rejected:<rule>, hack:<class>,\n"
    "infra_error. Exit status: 0 pass, 1 the candidate failed, 2 usage/input error,\n"
    "3 infrastructure error.\n";

static void report(const cl1_eval_opts *o, const cl1_eval_result *r) {
  printf("task      %s (%s shapes, %s%s%s%s%s)\n", r->task_id, cl1_shapes_name(o->shapes),
         cl1_backend_name(o->backend), r->device[0] ? ": " : "", r->device,
         r->driver[0] ? ", driver " : "", r->driver);
  bool gated = strncmp(r->verdict, "rejected:", 9) != 0;
  printf("gate      %s\n", gated ? "ok" : r->verdict);
  if (!gated) { printf("verdict   %s — %s\n", r->verdict, r->message); return; }
  if (!strcmp(r->verdict, "compile_error")) {
    printf("compile   failed\n%s\n", r->diag);
    printf("verdict   %s — %s\n", r->verdict, r->message);
    return;
  }
  printf("compile   ok, %.2f s%s\n", r->compile_s, r->compile_cached ? " (cached)" : "");
  printf("correct   %d check%s passed, max abs err %.3g, max rel err %.3g\n", r->checks,
         r->checks == 1 ? "" : "s", r->max_abs, r->max_rel);
  if (r->ref.n && r->cand.n) {
    printf("timing    reference %.4f ms  [IQR %.4f-%.4f, min %.4f, n=%d]\n", r->ref.median,
           r->ref.q1, r->ref.q3, r->ref.min, r->ref.n);
    printf("          candidate %.4f ms  [IQR %.4f-%.4f, min %.4f, n=%d]%s\n", r->cand.median,
           r->cand.q1, r->cand.q3, r->cand.min, r->cand.n,
           r->measurements > 1 ? "  (re-measured)" : "");
    printf("speedup   %.3fx  (median of %d paired trials, 95%% CI +-%.1f%%)\n", r->speedup,
           r->ref.n < r->cand.n ? r->ref.n : r->cand.n, 50 * r->speedup_ci_rel);
  }
  if (!strcmp(r->verdict, "infra_error"))
    printf("reward    none (infra_error: no signal; the sample is retried or dropped)\n");
  else if (r->has_reward_norm)
    printf("reward    %.3f (normalised against the task's history: %.3f)\n", r->reward,
           r->reward_norm);
  else
    printf("reward    %.3f\n", r->reward);
  if (r->reward_note[0]) printf("note      reward statistics not updated: %s\n", r->reward_note);
  if (r->n_flags) {
    printf("flags    ");
    for (int i = 0; i < r->n_flags; i++) printf(" %s", r->flags[i]);
    printf("\n");
  }
  printf("verdict   %s — %s\n", r->verdict, r->message);
  if (r->cand_log[0] && strcmp(r->verdict, "pass"))
    printf("candidate output (tail):\n%s\n", r->cand_log);
}

typedef struct {
  bool on;
  double threshold;
  const char *model, *base_url, *template_path;
} review_opts;

/* The reviewer's opinion of a result that wants one (NULL otherwise or when it cannot be asked:
 * said on stderr, the verdict stands). */
static cJSON *review(const review_opts *ro, const cl1_eval_opts *o, const cl1_task *task,
                     const cl1_eval_result *r) {
  if (!ro->on || !cl1_review_wanted(r, ro->threshold)) return NULL;
  cl1_err err = {{0}};
  cl1_policy_opts po;
  cl1_policy_opts_default(&po);
  po.kind = "openai";
  po.base_url = ro->base_url;
  po.model = ro->model;
  po.api_key = cl1_cli_api_key();
  po.retries = 2;
  cl1_policy *p = NULL;
  char *src = NULL;
  cJSON *out = NULL;
  size_t src_n;
  cl1_review rv;
  memset(&rv, 0, sizeof rv);
  if (!cl1_file_read(o->solution, 16LL << 20, &src, &src_n, &err) &&
      !cl1_policy_open(&po, &p, &err) &&
      !cl1_review_run(p, task, cl1_backend_name(o->backend), cl1_shapes_name(o->shapes), src, r,
                      ro->template_path, &rv, &err))
    out = cl1_review_json(&rv, ro->model);
  if (!out) fprintf(stderr, "cudal1 eval: --review: %s\n", err.msg);
  else if (!rv.ok) fprintf(stderr, "cudal1 eval: --review: no opinion: %s\n", rv.error);
  cl1_review_free(&rv);
  cl1_policy_close(p);
  free(src);
  return out;
}

/* What `cudal1 eval` was asked for. */
typedef struct {
  cl1_eval_opts o;
  const char *baselines[8], *db;
  int n_baselines;
  review_opts ro;
  bool json;
} eval_args;

/* An option without a value; false when a is none of them. */
static bool parse_switch(eval_args *e, const char *a) {
  if (!strcmp(a, "--graph")) e->o.graph = true;
  else if (!strcmp(a, "--warm-cache")) e->o.warm_cache = true;
  else if (!strcmp(a, "--json")) e->json = true;
  else if (!strcmp(a, "--review")) e->ro.on = true;
  else if (!strcmp(a, "--no-sandbox")) e->o.no_sandbox = true;
  else if (!strcmp(a, "--log-reward")) e->o.reward.log_speedup = true;
  else return false;
  return true;
}

/* --reward-clip K: the reward's clip, floor and hack penalty all follow K. */
static void set_reward_clip(cl1_reward_cfg *c, double k) {
  bool lg = c->log_speedup;
  cl1_reward_cfg_default(c);
  c->log_speedup = lg;
  c->clip = k, c->floor = -(k + 0.5), c->hack_penalty = -(k + 1.5);
}

/* An eval-only option with a number; 0, 2 (said), or -1 when a is none of them. */
static int parse_number(eval_args *e, const char *a, const char *v) {
  cl1_eval_opts *o = &e->o;
  long long n;
  double d;
  if (!strcmp(a, "--review-threshold")) return cl1_cli_double(a, v, 0, 1e9, &e->ro.threshold);
  if (!strcmp(a, "--timeout")) return cl1_cli_double(a, v, 0.1, 3600, &o->call_timeout_s);
  if (!strcmp(a, "--suspicious")) return cl1_cli_double(a, v, 1, 1e9, &o->suspicious_speedup);
  if (!strcmp(a, "--hold-us")) return cl1_cli_double(a, v, 0, 10000, &o->hold_us);
  if (!strcmp(a, "--peak-bw")) return cl1_cli_double(a, v, 1e9, 1e15, &o->peak_bw);
  if (!strcmp(a, "--reward-clip")) {
    if (cl1_cli_double(a, v, 0.01, 1000, &d)) return 2;
    set_reward_clip(&o->reward, d);
    return 0;
  }
  int rc = -1;
  if (!strcmp(a, "--mem-allowance")) {
    if (!(rc = cl1_cli_int(a, v, 1, 1 << 24, &n))) o->mem_limit = (size_t)n << 20;
  } else if (!strcmp(a, "--seed")) {
    if (!(rc = cl1_cli_int(a, v, 1, (long long)9e18, &n))) o->seed = (uint64_t)n;
  } else if (!strcmp(a, "--time-sets")) {
    if (!(rc = cl1_cli_int(a, v, 1, 4, &n))) o->time_sets = (int)n;
  } else if (!strcmp(a, "--remeasure")) {
    if (!(rc = cl1_cli_int(a, v, 0, CL1_EVAL_MAX_REMEASURE, &n))) o->remeasure = (int)n;
  }
  return rc;
}

/* An eval-only option with a text value; 0, 2 (said), or -1 when a is none of them. */
static int parse_text(eval_args *e, const char *a, const char *v) {
  if (!strcmp(a, "--task")) e->o.task = v;
  else if (!strcmp(a, "--solution")) e->o.solution = v;
  else if (!strcmp(a, "--db")) e->db = v;
  else if (!strcmp(a, "--reward-stats")) e->o.reward_stats = v;
  else if (!strcmp(a, "--review-model")) e->ro.model = v;
  else if (!strcmp(a, "--review-base-url")) e->ro.base_url = v;
  else if (!strcmp(a, "--review-template")) e->ro.template_path = v;
  else if (!strcmp(a, "--baseline")) {
    if (e->n_baselines == 8) { fprintf(stderr, "cudal1 eval: at most 8 --baseline\n"); return 2; }
    e->baselines[e->n_baselines++] = v;
  } else return -1;
  return 0;
}

/* The eval-only options that take a value (parse_number, parse_text). */
static bool takes_value(const char *a) {
  static const char *const names[] = {
      "--task", "--solution", "--db", "--reward-stats", "--review-model", "--review-base-url",
      "--review-template", "--baseline", "--review-threshold", "--timeout", "--suspicious",
      "--hold-us", "--peak-bw", "--reward-clip", "--mem-allowance", "--seed", "--time-sets",
      "--remeasure"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (!strcmp(a, names[k])) return true;
  return false;
}

/* The arguments into e: 0, or 2 with the message said. */
static int parse_args(int argc, char **argv, eval_args *e) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = cl1_cli_eval_opt_parse("eval", argc, argv, &i, &e->o);
    if (rc >= 0) {
      if (rc) return rc;
      continue;
    }
    if (parse_switch(e, a)) continue;
    if (!takes_value(a)) return cl1_cli_unknown("eval", a);
    if (!next) {
      fprintf(stderr, "cudal1 eval: %s needs a value\n", a);
      return 2;
    }
    if ((rc = parse_number(e, a, next)) < 0) rc = parse_text(e, a, next);
    assert(rc >= 0);  /* takes_value names only options parse_number or parse_text knows */
    if (rc) return rc;
    i++;
  }
  cl1_cli_eval_opts_finish(&e->o);
  return 0;
}

/* What the arguments must say together; 0, or 2 with the message said. */
static int check_args(const eval_args *e) {
  if (!e->o.task || !e->o.solution) {
    fprintf(stderr, "cudal1 eval: --task and --solution are required (see cudal1 eval --help)\n");
    return 2;
  }
  if (e->ro.on && (!e->ro.model || !e->ro.base_url || !*e->ro.base_url)) {
    fprintf(stderr, "cudal1 eval: --review needs --review-model and --review-base-url (or "
                    "$CUDAL1_BASE_URL)\n");
    return 2;
  }
  if (e->n_baselines && e->o.backend != CL1_BACKEND_CUDA) {
    fprintf(stderr, "cudal1 eval: --baseline: baselines are PyTorch times on the GPU; use --device "
                    "cuda\n");
    return 2;
  }
  return 0;
}

/* The speedup against each --baseline, through the reference timed beside it: {NAME: {speedup}
 * or {note}}; NULL without --baseline. */
static cJSON *baselines_vs(const eval_args *e, cl1_store *bs, const cl1_eval_result *r) {
  if (!e->n_baselines) return NULL;
  cJSON *vs = cJSON_CreateObject();
  for (int i = 0; i < e->n_baselines; i++) {
    double x;
    char why[400];
    cl1_err berr = {{0}};
    int b = cl1_baselines_vs(bs, r->task_id, cl1_shapes_name(e->o.shapes), e->baselines[i],
                             r->speedup, &x, why, sizeof why, &berr);
    cJSON *one = cJSON_AddObjectToObject(vs, e->baselines[i]);
    if (b == 0) cJSON_AddNumberToObject(one, "speedup", x);
    else cJSON_AddStringToObject(one, "note", b < 0 ? berr.msg : why);
  }
  return vs;
}

/* The result as JSON with the review and the baselines in it (it takes both). */
static void print_json(const eval_args *e, const cl1_eval_result *r, cJSON *rev, cJSON *vs) {
  cJSON *doc = cl1_eval_json_doc(&e->o, r);
  if (rev) cJSON_AddItemToObject(doc, "review", rev);
  if (vs) cJSON_AddItemToObject(doc, "baselines", vs);
  char *s = cJSON_Print(doc);
  cJSON_Delete(doc);
  puts(s);
  free(s);
}

/* The short report, then the baselines and the review's opinion. */
static void print_text(const eval_args *e, const cl1_eval_result *r, const cJSON *rev,
                       const cJSON *vs) {
  report(&e->o, r);
  const cJSON *b;
  cJSON_ArrayForEach(b, vs) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(b, "speedup");
    const cJSON *nt = cJSON_GetObjectItemCaseSensitive(b, "note");
    if (cJSON_IsNumber(x))
      printf("vs %-6s %.3fx (through the reference timed beside it)\n", b->string, x->valuedouble);
    else
      printf("vs %-6s n/a: %s\n", b->string, nt ? nt->valuestring : "");
  }
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(rev, "verdict");
  const cJSON *op = cJSON_GetObjectItemCaseSensitive(rev, "opinion");
  if (cJSON_IsString(v))
    printf("review    %s (%s, advisory):\n%s\n", v->valuestring, e->ro.model,
           cJSON_IsString(op) ? op->valuestring : "");
}

/* A verdict reached: the review and the baselines added, printed; the exit status. */
static int finish(const eval_args *e, const cl1_task *task, cl1_store *bs,
                  const cl1_eval_result *r) {
  cJSON *rev = review(&e->ro, &e->o, task, r), *vs = baselines_vs(e, bs, r);
  if (e->json) {
    print_json(e, r, rev, vs);
  } else {
    print_text(e, r, rev, vs);
    cJSON_Delete(rev);
    cJSON_Delete(vs);
  }
  int status = !strcmp(r->verdict, "pass") ? 0 : !strcmp(r->verdict, "infra_error") ? 3 : 1;
  if (status == 3 && !e->json) fprintf(stderr, "cudal1 eval: %s\n", r->message);
  return status;
}

/* The evaluation itself; on a failure before any verdict (exit 2 or 3) the cause is said, and an
 * infra_error is also printed as JSON under --json. */
static int evaluate(const eval_args *e, cl1_eval_result *r) {
  cl1_err err = {{0}};
  int rc = cl1_eval_run(&e->o, r, &err);
  if (rc == 3 && e->json) {
    char *s = cl1_eval_json(&e->o, r);
    if (s) puts(s);
    free(s);
  }
  if (rc) fprintf(stderr, "cudal1 eval: %s\n", err.msg);
  return rc;
}

int cl1_cmd_eval(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, help_head)) {
    cl1_cli_eval_opts_usage(stdout);
    fputs(help_tail, stdout);
    return 0;
  }
  eval_args e = {.db = "cudal1.db",
                 .ro = {.threshold = CL1_REVIEW_DEFAULT_THRESHOLD,
                        .base_url = getenv("CUDAL1_BASE_URL")}};
  cl1_eval_opts_default(&e.o);
  int rc = parse_args(argc, argv, &e);
  if (!rc) rc = check_args(&e);
  if (rc) return rc;
  cl1_task_ref ref;
  if (cl1_cli_task("eval", e.o.task, &ref)) return 2;
  e.o.task = ref.dir; /* the evaluator finds exactly the task resolved here */
  cl1_store *bs = NULL;
  cl1_err berr = {{0}};
  cl1_eval_result *r = NULL;
  if (e.n_baselines && cl1_store_open(e.db, &bs, &berr)) {
    fprintf(stderr, "cudal1 eval: --baseline: %s\n", berr.msg);
    rc = 2;
  } else if (!(r = calloc(1, sizeof *r))) {
    fprintf(stderr, "cudal1 eval: out of memory\n");
    rc = 3;
  } else if (!(rc = evaluate(&e, r))) {
    rc = finish(&e, ref.task, bs, r);
  }
  cl1_store_close(bs);
  cl1_task_ref_release(&ref);
  free(r);
  return rc;
}
