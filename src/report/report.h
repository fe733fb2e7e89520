/* report.h — `cudal1 report`: the CUDA-L1-style results table read from the store (SQLite, opened
 * read-only, queried against store schema v1): per level and overall the mean / geomean / median /
 * max speedup over tasks with a correct solution, the share of tasks faster than 1.01x, fast_p for
 * p in {0, 1, 1.5, 2} and the success rate — against the C reference (the speedups the evaluator
 * stores) and against each baseline in the store's `baselines` table (issue 6). Rendered as
 * Markdown, as one self-contained HTML file with inline SVG plots, and as JSON. The training
 * view (issue 21): per `cudal1 train` run, each stage's rounds (success rate, reward, mean and
 * best speedup), its evaluations and its GRPO steps, with curves in the HTML. */
#ifndef CL1_REPORT_H
#define CL1_REPORT_H
#include <stdbool.h>
#include "base/err.h"

/* Column 0 is the C reference ("reference": the evaluator's speedup); columns 1.. are baselines. */
#define CL1_REPORT_MAX_COLS 8
#define CL1_REPORT_N_FAST 4
extern const double cl1_report_fast_p[CL1_REPORT_N_FAST]; /* 0, 1, 1.5, 2 */

/* One task of a section: its best passing evaluation and what was spent on it. */
typedef struct {
  char *id, *name;
  int level;
  bool degenerate;
  bool correct;                        /* a passing evaluation of a selected solution exists */
  bool has[CL1_REPORT_MAX_COLS];       /* the column has a time for the task (column 0: always) */
  double speedup[CL1_REPORT_MAX_COLS]; /* meaningful when correct && has[c] */
  char *note[CL1_REPORT_MAX_COLS];     /* why has[c] is false (a baseline's failure status) */
  long long best_eval;                 /* evaluations.id of the best pass; 0: none */
  double cand_ms, ref_ms, spread;      /* of the best pass; NAN when unknown */
  char *flags;                         /* the best pass's flags, ", "-joined; "" for none */
  int n_samples, n_evaluated, n_passed; /* samples of the selected runs (section's backend/shapes) */
  int n_evals, n_evals_passed;         /* evaluations of the selected solutions */
  int n_rounds;                        /* rounds rows of the selected runs */
} cl1_report_task;

/* The summary of one column over a set of tasks; NAN where undefined (no task, no correct one). */
typedef struct {
  int n_tasks, n_correct;
  double success;                      /* n_correct / n_tasks */
  double mean, geomean, median, max;   /* over the correct tasks */
  double over_1_01;                    /* correct and > 1.01x, share of all n_tasks */
  double fast[CL1_REPORT_N_FAST];      /* correct and > p, share of all n_tasks */
} cl1_report_stats;

/* The numeric core: the summary of column col over the rows with has[col], of one level
 * (level 0: every level), leaving degenerate tasks out when excl_degenerate. -1 only when out of
 * memory. */
int cl1_report_stats_compute(const cl1_report_task *rows, int n, int col, int level,
                             bool excl_degenerate, cl1_report_stats *out, cl1_err *err);

/* Speedup of a candidate over a baseline: baseline_ms / cand_ms; NAN when either is not a
 * positive time. Where every baseline's times plug in (see attach_baselines in report_db.c). */
double cl1_report_vs_baseline(double baseline_ms, double cand_ms);

/* rounds.best_speedup of one task in one round of one run; best is NAN while none passed yet. */
typedef struct {
  long long run;
  int task; /* index into the section's tasks */
  int round;
  double best;
} cl1_report_round;

typedef struct {
  long long id;
  char *policy, *model, *device, *shapes, *status, *started_at, *finished_at;
} cl1_report_run;

/* One (backend, shape set) of the data: its own table. */
typedef struct {
  char *backend, *shapes;
  char *gpus; /* the evaluations' device names, ", "-joined */
  int n_cols;
  char *col[CL1_REPORT_MAX_COLS]; /* "reference", then baseline names (cuda sections only) */
  cl1_report_task *tasks;         /* by level, then task number */
  int n_tasks;
  cl1_report_round *rounds; /* by run, task, round */
  int n_rounds;
} cl1_report_section;

/* ---- the training view (report_train.c: `cudal1 train` runs, store schema v5) ---- */

/* One event's numbers (step, round or eval); NAN where the event did not give one. */
typedef struct {
  char stage[16];
  int round, step;      /* -1: absent */
  int n_samples;        /* -1: absent */
  double loss, reward_mean, reward_std, success, speedup_mean, speedup_best;
  double t_generate, t_reward, t_update, t_step;
  double gpu_busy;  /* GRPO: the GPU's busy share over the step (NaN: not measured) */
} cl1_report_train_point;

/* One round of one stage: its round event's numbers, or (from_steps) the mean of its steps'
 * (success, reward, mean speedup) and their best speedup when the engine gave no round event. */
typedef struct {
  char stage[16];
  int round, steps, n_samples;
  double success, reward_mean, speedup_mean, speedup_best;
  bool from_steps;
} cl1_report_train_round;

typedef struct {
  long long id;
  char *created, *stage, *engine, *model, *out, *status;
  char *error;                       /* the last error event's message (NULL: none) */
  cl1_report_train_round *rounds;    /* by stage (sft, selfsup, grpo, others), then round */
  int n_rounds;
  cl1_report_train_point *evals;     /* eval events, in order */
  int n_evals;
  cl1_report_train_point *steps;     /* step events in order; a step repeated after --resume
                                        counts once, as last reported */
  int n_steps;
} cl1_report_train_run;

typedef struct {
  char *db_path;
  long long run;        /* the --run filter; 0: every run */
  cl1_report_run *runs; /* the runs the sections cover, by id */
  int n_runs;
  cl1_report_section *sec;
  int n_sec;
  cl1_report_train_run *train; /* every `cudal1 train` run (none with --run), by id */
  int n_train;
} cl1_report;

typedef struct {
  const char *db_path; /* required */
  const char *run;     /* NULL: every run; "latest": the newest; else a run id */
  const char *shapes;  /* NULL: every shape set in the data; else test | small | large */
  const char *backend; /* NULL: every backend in the data; else cuda | host */
} cl1_report_opts;

/* Reads the store. Errors (exit 2 in the CLI): no such file, not a cudal1 store, unknown run,
 * nothing to report (no runs, evaluations or training runs). */
int cl1_report_load(const cl1_report_opts *o, cl1_report **out, cl1_err *err);
void cl1_report_free(cl1_report *r);

/* The distinct levels of a section's tasks, ascending; returns how many (at most max). */
int cl1_report_levels(const cl1_report_section *s, int *levels, int max);
/* The report's title, naming replayed runs: "... replayed completions (not generated)". */
void cl1_report_title(const cl1_report *r, char *buf, size_t n);
/* The display name of a column: "C reference" for column 0, else the baseline's name. */
const char *cl1_report_col_label(const cl1_report_section *s, int c);

/* Renderers: a malloc'd NUL-terminated document in *out (caller frees). */
int cl1_report_markdown(const cl1_report *r, char **out, cl1_err *err);
int cl1_report_html(const cl1_report *r, char **out, cl1_err *err);
int cl1_report_json(const cl1_report *r, char **out, cl1_err *err);

#endif
