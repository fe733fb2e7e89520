/* collect.h — `cudal1 collect`, stage 1 of CUDA-L1's training (data collection): several
 * policies (LLM servers or replay files) each answer every task's round-1 prompt N times; each
 * reply is parsed, evaluated and recorded in the store with the policy's NAME and model, so that
 * `cudal1 dataset sft` turns the correct ones into fine-tuning rows. It runs on optimize's own
 * pipeline (optimize_int.h: the compile pool, the one evaluation queue, Ctrl-C) with producers
 * of its own, and reports per policy how many replies had code, ran, were correct and were
 * faster than the reference. */
#ifndef CL1_COLLECT_H
#define CL1_COLLECT_H
#include <stdbool.h>
#include <stdint.h>
#include "optimize.h"
#include "../base/err.h"
#include "../policy/policy.h"
#include "../store/store.h"

#define CL1_COLLECT_MAX_POLICIES 16

/* One --policy: NAME=openai:URL:MODEL, NAME=openai:URL#MODEL or NAME=replay:FILE. */
typedef struct {
  char name[64];
  char kind[8];        /* "openai" | "replay" */
  char url[1024];      /* openai */
  char model[256];     /* openai */
  char file[1024];     /* replay */
} cl1_collect_policy;

/* Parses a --policy spec. NAME: letters, digits, '_', '-', '.' (up to 63). The kind is what
 * follows '=' up to the first ':'. openai: URL and MODEL split at the last '#' when there is one;
 * otherwise the URL must start with http:// or https:// and MODEL is everything after the first
 * ':' that follows the URL's host and port (the port: digits) or, when the URL has a path, after
 * the first ':' in its path — so "http://h:8000/v1:qwen2.5:7b" is the model "qwen2.5:7b" at
 * "http://h:8000/v1". replay: FILE is the rest. Every malformed spec: -1 with err saying what is
 * wrong (the caller names the spec). */
int cl1_collect_policy_parse(const char *spec, cl1_collect_policy *out, cl1_err *err);

typedef struct {
  char *tasks[CL1_OPT_MAX_TASKS]; /* suite ids */
  int n_tasks;
  cl1_collect_policy policies[CL1_COLLECT_MAX_POLICIES];
  int n_policies;
  int n;                          /* completions per task per policy */
  const char *device, *shapes, *db_path;
  int min_trials, max_trials;     /* the evaluation protocol (0: the evaluator's defaults) */
  double time_budget_s;
  cl1_policy_opts request;        /* every policy's request options (key, temperature, ...);
                                     kind, base_url, model and replay_path come from each spec */
  int parallel_tasks, compile_jobs;
  bool progress;                  /* a status line on stderr */
} cl1_collect_opts;

void cl1_collect_opts_default(cl1_collect_opts *o);

/* One policy's line of the report: its samples in the run (cl1_store_tally), and what it comes
 * to. infra = generation errors + code left unevaluated (the evaluator could not judge it, or
 * the run stopped): never the policy's fault, so the rates are over judged = asked - infra. */
typedef struct {
  const cl1_collect_policy *p;
  cl1_store_tally t;
  int infra, judged, with_code;   /* with_code: judged replies with code */
} cl1_collect_line;

typedef struct {
  int64_t run_id;                 /* 0: no run was recorded */
  int n_lines;
  cl1_collect_line lines[CL1_COLLECT_MAX_POLICIES];
  bool interrupted;
  char status[16];                /* the run's: done, interrupted or failed */
  double wall_s;
} cl1_collect_report;

/* Runs the collection to the end or until cl1_collect_stop(). Before the run every policy is
 * opened (a replay file is read and checked) and checked (cl1_policy_check: an unreachable
 * server stops it here). Returns 0 when done or stopped cleanly (rep->interrupted), 2 for an
 * input error (options, tasks, a policy's file, key or model), 3 when it could not go on (the
 * store, a server unreachable, no GPU, an evaluation the evaluator could not judge) or no policy
 * gave one completion; err says why. rep holds the counts so far whenever a run was recorded. */
int cl1_collect_run(const cl1_collect_opts *o, cl1_collect_report *rep, cl1_err *err);

/* Async-signal-safe: stop asking; the evaluation in progress is recorded, queued code is not
 * evaluated (it stays in the store, counted as infra). */
void cl1_collect_stop(void);

/* The report as a plain table (malloc'd text), and as one JSON object (malloc'd). */
char *cl1_collect_report_table(const cl1_collect_opts *o, const cl1_collect_report *r);
char *cl1_collect_report_json(const cl1_collect_opts *o, const cl1_collect_report *r);
#endif
