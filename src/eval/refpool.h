/* refpool.h — reference workers kept alive between evaluations (a long-lived judge: `cudal1
 * serve`). A reference worker is our own code; once set up and loaded for a task, shapes, GPU and
 * protocol, it can serve the next evaluation of that task as it is: every evaluation still gives
 * it fresh secret seeds, fresh parameters and inputs (PARAMS, RUN), so nothing of one judgement
 * carries into another. What it saves is a process start, a CUDA context and the op library's
 * preload per evaluation — the part of an evaluation the driver serialises (docs/serve-scaling.md).
 * The candidate's worker is never pooled. A worker goes back only when its last exchange ended
 * cleanly; an entry is used by one evaluation at a time. */
#ifndef CL1_REFPOOL_H
#define CL1_REFPOOL_H
#include <stdbool.h>
#include "judge_proc.h"

/* What SETUP told the judge about a worker's machine, kept with the worker. */
typedef struct {
  int threads_entry;
  char device[128], driver[64], cache_source[96];
  double l2_bytes, flush_bytes;
} cl1_refpool_info;

/* A worker set up under key (the SETUP request less its folder, the program, the GPU), when one
 * is idle: moved into *w and *info, out of the pool. */
bool cl1_refpool_take(const char *key, cl1_wproc *w, cl1_refpool_info *info);
/* Back into the pool after a clean evaluation; when the pool is full the least recently used
 * worker is let go. A worker not fit for reuse (dead, paused, a reply unread) is let go instead. */
void cl1_refpool_put(const char *key, cl1_wproc *w, const cl1_refpool_info *info);
/* Every pooled worker let go (a judge stopping). */
void cl1_refpool_close(void);
/* Workers kept at most (default 16; 0 turns pooling off and lets every idle worker go). */
void cl1_refpool_set_max(int n);
/* Evaluations that found a set-up reference worker, and those that started one. */
void cl1_refpool_counts(long *reused, long *started);
void cl1_refpool_count_start(void);
#endif
