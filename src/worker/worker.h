/* worker.h — a worker process: loads a solution .so (the reference, trusted; or a candidate,
 * sandboxed) and serves the judge's requests over the protocol (proto.h): params sets, verified
 * calls whose outputs go to shared memory, and timed trials. Runs as the cudal1-worker program
 * (main.c) with the request pipe on fd 3, the reply pipe on fd 4 and the shared memory on fd 5. */
#ifndef CL1_WORKER_H
#define CL1_WORKER_H
#include <stddef.h>
#include "../task/task.h"

#define CL1_WORKER_FD_IN 3
#define CL1_WORKER_FD_OUT 4
#define CL1_WORKER_FD_SHM 5
#define CL1_WORKER_SLOTS 8     /* input sets at distinct addresses */
#define CL1_WORKER_TIME_SLOT 4 /* timing input sets use slots 4.. */

/* Byte offset of each output inside one shared-memory region, and the region size. */
size_t cl1_worker_layout(const cl1_inst *in, size_t offs[CL1_TASK_MAX_TENSORS]);

/* The worker's main loop; returns the process exit status. */
int cl1_worker_main(void);
#endif
