/* eval.h — `cudal1 eval`: one candidate against its task's reference, end to end: gate, compile,
 * verify, time, re-measure if suspicious, verdict and reward (evaluation.md). The judge (this
 * process) never loads solution code; the reference and the candidate each run in their own
 * worker process (worker.h), the candidate sandboxed (sandbox.h). */
#ifndef CL1_EVAL_H
#define CL1_EVAL_H
#include <stdbool.h>
#include <stdint.h>
#include "../worker/backend.h"
#include "reward.h"
#include "stats.h"
#include "../base/err.h"

/* Timed trials of one side in one pass, at most: what the judge holds (judge_int.h). */
#define CL1_EVAL_MAX_TRIALS 4096

typedef struct {
  const char *task;          /* id or folder */
  const char *solution;      /* candidate source file */
  cl1_backend backend;
  int shapes;                /* CL1_SHAPES_* */
  bool graph, warm_cache;
  double hold_us;                /* CUDA: GPU-exclusive hold before each timed call's start
                                    event (the launch cost out of event time); default 100 */
  int param_seeds, input_sets;   /* verification: >= 2 x 3 */
  int min_trials, max_trials;    /* timed pairs (the judge keeps CL1_EVAL_MAX_TRIALS) */
  double time_budget_s;          /* timing phase */
  int time_sets;                 /* input sets rotated in timing (1..4); 0: the default, 2 */
  double ci_target;              /* stop when the median's 95% CI is within this fraction */
  double call_timeout_s, setup_timeout_s;
  double suspicious_speedup;     /* re-measure at or above this */
  int remeasure;                 /* fresh-process re-measurements of suspicious results */
  double peak_bw;                /* bytes/s for the roofline floor; 0 = measured peaks/default */
  cl1_reward_cfg reward;         /* clip k, floor, hack penalty, log speedup */
  const char *reward_stats;      /* running per-task statistics file, or NULL */
  size_t mem_limit;              /* the candidate's memory beyond what the harness holds at the
                                    sandbox's entry; 0 = cl1_eval_mem_allowance() */
  uint64_t seed;                 /* 0 = fresh random seeds */
  bool no_sandbox;               /* debugging only (cudal1 eval --no-sandbox) */
  const char *compile_cache;     /* NULL = default */
  bool reuse_ref;                /* a long-lived judge: reference workers kept between
                                    evaluations of a task (refpool.h) */
  struct cl1_gpu_lock *gpu;      /* CUDA: the GPU this evaluation shares with others of this
                                    process (gpu_lock.h; its workers see only that GPU); NULL:
                                    the GPU is this evaluation's alone */
} cl1_eval_opts;

#define CL1_EVAL_MAX_FLAGS 8
/* Re-measurements of a suspicious result at most (--remeasure). */
#define CL1_EVAL_MAX_REMEASURE 4

typedef struct {
  char verdict[64];
  char message[1024];
  char task_id[128], device[128], driver[64];
  /* the machine as the workers saw it: the cache the flush covers, where that figure came
     from, and the candidate's memory budget (as_limit 0: not an rlimit, the RSS watch only) */
  double cache_bytes, flush_bytes, cand_vm_base, cand_as_limit, cand_rss_limit;
  char cache_source[96];
  /* compile */
  double compile_s; bool compile_cached; char diag[4096];
  /* correctness */
  int checks; double max_abs, max_rel;
  /* timing (ms) */
  cl1_stats ref, cand;
  double ref_ev_med, cand_ev_med;
  double ref_overhead_ms, cand_overhead_ms; /* judge round trip minus reported wall, medians */
  double ref_excess_ms, cand_excess_ms;     /* the same less that of the process's empty trials */
  /* class 4: how much more the candidate's trials fell short of the judge's clock than the
     reference's (cand_excess - ref_excess), and whether that passed the margin in this pass
     (a suspicion: timer_mismatch only when fresh processes confirm it) */
  double clock_cut_ms; bool clock_suspect;
  double speedup, reward;        /* speedup: median of the paired (ABAB) ref / cand ratios */
  double reward_speedup;         /* the speedup the reward pays: capped at 1.0 for a solution of
                                    the reference's own ops (no_custom_kernel) or a degenerate task */
  double speedup_ci_rel;         /* relative width of its 95% CI */
  bool has_reward_norm;          /* reward_norm valid (a statistics file was given) */
  double reward_norm;            /* clip((r - mu) / sigma, -k, k) against the task's history */
  double best_seen;              /* the task's best passing speedup before this evaluation */
  char reward_note[256];         /* why the statistics file was not updated, or "" */
  double hold_us;                /* the hold the trials ran behind (0: none; see eval_opts) */
  double floor_ms;               /* roofline floor of one call (0: none) */
  char floor_source[160];        /* what it was built from */
  int measurements;              /* 1 + re-measurements */
  double remeasured[CL1_EVAL_MAX_REMEASURE];  /* speedups of the re-measurements */
  double remeasured_cut[CL1_EVAL_MAX_REMEASURE];  /* and their clock cuts (ms; class 4) */
  int n_flags;
  char flags[CL1_EVAL_MAX_FLAGS][32];
  /* phase wall times (s) */
  double t_gate, t_compile, t_start, t_verify, t_time, t_total;
  double t_gpu_wait;             /* waiting for a shared GPU (eval_opts.gpu): to verify, to time */
  double t_time_prep, t_time_warmup, t_time_pairs; /* t_time's parts: TIME_PREP (input sets,
                                    graphs, empty-call costs), the warm-up, the timed pairs */
  int time_pairs;                /* timed pairs of the last pass (min_trials and the secret
                                    re-verification points set the least) */
  double t_start_setup, t_start_load; /* t_start's two parts: the workers taken or spawned and
                                         set up (SETUP); the solutions mapped (LOAD) */
  double t_cand_setup;           /* the candidate's SETUP, from its request to its reply (s) */
  double cand_setup_ms[6];       /* and the worker's own clock in it, cumulative: the task
                                    loaded, the device opened, the shared memory pinned, the
                                    buffers allocated, the op library (or Python) preloaded and
                                    the sandbox entered (first pass; CL1_SETUP_MARKS) */
  char ref_from[8], cand_from[8]; /* where the first pass's workers came from: "pooled" (a
                                    reference only), "spare" (started ahead) or "spawned" */
  double t_spare_wait;           /* waiting for a spare the fillers were starting (s) */
  char cand_log[2048];           /* tail of the candidate's stdout/stderr */
  bool python;                   /* the candidate was a Python module (KernelBench's ModelNew) */
  double py_ext_calls;           /* its custom-extension calls during the checks, as it reported
                                    them (informational: its interpreter counted) */
  int py_ext_errors;             /* load_inline calls that got no extension (its build failed,
                                    or the build step never made the call), as it reported */
  char py_ext_error[420];        /* the first of them, with the compiler's error lines */
} cl1_eval_result;

/* How a pass whose py_ext_errors > 0 ends, in the judge's message and the service's feedback:
   what the speed is of (its PyTorch fallback, not its kernel). */
#define CL1_EXT_FALLBACK_FMT "but its %s, so its fallback ran"

void cl1_eval_opts_default(cl1_eval_opts *o);

/* The candidate worker's memory budget: what the harness itself already holds when the sandbox
 * closes (measured there: its code, the device's buffers, the flush buffer) plus this allowance
 * for the task's data (x 2 on the host, x 3 on CUDA: the candidate's own copies and scratch) and
 * a fixed room for the solution's code, libraries, allocator arenas and workspace. On the host
 * it is the RLIMIT_AS the candidate runs under; on CUDA (the driver and cuDNN reserve tens of GB
 * of address space they never touch) it bounds the resident memory the judge watches. */
#define CL1_HOST_MEM_ROOM ((size_t)1 << 30)
#define CL1_CUDA_MEM_ROOM ((size_t)8 << 30)
size_t cl1_eval_mem_allowance(cl1_backend b, size_t data_bytes);

/* Names to the spare workers (spare.h) the kind of worker an evaluation under o takes for a
 * C-ABI solution and a C reference: the worker program, o->gpu's GPU, the backend, the op
 * library. A long-lived judge calls it at its start, so its first batch finds spares ready
 * rather than naming the kind with its first evaluation. No-op while spares are off. */
void cl1_eval_spares_prime(const cl1_eval_opts *o);

/* Runs the evaluation. Returns 0 when a verdict was reached (see r->verdict; infra_error is also
 * a verdict), 2 for a usage/input error (err: bad task, missing file), 3 when nothing could be
 * judged for reasons outside the candidate (err). */
int cl1_eval_run(const cl1_eval_opts *o, cl1_eval_result *r, cl1_err *err);

/* What a module's build step calls it with (pybuild.c, for cl1_compile_opts.task and .shapes: a
 * Triton module's JIT, a load_inline made on the first forward): for an evaluation of task (id or
 * folder) at shapes, malloc'd JSON, or NULL (a KernelBench-format task, whose problem has its own
 * get_inputs(), or the task not found: the judge then reports that). */
char *cl1_eval_py_warm(const char *task, int shapes);

/* The result as JSON text (malloc'd), or as the cJSON tree for a caller that adds to it (it
 * deletes the tree). */
char *cl1_eval_json(const cl1_eval_opts *o, const cl1_eval_result *r);
struct cJSON *cl1_eval_json_doc(const cl1_eval_opts *o, const cl1_eval_result *r);
#endif
