/* stats.h — summary statistics of timing samples: median, IQR, min, mean, and the relative
 * width of a distribution-free 95% confidence interval of the median (order statistics),
 * which decides when enough trials have run. */
#ifndef CL1_STATS_H
#define CL1_STATS_H
#include <stdbool.h>
typedef struct {
  int n;
  double median, q1, q3, min, max, mean;
  double ci_rel;             /* width of the 95% CI of the median / median */
} cl1_stats;

/* Summarises x[0..n) (x is not modified). */
void cl1_stats_of(const double *x, int n, cl1_stats *s);
double cl1_median(const double *x, int n);

/* Per-process jitter of a call's launch path (10-37 us measured for one cuBLAS call on the H200;
 * the hold keeps it out of event times, not out of the host times that bound launch-bound calls). */
#define CL1_LAUNCH_JITTER_MS 0.005
/* Whether re-measured speedups lo..hi agree: within 10%, plus what CL1_LAUNCH_JITTER_MS on each
 * side makes of a ratio of calls as short as t_cand and t_ref (ms, the shortest seen). */
int cl1_speedups_agree(double lo, double hi, double t_cand, double t_ref);

/* What re-measurements of a suspicious speedup in fresh processes say. */
typedef enum {
  CL1_REMEASURE_AGREE,     /* the speedups agree: the lowest counts */
  CL1_REMEASURE_UNSTABLE,  /* the candidate's speed moved between processes while the machine
                              held steady: hack:unstable */
  CL1_REMEASURE_NOISY      /* they disagree, but the machine moved too: the lowest counts and
                              the result is flagged noisy_timing, never called a hack */
} cl1_remeasure;
/* sp_first: the first pass's speedup, the one under suspicion; sp_lo..sp_hi: the speedups of all
 * passes, the first among them; ref_lo..ref_hi: the reference's medians (ms) in them; t_cand,
 * t_ref: the shortest medians seen. The machine moved when the reference's own median moved as
 * much as a disagreement (it is the same code in every pass), or always on the host backend
 * (host): a host candidate has no state that outlives its process (no files, no threads, no
 * device) to be fast in one process and not in another, so there its speed can only move with
 * the machine's load — and counting the lowest gives a sometimes-fast kernel nothing. A
 * disagreement is not a hack either when the first pass's speedup is itself (within the
 * agreement) the lowest: every fresh process reproduced it, some ran faster, and the lowest is
 * what counts (CUDA-L1's level1/12, an honest broadcast multiply, re-measured 9.78x .. 13.73x
 * from a 9.78x first pass on the H100, bench/results/h100/cuda-l1-audit.json). */
cl1_remeasure cl1_remeasure_judge(double sp_first, double sp_lo, double sp_hi, double ref_lo,
                                  double ref_hi, double t_cand, double t_ref, int host);

/* Class 4 over n passes (the first and its re-measurements in fresh processes): the cut (ms) to
 * charge the candidate — the smallest cut of the suspect passes (cut past the margin) when they
 * are a majority, else 0: one process off its own calibration is the machine, most of them the
 * candidate's timer. Not "every pass": a rewritten timer that cut 0.18 and 0.22 ms in two passes
 * got through at 1.86x when the third pass's calibration read -0.33 ms (H100, 2026-12-05,
 * tests/hacks/cuda/timer_rerecord.cu through `cudal1 serve`); a kernel that cuts in a minority
 * of passes is honest in the others, and the lowest speedup of all passes counts. */
double cl1_clock_confirm(const double *cut_ms, const bool *suspect, int n);
#endif
