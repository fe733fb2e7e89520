/* spare.h — worker processes started ahead of need by a long-lived judge (`cudal1 serve`). A
 * worker's start — the process, a CUDA context, the op library's cuBLAS/cuDNN handles — is
 * task-independent and the part of an evaluation the driver serialises (docs/serve-scaling.md).
 * A spare does exactly that part (OPEN) on a filler thread while the lanes judge other
 * candidates, and waits; an evaluation that takes one sizes its memory and sends SETUP as to a
 * worker it had just spawned. A spare has run no task and no solution code, and serves one
 * evaluation only (the candidate's workers stay single-use: isolation is unchanged); it is a fresh
 * worker started earlier. */
#ifndef CL1_SPARE_H
#define CL1_SPARE_H
#include <stdbool.h>
#include "judge_proc.h"

/* What makes spares interchangeable: the program, the GPU it may see, the backend, the op
 * library preloaded (NULL or "": none). */
typedef struct {
  const char *exe, *gpu, *backend, *preload;
} cl1_spare_kind;

/* A ready spare of kind k moved into *w (its memfd not yet sized: cl1_wproc_size), when one is
 * waiting, or, with a wait set (cl1_spare_set_wait), when one the fillers are starting is ready
 * before it ends; either way the kind is kept topped up from now on. false: spawn one as usual.
 * *waited_s (may be NULL): the seconds this call took. */
bool cl1_spare_take(const cl1_spare_kind *k, cl1_wproc *w, double *waited_s);
/* How long a take that finds no spare ready waits for one the fillers are starting (0, the
 * default: not at all). Waiting keeps the contexts created at once to the fillers' count, where
 * a spawn would add one beside them (docs/serve-scaling.md). */
void cl1_spare_set_wait(double s);
/* Kind k is filled from now on, before any take: a judge that knows the kind its evaluations
 * will ask for (cl1_eval_spares_prime) has spares ready for its first batch. */
void cl1_spare_want(const cl1_spare_kind *k);
/* Spares kept ready per kind (0, the default: none, and every waiting one let go). */
void cl1_spare_set_max(int n);
/* Filler threads starting spares side by side (1 to 8; default 2), set before the first want
 * or take starts them: -1 when out of range or already started. */
int cl1_spare_set_fillers(int n);
/* The fillers stopped, every spare let go (a judge stopping), the filler count back to 2 and the
 * wait to 0. */
void cl1_spare_close(void);
/* Evaluations' workers that came from a spare, spares started, and starts that failed (the
 * filler then waits a while before trying that kind again; the evaluation spawns its own and
 * reports the machine's failure as usual). */
void cl1_spare_counts(long *used, long *started, long *failed);
/* The filler threads running (0 before the first want or take). */
int cl1_spare_fillers(void);
#endif
