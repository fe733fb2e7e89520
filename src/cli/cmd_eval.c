/* cmd_eval.c — `cudal1 eval`: one candidate, one verdict, a short report or JSON. */
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

static const char help[] =
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
    "  --device cuda|host   backend (default cuda)\n"
    "  --shapes test|small|large   shape set (default small: KernelBench's original sizes)\n"
    "  --graph              time CUDA-graph launches of the call (both solutions)\n"
    "  --warm-cache         do not flush L2 between trials\n"
    "  --json               print the result as JSON\n"
    "  --seed N             fixed seeds (default: fresh random seeds per evaluation)\n"
    "  --min-trials N       timed trials per solution, at least (default 30)\n"
    "  --max-trials N       at most (default 500)\n"
    "  --time-budget S      seconds for the timing phase (default 2)\n"
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

int cl1_cmd_eval(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, help)) return 0;
  cl1_eval_opts o;
  cl1_eval_opts_default(&o);
  const char *baselines[8], *db = "cudal1.db";
  int n_baselines = 0;
  review_opts ro = {.threshold = CL1_REVIEW_DEFAULT_THRESHOLD, .base_url = getenv("CUDAL1_BASE_URL")};
  bool json = false;
  long long v;
  double d;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                               \
  do {                                                                       \
    if (!next) { fprintf(stderr, "cudal1 eval: %s needs a value\n", a); return 2; } \
    i++;                                                                     \
  } while (0)
    if (!strcmp(a, "--task")) { NEED(); o.task = next; }
    else if (!strcmp(a, "--solution")) { NEED(); o.solution = next; }
    else if (!strcmp(a, "--device")) {
      NEED();
      if (!strcmp(next, "cuda")) o.backend = CL1_BACKEND_CUDA;
      else if (!strcmp(next, "host")) o.backend = CL1_BACKEND_HOST;
      else { fprintf(stderr, "cudal1 eval: --device: expected cuda or host, got '%s'\n", next); return 2; }
    } else if (!strcmp(a, "--shapes")) {
      NEED();
      o.shapes = cl1_shapes_parse(next);
      if (o.shapes < 0) { fprintf(stderr, "cudal1 eval: --shapes: expected test, small or large, got '%s'\n", next); return 2; }
    } else if (!strcmp(a, "--graph")) o.graph = true;
    else if (!strcmp(a, "--warm-cache")) o.warm_cache = true;
    else if (!strcmp(a, "--json")) json = true;
    else if (!strcmp(a, "--review")) ro.on = true;
    else if (!strcmp(a, "--db")) { NEED(); db = next; }
    else if (!strcmp(a, "--baseline")) {
      NEED();
      if (n_baselines == 8) { fprintf(stderr, "cudal1 eval: at most 8 --baseline\n"); return 2; }
      baselines[n_baselines++] = next;
    }
    else if (!strcmp(a, "--review-model")) { NEED(); ro.model = next; }
    else if (!strcmp(a, "--review-base-url")) { NEED(); ro.base_url = next; }
    else if (!strcmp(a, "--review-template")) { NEED(); ro.template_path = next; }
    else if (!strcmp(a, "--review-threshold")) { NEED(); if (cl1_cli_double(a, next, 0, 1e9, &d)) return 2; ro.threshold = d; }
    else if (!strcmp(a, "--no-sandbox")) o.no_sandbox = true;
    else if (!strcmp(a, "--mem-allowance")) { NEED(); if (cl1_cli_int(a, next, 1, 1 << 24, &v)) return 2; o.mem_limit = (size_t)v << 20; }
    else if (!strcmp(a, "--seed")) { NEED(); if (cl1_cli_int(a, next, 1, (long long)9e18, &v)) return 2; o.seed = (uint64_t)v; }
    else if (!strcmp(a, "--min-trials")) { NEED(); if (cl1_cli_int(a, next, 5, 4096, &v)) return 2; o.min_trials = (int)v; }
    else if (!strcmp(a, "--max-trials")) { NEED(); if (cl1_cli_int(a, next, 5, 4096, &v)) return 2; o.max_trials = (int)v; }
    else if (!strcmp(a, "--time-sets")) { NEED(); if (cl1_cli_int(a, next, 1, 4, &v)) return 2; o.time_sets = (int)v; }
    else if (!strcmp(a, "--time-budget")) { NEED(); if (cl1_cli_double(a, next, 0, 3600, &d)) return 2; o.time_budget_s = d; }
    else if (!strcmp(a, "--timeout")) { NEED(); if (cl1_cli_double(a, next, 0.1, 3600, &d)) return 2; o.call_timeout_s = d; }
    else if (!strcmp(a, "--suspicious")) { NEED(); if (cl1_cli_double(a, next, 1, 1e9, &d)) return 2; o.suspicious_speedup = d; }
    else if (!strcmp(a, "--hold-us")) { NEED(); if (cl1_cli_double(a, next, 0, 10000, &d)) return 2; o.hold_us = d; }
    else if (!strcmp(a, "--peak-bw")) { NEED(); if (cl1_cli_double(a, next, 1e9, 1e15, &d)) return 2; o.peak_bw = d; }
    else if (!strcmp(a, "--reward-stats")) { NEED(); o.reward_stats = next; }
    else if (!strcmp(a, "--reward-clip")) {
      NEED();
      if (cl1_cli_double(a, next, 0.01, 1000, &d)) return 2;
      bool lg = o.reward.log_speedup;
      cl1_reward_cfg_default(&o.reward);
      o.reward.log_speedup = lg;
      o.reward.clip = d, o.reward.floor = -(d + 0.5), o.reward.hack_penalty = -(d + 1.5);
    }
    else if (!strcmp(a, "--log-reward")) o.reward.log_speedup = true;
    else if (!strcmp(a, "--remeasure")) { NEED(); if (cl1_cli_int(a, next, 0, 4, &v)) return 2; o.remeasure = (int)v; }
    else return cl1_cli_unknown("eval", a);
#undef NEED
  }
  if (!o.task || !o.solution) {
    fprintf(stderr, "cudal1 eval: --task and --solution are required (see cudal1 eval --help)\n");
    return 2;
  }
  if (ro.on && (!ro.model || !ro.base_url || !*ro.base_url)) {
    fprintf(stderr, "cudal1 eval: --review needs --review-model and --review-base-url (or $CUDAL1_BASE_URL)\n");
    return 2;
  }
  if (n_baselines && o.backend != CL1_BACKEND_CUDA) {
    fprintf(stderr, "cudal1 eval: --baseline: baselines are PyTorch times on the GPU; use --device cuda\n");
    return 2;
  }
  cl1_task_ref ref;
  if (cl1_cli_task("eval", o.task, &ref)) return 2;
  o.task = ref.dir; /* the evaluator finds exactly the task resolved here */
  cl1_store *bs = NULL;
  cl1_err berr = {{0}};
  if (n_baselines && cl1_store_open(db, &bs, &berr)) {
    fprintf(stderr, "cudal1 eval: --baseline: %s\n", berr.msg);
    cl1_task_ref_release(&ref);
    return 2;
  }
  if (o.max_trials < o.min_trials) o.max_trials = o.min_trials;
  cl1_eval_result *r = calloc(1, sizeof *r);
  cl1_err err = {{0}};
  int rc = 3;
  if (!r) cl1_err_set(&err, "out of memory");
  else rc = cl1_eval_run(&o, r, &err);
  if (r && rc == 3 && json) { /* infra_error: the verdict and its cause as JSON too */
    char *s = cl1_eval_json(&o, r);
    if (s) puts(s);
    free(s);
  }
  if (rc) {
    fprintf(stderr, "cudal1 eval: %s\n", err.msg);
    cl1_store_close(bs);
    cl1_task_ref_release(&ref);
    free(r);
    return rc;
  }
  cJSON *rev = review(&ro, &o, ref.task, r), *vs = n_baselines ? cJSON_CreateObject() : NULL;
  for (int i = 0; i < n_baselines; i++) {
    double x;
    char why[400];
    int b = cl1_baselines_vs(bs, r->task_id, cl1_shapes_name(o.shapes), baselines[i], r->speedup, &x,
                             why, sizeof why, &berr);
    cJSON *e = cJSON_AddObjectToObject(vs, baselines[i]);
    if (b == 0) cJSON_AddNumberToObject(e, "speedup", x);
    else cJSON_AddStringToObject(e, "note", b < 0 ? berr.msg : why);
  }
  cl1_store_close(bs);
  if (json) {
    cJSON *doc = cl1_eval_json_doc(&o, r);
    if (rev) cJSON_AddItemToObject(doc, "review", rev);
    if (vs) cJSON_AddItemToObject(doc, "baselines", vs);
    rev = vs = NULL;
    char *s = cJSON_Print(doc);
    cJSON_Delete(doc);
    puts(s);
    free(s);
  } else {
    report(&o, r);
    const cJSON *e;
    cJSON_ArrayForEach(e, vs) {
      const cJSON *x = cJSON_GetObjectItemCaseSensitive(e, "speedup"), *nt = cJSON_GetObjectItemCaseSensitive(e, "note");
      if (cJSON_IsNumber(x)) printf("vs %-6s %.3fx (through the reference timed beside it)\n", e->string, x->valuedouble);
      else printf("vs %-6s n/a: %s\n", e->string, nt ? nt->valuestring : "");
    }
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rev, "verdict"), *op = cJSON_GetObjectItemCaseSensitive(rev, "opinion");
    if (cJSON_IsString(v))
      printf("review    %s (%s, advisory):\n%s\n", v->valuestring, ro.model, cJSON_IsString(op) ? op->valuestring : "");
  }
  cJSON_Delete(rev);
  cJSON_Delete(vs);
  int status = !strcmp(r->verdict, "pass") ? 0 : !strcmp(r->verdict, "infra_error") ? 3 : 1;
  if (status == 3 && !json) fprintf(stderr, "cudal1 eval: %s\n", r->message);
  cl1_task_ref_release(&ref);
  free(r);
  return status;
}
