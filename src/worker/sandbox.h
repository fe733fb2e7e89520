/* sandbox.h — confines the candidate worker process (evaluation.md): no sockets, no exec, no
 * fork (threads only where the CUDA driver needs them), no ptrace or signals to others, no file
 * creation or writes outside its private temp dir, rlimits on memory/CPU/file size/open files,
 * capabilities dropped, no new privileges. Entered after the CUDA context exists and before the
 * candidate .so is loaded, so even its static constructors run confined. */
#ifndef CL1_SANDBOX_H
#define CL1_SANDBOX_H
#include <stdbool.h>
#include <stddef.h>
#include "backend.h"
#include "../base/err.h"

typedef struct {
  const char *tmpdir;        /* private, already created; becomes the cwd and TMPDIR */
  size_t mem_limit_bytes;    /* RLIMIT_AS (host backend only: the CUDA driver reserves huge VA
                                ranges); 0 = none. The worker sets it to its own address space
                                at entry plus the judge's allowance (eval.h). The judge's
                                watchdog also polls RSS, on both backends. */
  int cpu_seconds;           /* RLIMIT_CPU; 0 = none */
  size_t file_limit_bytes;   /* RLIMIT_FSIZE: caps stdout/stderr logs */
  cl1_backend backend;       /* cuda: clone(CLONE_THREAD) stays allowed for driver threads */
} cl1_sandbox_opts;

int cl1_sandbox_enter(const cl1_sandbox_opts *o, cl1_err *err);

/* Confines the build step of a Python solution before it execs (cudal1-worker --confine-build):
 * writes beneath dir only, no network but Unix sockets, no signals to its parent, no ptrace or
 * machine-wide syscalls; RLIMIT_AS mem_bytes and RLIMIT_CPU cpu_seconds when > 0. Processes
 * (the compiler) stay allowed. */
int cl1_sandbox_confine_build(const char *dir, size_t mem_bytes, int cpu_seconds, cl1_err *err);

/* Landlock ABI version the kernel offers (0: none; then file writes outside the temp dir are
 * refused by seccomp's open() rules only, and O_RDWR of an existing file is not). */
int cl1_sandbox_landlock_abi(void);

/* Number of threads in this process (/proc/self/task), -1 on error. */
int cl1_sandbox_thread_count(void);
#endif
