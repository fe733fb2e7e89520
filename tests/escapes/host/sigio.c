/* sigio.c — signals the judge by proxy: makes the judge the owner of a pipe (F_SETOWN, also
 * with junk in the command's upper 32 bits, and F_SETOWN_EX), asks for SIGKILL instead of SIGIO
 * (F_SETSIG) and O_ASYNC, then writes to the pipe: the kernel itself would deliver the signal
 * (kill() is never called). Expected: crash — seccomp refuses F_SETOWN/F_SETOWN_EX naming another
 * process (EPERM). Before that rule, the judge died of SIGKILL. */
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

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void probe(const cl1_call *c) {
  (void)c;
  long judge = sys(SYS_getppid);
  int p[2];
  if (sys(SYS_pipe2, p, 0L)) {
    report("pipe2", -1);
    return;
  }
  long owned = 0;
  long r = sys(SYS_fcntl, p[0], (long)F_SETOWN | (1L << 32), judge);
  report("fcntl(F_SETOWN | 1 << 32, judge)", r);
  owned |= r == 0;
  r = sys(SYS_fcntl, p[0], (long)F_SETOWN, judge);
  report("fcntl(F_SETOWN, judge)", r);
  owned |= r == 0;
  r = sys(SYS_fcntl, p[0], (long)F_SETOWN, -sys(SYS_getpgid, judge));
  report("fcntl(F_SETOWN, -judge's group)", r);
  owned |= r == 0;
  struct f_owner_ex ox = {F_OWNER_PID, (pid_t)judge};
  r = sys(SYS_fcntl, p[0], (long)F_SETOWN_EX, &ox);
  report("fcntl(F_SETOWN_EX, judge)", r);
  owned |= r == 0;
  sys(SYS_fcntl, p[0], (long)F_SETSIG, (long)SIGKILL);
  sys(SYS_fcntl, p[0], (long)F_SETFL, (long)(O_ASYNC | O_NONBLOCK));
  long w = sys(SYS_write, p[1], "x", 1L);   /* SIGKILL goes to the owner now, if there is one */
  if (owned) report("SIGKILL to the judge through SIGIO", w);
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
