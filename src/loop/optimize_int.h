/* optimize_int.h — what optimize.c (the pipeline) and optimize_cfg.c (options, setup, outputs)
 * share: the loop's state; and what collect.c reuses of the pipeline (its compile pool, its one
 * evaluation queue, Ctrl-C) with producers of its own. Not a public header. */
#ifndef CL1_OPTIMIZE_INT_H
#define CL1_OPTIMIZE_INT_H
#include <assert.h>
#include <pthread.h>
#include "optimize.h"
#include "../worker/backend.h"
#include "../store/store.h"
#include "../task/task.h"

typedef struct cl1_opt_job {
  struct cl1_opt_job *next;
  int task;                  /* index into the options' tasks */
  int64_t sample_id;
  bool replayed;             /* the solution's origin: replayed, or generated */
  char *code;
  char path[600];            /* the code as a file for the compiler and the evaluator */
} cl1_opt_job;

typedef struct {
  cl1_opt_job *head, *tail;
  int n;
} cl1_opt_queue;

/* Who gave a completion: its sample's policy and model, and whether it was replayed. */
typedef struct {
  const char *policy, *model;
  bool replayed;
} cl1_opt_source;

typedef struct cl1_opt_loop {
  const cl1_optimize_opts *o;
  cl1_optimize_stats *st;
  cl1_store *store;
  cl1_policy *pol;
  cl1_task *task[CL1_OPT_MAX_TASKS];
  cl1_backend backend;
  bool replay, tty;
  int64_t run_id;
  char gpu[128];             /* the GPU's name for the prompt, "" on the host */
  char tmpdir[512];
  /* under mu */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  cl1_opt_queue compile_q, eval_q;
  int inflight[CL1_OPT_MAX_TASKS];    /* queued or being evaluated, per task */
  int rounds_done[CL1_OPT_MAX_TASKS];
  double best[CL1_OPT_MAX_TASKS];     /* best passing speedup seen in this invocation */
  int next_task, compile_active, task_live;
  bool producers_done, eval_done;
  bool abandoned;            /* stopped with task threads still waiting on the policy */
  int fatal;
  int fatal_rc;              /* its exit status: 3, or 2 when the policy found the input wrong */
  cl1_err fatal_err;
  char first_gen_error[512]; /* the first completion the policy failed to give, this invocation */
  double overhead_gen, overhead_eval; /* loop work around generation and evaluation (s) */
  /* NULL: optimize's task threads. Another command's producer threads (collect.c) store samples
     and queue them with cl1_opt_take_completion, and end with cl1_opt_producer_exit. */
  void *(*producer)(void *);
  void *ud;                  /* the producer's own state */
  bool no_resume;            /* no --resume to point at (collect) */
} cl1_opt_loop;

/* optimize_cfg.c */
int cl1_opt_prepare(cl1_opt_loop *L, int64_t resume_run, cl1_err *err); /* 0, 2 or 3 */
int cl1_opt_write_outputs(cl1_opt_loop *L, cl1_err *err);
void cl1_opt_cleanup(cl1_opt_loop *L);
int cl1_opt_task_index(const cl1_optimize_opts *o, const char *task_id);
/* Loads the run's tasks into L->task[] and puts them in the store (their degenerate note at the
 * run's shapes); a task without the run's shape set is an error. */
int cl1_opt_load_tasks(cl1_opt_loop *L, cl1_err *err);
/* optimize.c */
/* Runs the producers, the compile pool and the evaluation queue until the producers are done and
 * every queued sample is evaluated, or the run stops (Ctrl-C, a fatal error: err, L->fatal_rc). */
int cl1_opt_pipeline(cl1_opt_loop *L, cl1_err *err);
/* Task t's prompt for round r with the run's exemplars, and its text as stored with samples. */
int cl1_opt_build_prompt(cl1_opt_loop *L, int t, int r, char **prompt_text, char **system,
                         char **user, char **ids_json, cl1_err *err);
/* Stores completion c as sample idx of the round (parsed; gen_error when c failed) and queues its
 * code for evaluation. Caller does not hold mu. */
int cl1_opt_take_completion(cl1_opt_loop *L, int t, int64_t round_id, int idx, const char *prompt,
                            const char *ids, const cl1_completion *c, const cl1_opt_source *src,
                            cl1_err *err);
bool cl1_opt_stopping(cl1_opt_loop *L);
/* A failure the run cannot go on after (rc: the exit status it means); the first one wins. */
void cl1_opt_fail(cl1_opt_loop *L, const cl1_err *e, int rc);
/* What each producer thread calls last. */
void cl1_opt_producer_exit(cl1_opt_loop *L);
#endif
