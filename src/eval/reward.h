/* reward.h — the speedup turned into a reward (evaluation.md): a correct solution earns its
 * speedup (or log speedup), normalised per task with running mean/std and clipped to +-k
 * (default 1.5); failures earn a fixed floor below every correct reward; hacks a stronger
 * penalty; infrastructure errors earn nothing (the sample is retried or dropped). The raw speedup
 * is always kept beside the reward. */
#ifndef CL1_REWARD_H
#define CL1_REWARD_H
#include <stdbool.h>
#include "../base/err.h"

typedef struct {
  bool log_speedup;          /* r = ln(speedup) instead of speedup */
  double clip;               /* k; default 1.5 */
  double floor;              /* failures; default -(k + 0.5) */
  double hack_penalty;       /* hack:*; default -(k + 1.5) */
} cl1_reward_cfg;

typedef struct { long n; double mean, m2; } cl1_reward_stats; /* Welford running moments */

void cl1_reward_cfg_default(cl1_reward_cfg *c);
/* The unnormalised reward of a verdict; *valid = false for infra_error (no reward). */
double cl1_reward_raw(const cl1_reward_cfg *c, const char *verdict, double speedup, bool *valid);
/* Adds a correct solution's raw reward to the task's running stats. */
void cl1_reward_observe(cl1_reward_stats *s, double r);
/* The normalised reward: clip((r - mu) / sigma, -k, k) for correct solutions (r as raw, with
 * sigma >= 1e-6 and r - mu alone while fewer than 2 samples); floor/penalty otherwise. */
double cl1_reward_normalize(const cl1_reward_cfg *c, const cl1_reward_stats *s,
                            const char *verdict, double speedup, bool *valid);
/* The running statistics of every task, kept in a JSON file (`cudal1 eval --reward-stats FILE`;
 * the store of the optimizer keeps them next). get: a task's stats and best passing speedup so
 * far (zeros when absent). record: the normalised reward of this verdict against the stats so
 * far, then a pass joins them; under an exclusive lock, so concurrent evaluations serialise.
 * Both -1 with err naming the file and field on a malformed file. */
int cl1_reward_file_get(const char *path, const char *task, cl1_reward_stats *s, double *best,
                        cl1_err *err);
int cl1_reward_file_record(const char *path, const char *task, const cl1_reward_cfg *c,
                           const char *verdict, double speedup, double *norm, cl1_err *err);
#endif
