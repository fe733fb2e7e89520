/* gpu_lock.h — one GPU shared by several evaluations of one judge process (`cudal1 serve --gpus
 * --overlap`). Timing is the only phase that needs the GPU to itself: a timed trial that shares
 * the GPU with another process's kernels measures that process too. So an evaluation holds its
 * GPU exclusively while it times, shared while it loads and verifies (verification's verdicts do
 * not depend on speed, and its kernels never run beside a timed trial), and not at all while its
 * workers start, create their CUDA contexts and enter the sandbox, or quit: those overlap another
 * evaluation's timing, and that overlap is where the throughput comes from. Writers (timing) go
 * first: a waiting timing holds off new verifications, and those running let it go first at their
 * next check (cl1_judge_gpu_yield), so it waits for at most one check of each.
 * The lock also keeps the figures /v1/stats reports: how long the GPU was held, and timed. */
#ifndef CL1_GPU_LOCK_H
#define CL1_GPU_LOCK_H
#include <pthread.h>
#include <stdbool.h>

typedef struct cl1_gpu_lock {
  int index;                 /* the GPU as the service's --gpus names it */
  char visible[64];          /* CUDA_VISIBLE_DEVICES its workers run under ("" = inherited) */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int readers, writers_waiting;
  bool writer;
  double held_since, timed_since;  /* when it last went from free to held; to timed */
  double held_s, timed_s;          /* totals over the lock's life */
  long timings;
} cl1_gpu_lock;

typedef enum { CL1_GPU_SHARED, CL1_GPU_EXCLUSIVE } cl1_gpu_mode;

void cl1_gpu_lock_init(cl1_gpu_lock *g, int index, const char *visible);
void cl1_gpu_lock_destroy(cl1_gpu_lock *g);
/* Blocks until the GPU can be held in this mode. */
void cl1_gpu_lock_take(cl1_gpu_lock *g, cl1_gpu_mode mode);
void cl1_gpu_lock_give(cl1_gpu_lock *g, cl1_gpu_mode mode);
/* Whether a timing waits for the GPU: a verification between two checks then lets it go first
 * (cl1_judge_gpu_yield), so a timing waits for one check of each verification, not for whole
 * verifications (docs/serve-scaling.md: the wait was 0.85 s of a 2.3 s evaluation). */
bool cl1_gpu_lock_timing_waits(cl1_gpu_lock *g);
/* Seconds held (by anyone) and timed since init, counting a hold in progress. */
void cl1_gpu_lock_usage(cl1_gpu_lock *g, double *held_s, double *timed_s, long *timings);
#endif
