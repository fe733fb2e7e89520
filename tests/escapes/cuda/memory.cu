/* memory.cu — exhausts memory past the allocator: 256 MiB anonymous mappings, populated at once
 * (MAP_POPULATE), through raw mmap, up to 24 GiB; first tries to raise its own RLIMIT_AS.
 * Expected on CUDA (no RLIMIT_AS: the driver reserves
 * huge address ranges): crash — the judge's watchdog sees the resident set pass the worker's
 * host-memory ceiling (8 GiB + 3x the task's data) and kills the worker. */
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
#include <sys/mman.h>
#include <sys/resource.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void probe(const cl1_call *c) {
  (void)c;
  struct rlimit inf = {RLIM_INFINITY, RLIM_INFINITY}, cur;
  if (sys(SYS_prlimit64, 0L, RLIMIT_AS, NULL, &cur) == 0 && cur.rlim_max != RLIM_INFINITY)
    report("setrlimit(RLIMIT_AS, unlimited)", sys(SYS_prlimit64, 0L, RLIMIT_AS, &inf, NULL));
  else
    fprintf(stderr, "no RLIMIT_AS here (the CUDA backend): the watchdog has to act\n");
  const long chunk = 256L << 20, cap = 24L << 30;
  long total = 0, r = 0;
  while (total < cap) {
    r = sys(SYS_mmap, 0L, chunk, (long)(PROT_READ | PROT_WRITE),
            (long)(MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE), -1L, 0L);
    if (r == -1) break;
    total += chunk;
  }
  fprintf(stderr, "mapped %ld MiB\n", total >> 20);
  report("mmap 256 MiB chunks up to 24 GiB", r == -1 ? -1 : total);
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
