/* judge_int.h — what the judge's files share (judge.c: the evaluation's stages, the verdict;
 * judge_pass.c: one pass's workers and GPU holds; judge_verify.c: verification; judge_time.c:
 * the timing protocol): one pass's state
 * and the helpers they use. Private to src/eval. */
#ifndef CL1_JUDGE_INT_H
#define CL1_JUDGE_INT_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include "eval.h"
#include "judge_proc.h"
#include "refpool.h"
#include "verify.h"
#include "../worker/worker.h"
#include "../task/task.h"

#define MAX_TIME_SETS (CL1_WORKER_SLOTS - CL1_WORKER_TIME_SLOT)
/* Input sets rotated while timing unless --time-sets says otherwise. Measured on the H200
   (5 fresh-process evaluations of one matmul candidate each): 2 sets 0.7% spread of the
   speedup, 4 sets 8% — more sets at more addresses did not average a per-process bias away. */
#define DEFAULT_TIME_SETS 2
#define MAX_SAMPLES CL1_EVAL_MAX_TRIALS  /* each side's trials held in one pass */


/* What one pass over (verify, time) needs and produces. */
typedef struct {
  const cl1_eval_opts *o;
  const cl1_task *task;
  const cl1_inst *inst;
  const char *ref_so, *cand_so;
  const char *ref_py, *cand_py; /* a Python side's cached module (judge_py.c), else NULL */
  bool verify_only_light;   /* re-measurements: one params set, one input set */
  uint64_t rng_state;
  cl1_wproc ref, cand;
  size_t region_bytes, offs[CL1_TASK_MAX_TENSORS];
  /* the reference's outputs' magnitude on the task's own draw (first verified set): what the
     `wide` and `extreme` checks scale atol against */
  cl1_magnitude out_mag[CL1_TASK_MAX_TENSORS];
  double cand_ms[MAX_SAMPLES], ref_ms[MAX_SAMPLES], cand_ev[MAX_SAMPLES], ref_ev[MAX_SAMPLES];
  double cand_rt[MAX_SAMPLES], ref_rt[MAX_SAMPLES];
  /* the same round trip of empty trials (no call), each process's own calibration (class 4) */
  double cand_cal[MAX_SAMPLES], ref_cal[MAX_SAMPLES];
  int n_cal;
  double ref_jr[MAX_SAMPLES], cand_jr[MAX_SAMPLES];  /* the judge's round trip less the flush */
  double scratch[MAX_SAMPLES];
  double cand_host[MAX_SAMPLES], ref_host[MAX_SAMPLES];  /* host time inside the call */
  double ref_flush[MAX_SAMPLES];  /* the reference's reported flush times */
  double ratio[MAX_SAMPLES];  /* paired reference / candidate ratios */
  int n_cand, n_ref, n_rt;
  int ref_threads_entry, cand_threads_entry;  /* at each worker's sandbox entry (SETUP) */
  bool ref_reused;          /* the reference's worker came set up and loaded from the pool */
  char *ref_key;            /* its pool key (opts.reuse_ref), malloc'd */
  cl1_refpool_info ref_info;
  bool hold;                /* timed calls start behind the hold (both sides, or neither) */
  bool cand_called;         /* the candidate has answered a call (judge_verify.c call_limit) */
} cl1_pass;

/* The next secret seed (splitmix64): the candidate sees each one only when it is used. */
uint64_t cl1_judge_seed(cl1_pass *p);
void cl1_judge_add_seed(cJSON *o, const char *k, uint64_t s);
void cl1_judge_verdict(cl1_eval_result *r, const char *v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cl1_judge_flag(cl1_eval_result *r, const char *f);
bool cl1_judge_has_flag(const cl1_eval_result *r, const char *f);
double cl1_judge_num(const cJSON *o, const char *k, double d);
/* A worker's failure turned into the verdict (returns 1). */
int cl1_judge_cand_failure(cl1_pass *p, cl1_eval_result *r, cl1_wstatus st, const char *during);
int cl1_judge_ref_failure(cl1_pass *p, cl1_eval_result *r, const char *during);
/* The same request to both workers; 1 with the verdict set when either fails. */
int cl1_judge_both(cl1_pass *p, cl1_eval_result *r, int type, cJSON *req, double timeout,
                   const char *during, cJSON **rr, cJSON **cr);
/* The candidate's outputs in its region cregion against the reference's at ref_base (a secret
 * 1/keep of the blocks of large outputs), output i with atol times atol_scale[i] (NULL: the
 * task's atol); 1 with the verdict set when they differ. */
int cl1_judge_compare(cl1_pass *p, cl1_eval_result *r, int cregion,
                      const unsigned char *ref_base, const char *what, int keep,
                      const double *atol_scale);
/* A candidate call's reply checked (return code, mutated inputs, thread growth). */
int cl1_judge_check_call(cl1_pass *p, cl1_eval_result *r, const cJSON *cr, const char *what);
/* Class 2 over the workers' whole lives: 1 with hack:threads set when the candidate's process
 * has run more threads beyond those at its sandbox's entry than the reference's, with the same
 * driver and libraries, ever did. Call where both have done the same work. */
int cl1_judge_threads(cl1_pass *p, cl1_eval_result *r, const char *when);
/* judge_py.c: worker k's "py" SETUP field (malloc'd JSON), or NULL when that side is not Python;
 * and what a Python candidate's reply reports, into flags. */
char *cl1_judge_py_spec(const cl1_pass *p, int k);
/* A Triton module's warm-up call at the evaluation's shapes (compile.h: cl1_compile_opts.task):
 * the native task's twin, dims and attrs, and its inputs' dtypes and shapes; malloc'd JSON, NULL
 * for a KernelBench-format task (its module's get_inputs() is the problem's). */
char *cl1_judge_py_warm(const cl1_task *t, const cl1_inst *inst);
void cl1_judge_py_report(cl1_pass *p, cl1_eval_result *r, const cJSON *cr);
/* Class 4, confirmed: timer_mismatch, the candidate's median raised by cut_ms and the speedup
 * lowered to match (judge_time.c). */
void cl1_judge_timer_cut(cl1_eval_result *r, double cut_ms);
/* Verification (judge_verify.c): 0 verified, 1 verdict set. */
int cl1_judge_verify(cl1_pass *p, cl1_eval_result *r);
/* Between two verification checks on a shared GPU: when a timing waits for it, the GPU is given
 * back (the candidate stopped) and taken again after that timing (gpu_lock.h). */
void cl1_judge_gpu_yield(cl1_pass *p, cl1_eval_result *r);
/* A diagnostic switch: false only when $env is "0" (read once into *memo, -1 until then), so
 * that bench/serve.py can measure what a mechanism gains side by side in one run
 * (docs/serve-scaling.md); never off in normal use. */
bool cl1_judge_switch_on(const char *env, _Atomic int *memo);
/* One full pass in fresh processes (judge_pass.c). 0: timing done (verdict still open);
 * 1: verdict set; -1: infrastructure error (err). */
int cl1_judge_pass_run(cl1_pass *p, cl1_eval_result *r, cl1_err *err);
/* The timing protocol (judge_time.c): 0 timed, 1 verdict set. */
int cl1_judge_timing(cl1_pass *p, cl1_eval_result *r);
#endif
