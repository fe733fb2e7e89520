/* baselines.h — PyTorch baselines (issue 6): the files tools/baselines.py writes on the GPU
 * machine (one per shape set: per task the C reference's time and each mode's — eager,
 * compile, reduce-overhead, graph — with its status), loaded into the store, and a solution's
 * speedup against a baseline. That speedup is taken through the reference: the baseline file
 * times the reference beside each mode, so speedup_vs_mode = speedup_vs_reference * mode_ms /
 * ref_ms, two ratios each measured side by side, never absolute times from different runs. */
#ifndef CL1_BASELINES_H
#define CL1_BASELINES_H
#include <stdbool.h>
#include "../base/err.h"
#include "../store/store.h"

/* Reads FILE, checks it (errors name the file and the field: "FILE: results[3].modes.eager.
 * median_ms: expected a positive number"), and upserts every (task, mode) row. *n_ok and
 * *n_failed count the rows by status. 0, or -1 with err (nothing is imported from a bad file). */
int cl1_baselines_import(cl1_store *s, const char *path, int *n_ok, int *n_failed, cl1_err *err);

/* A solution's speedup against baseline `name` given its speedup against the reference.
 * 0 with *out set; 1 when there is none (why: "not measured", the mode's failure status, ...). */
int cl1_baselines_vs(cl1_store *s, const char *task_id, const char *shapes, const char *name,
                     double speedup_vs_ref, double *out, char *why, size_t why_n, cl1_err *err);

/* A speedup against a baseline (cl1_baselines_vs, cudal1 report): the speedup against the reference
 * times mode_ms / ref_ms, the two timed side by side in the baseline run. */
static inline double cl1_baselines_through_ref(double speedup_vs_ref, double mode_ms, double ref_ms) {
  return speedup_vs_ref * mode_ms / ref_ms;
}
#endif
