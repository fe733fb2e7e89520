/* optimize_int.h — what optimize.c (the pipeline) and optimize_cfg.c (options, setup, outputs)
 * share: the loop's state. Not a public header. */
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
  char *code;
  char path[600];            /* the code as a file for the compiler and the evaluator */
} cl1_opt_job;

typedef struct {
  cl1_opt_job *head, *tail;
  int n;
} cl1_opt_queue;

typedef struct {
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
} cl1_opt_loop;

/* optimize_cfg.c */
int cl1_opt_prepare(cl1_opt_loop *L, int64_t resume_run, cl1_err *err); /* 0, 2 or 3 */
int cl1_opt_write_outputs(cl1_opt_loop *L, cl1_err *err);
void cl1_opt_cleanup(cl1_opt_loop *L);
int cl1_opt_task_index(const cl1_optimize_opts *o, const char *task_id);
/* optimize.c */
#endif
