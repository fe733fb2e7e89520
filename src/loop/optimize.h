/* optimize.h — `cudal1 optimize`, CUDA-L1's inference-time loop: per task and round, show the
 * policy the reference plus earlier solutions with their measured speedups (prompt.h, exemplar.h),
 * take its replies apart (parse.h), evaluate the code (eval.h) and keep everything in the store
 * (store.h). A pipeline: several tasks generate at once, their code compiles on a CPU pool while
 * the one evaluation queue keeps the device busy. A run survives kill -9: completions are stored
 * before they are evaluated, an evaluation is recorded in one transaction with its sample, and
 * `--resume RUN` evaluates what was left and continues with the rounds not done. */
#ifndef CL1_OPTIMIZE_H
#define CL1_OPTIMIZE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "../base/err.h"
#include "../policy/policy.h"
#include "format.h"

#define CL1_OPT_MAX_TASKS 300

typedef struct {
  char *tasks[CL1_OPT_MAX_TASKS];  /* task ids ("level1/19_ReLU") */
  int n_tasks;
  int rounds, samples, exemplars;  /* per task: rounds, samples per round, exemplars per prompt */
  double tau;                      /* exemplar bucket temperature */
  const char *device;              /* "cuda" | "host" */
  const char *shapes;              /* "test" | "small" | "large" */
  const char *db_path;
  const char *out_dir;             /* best solutions go to <out_dir>/run-<id>/ */
  const char *template_path;       /* NULL: the format's default prompt */
  cl1_format format;               /* the solutions asked for: cabi (.cu/.c) or kernelbench (.py) */
  cl1_policy_opts policy;
  int parallel_tasks;              /* tasks generating at once */
  int compile_jobs;                /* CPU compile pool (cuda; host compiles in the eval queue) */
  uint64_t seed;                   /* exemplar sampling */
  int min_trials, max_trials;      /* evaluation protocol (0: the evaluator's defaults) */
  double time_budget_s;
  bool progress;                   /* a status line on stderr */
  bool review;                     /* passes >= review_threshold go to the policy as reviewer */
  void *cfg_doc;                   /* owns the strings cl1_optimize_config_parse set (cJSON) */
  double review_threshold;
} cl1_optimize_opts;

typedef struct {
  int64_t run_id;
  int samples, evaluated, passed, gen_errors, parse_failures;
  int tasks_improved;              /* tasks with a passing solution at the end */
  double wall_s;                   /* the run's wall time (this invocation) */
  double gen_s, eval_s, compile_s; /* summed: policy calls, evaluations, pre-compiles */
  double eval_busy_s;              /* wall time the evaluation queue was evaluating */
  double overhead_s;               /* loop work per evaluated sample, summed: parse, prompt,
                                      store writes, queueing (not the policy, not the device) */
  bool interrupted;
} cl1_optimize_stats;

void cl1_optimize_opts_default(cl1_optimize_opts *o);

/* The options as the run's config JSON (stored with the run) and back, for --resume. The api key
 * is never stored. Strings parsed back live in o->cfg_doc until cl1_optimize_opts_release. */
char *cl1_optimize_config_json(const cl1_optimize_opts *o);
int cl1_optimize_config_parse(const char *json, cl1_optimize_opts *o, cl1_err *err);
void cl1_optimize_opts_release(cl1_optimize_opts *o);

/* Runs (resume_run == 0: a new run) to the end or until cl1_optimize_stop(). Before round 1 the
 * policy is checked (cl1_policy_check). Returns 0 when the run finished or was stopped cleanly
 * (st->interrupted), 2 for a usage/input error (options, tasks, and what the policy server
 * refused: the API key, the model, the URL's route), 3 when it could not go on (store, the policy
 * server unreachable, no GPU, an evaluation the evaluator could not judge: infra_error) or got
 * not one completion (every sample a generation error); err says why. */
int cl1_optimize_run(const cl1_optimize_opts *o, int64_t resume_run, cl1_optimize_stats *st,
                     cl1_err *err);

/* Async-signal-safe: asks a running loop to stop after the evaluations in progress. */
void cl1_optimize_stop(void);
#endif
