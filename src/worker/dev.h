/* dev.h — what a worker needs from a device, behind one table so the same worker code drives the
 * host (CPU; CI) and CUDA backends: memory, generation from seeds, poison, checksums, copies to
 * host memory, the L2 flush and the timed interval. */
#ifndef CL1_DEV_H
#define CL1_DEV_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "backend.h"
#include "../base/err.h"
#include "../task/task.h"

typedef struct cl1_dev cl1_dev;
struct cl1_dev {
  cl1_backend backend;
  char name[128];            /* "NVIDIA H200" / "host CPU" */
  char driver[64];           /* driver version ("580.159.04") or "" */
  size_t l2_bytes;           /* last-level cache the flush must cover */
  void *stream;              /* the harness stream handed to solutions (NULL on host) */
  double hold_us;            /* CUDA: GPU-exclusive hold before the start event (begin()) */
  void *impl;
  int (*alloc)(cl1_dev *d, size_t bytes, void **out, cl1_err *err);
  void (*free)(cl1_dev *d, void *p);
  int (*gen)(cl1_dev *d, const cl1_tinst *t, void *dst, uint64_t seed, uint32_t tid, cl1_err *err);
  int (*poison)(cl1_dev *d, void *dst, size_t bytes, cl1_err *err);
  int (*checksum)(cl1_dev *d, const void *p, size_t bytes, uint64_t *out, cl1_err *err);
  int (*to_host)(cl1_dev *d, void *host, const void *src, size_t bytes, cl1_err *err);
  int (*sync)(cl1_dev *d, cl1_err *err);       /* device-wide; reports a sticky device error */
  int (*flush)(cl1_dev *d, cl1_err *err);      /* evict L2 + reset persisting L2 */
  /* The timed interval: begin() after a device sync (on CUDA it then queues the hold of
   * hold_us, and the start event behind it), end() syncs the device again.
   * ev_ms: event time on the harness stream (host: = wall); wall_ms: host clock around it. */
  int (*begin)(cl1_dev *d, cl1_err *err);
  int (*end)(cl1_dev *d, double *ev_ms, double *wall_ms, cl1_err *err);
  /* CUDA graphs (--graph); NULL on host. */
  int (*graph_begin)(cl1_dev *d, cl1_err *err);
  int (*graph_end)(cl1_dev *d, void **graph_exec, cl1_err *err);
  int (*graph_launch)(cl1_dev *d, void *graph_exec, cl1_err *err);
  void (*graph_free)(cl1_dev *d, void *graph_exec);
  /* Page-locks host memory the device copies into (the shared output regions); NULL on host. */
  int (*pin)(cl1_dev *d, void *host, size_t bytes, cl1_err *err);
  void (*close)(cl1_dev *d);
  size_t flush_bytes;        /* what one flush writes (CUDA: 2 x L2 + 1 MiB; host: llc.h) */
  char cache_source[96];     /* where l2_bytes came from ("cudaDevAttrL2CacheSize", "sysfs L3 ...") */
};

/* Opens the backend's device 0. On CUDA with no usable GPU returns -1 with a one-line reason. */
int cl1_dev_open(cl1_backend b, cl1_dev *d, cl1_err *err);
int cl1_dev_open_host(cl1_dev *d, cl1_err *err);
int cl1_dev_open_cuda(cl1_dev *d, cl1_err *err);
/* The NVIDIA kernel module's version from /proc ("580.159.04", what nvidia-smi calls the driver
 * version; "version unreadable" when the file says none); false when no NVIDIA driver is loaded. */
bool cl1_dev_driver_version(char *out, size_t n);
#endif
