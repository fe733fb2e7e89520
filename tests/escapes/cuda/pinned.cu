/* pinned.cu — exhausts host memory where the resident-set watchdog may not look:
 * page-locked host memory from cudaHostAlloc (an allowed call: the driver pins its own pages and
 * maps them into the process), 1 GiB at a time up to 24 GiB, logging the worker's RSS and the
 * machine's MemAvailable after each. Expected: crash — the judge's watchdog kills the worker at
 * its host-memory ceiling (8 GiB + 3x the task's data). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <stdlib.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static long kib_of(const char *path, const char *key) {
  char buf[8192];
  long fd = sys(SYS_openat, AT_FDCWD, path, O_RDONLY);
  if (fd < 0) return -1;
  long n = sys(SYS_read, fd, buf, (long)sizeof buf - 1);
  sys(SYS_close, fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  const char *l = strstr(buf, key);
  return l ? parse_long(l + strlen(key)) : -1;
}

static void probe(const cl1_call *c) {
  (void)c;
  long gib = 0;
  for (; gib < 24; gib++) {
    void *p = NULL;
    if (cudaHostAlloc(&p, 1UL << 30, cudaHostAllocDefault) != cudaSuccess) break;
    fprintf(stderr, "pinned %ld GiB: VmRSS %ld MiB, MemAvailable %ld MiB\n", gib + 1,
            kib_of("/proc/self/status", "VmRSS:") >> 10, kib_of("/proc/meminfo", "MemAvailable:") >> 10);
  }
  errno = ENOMEM;
  report("cudaHostAlloc 1 GiB chunks up to 24 GiB", gib < 24 ? -1 : gib);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  static int done;
  if (!done) {
    done = 1;
    sys = (syscall_fn)resolve("syscall");
    if (!sys) {
      fprintf(stderr, "resolver failed\n");
      return 2;
    }
    probe(c);
  }
  return finish(c);
}
