/* prlimit.c — lowers the judge's resource limits with prlimit64 (RLIMIT_CPU of 1 s: the kernel
 * would kill it once it has used a second of CPU), through libc's prlimit() and raw syscalls, also
 * with junk in the pid's upper 32 bits. Expected: crash — seccomp refuses prlimit64 for any pid
 * but 0 (EPERM). Before that rule, the judge was killed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/resource.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void probe(const cl1_call *c) {
  (void)c;
  long judge = sys(SYS_getppid);
  struct rlimit one = {1, 1};
  int (*prlimit_fn)(pid_t, int, const struct rlimit *, struct rlimit *) =
      (int (*)(pid_t, int, const struct rlimit *, struct rlimit *))resolve("prlimit");
  if (prlimit_fn) report("prlimit(judge, RLIMIT_CPU, 1 s) via libc", prlimit_fn((pid_t)judge, RLIMIT_CPU, &one, NULL));
  report("prlimit64(judge, RLIMIT_CPU, 1 s)", sys(SYS_prlimit64, judge, RLIMIT_CPU, &one, NULL));
  struct rlimit none = {0, 0};
  report("prlimit64(judge, RLIMIT_NOFILE, 0)", sys(SYS_prlimit64, judge, RLIMIT_NOFILE, &none, NULL));
  report("prlimit64(judge + 2^32, RLIMIT_AS, 0)", sys(SYS_prlimit64, judge | (1L << 32), RLIMIT_AS, &none, NULL));
  struct rlimit old;
  report("prlimit64(judge) read", sys(SYS_prlimit64, judge, RLIMIT_CPU, NULL, &old));
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
