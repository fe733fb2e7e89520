/* kill.c — signals the judge: kill(SIGSTOP) via libc (then SIGCONT, if it got through),
 * kill/tkill/tgkill(SIGKILL), rt_sigqueueinfo, pidfd_send_signal, kill of the judge's process
 * group, and signal 0 to every process (-1: a permission probe, harmless). Expected: crash —
 * seccomp lets these calls signal only the worker itself (EPERM); the judge survives. */
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
#include <sys/types.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void probe(const cl1_call *c) {
  (void)c;
  long judge = sys(SYS_getppid);
  int (*kill_fn)(pid_t, int) = (int (*)(pid_t, int))resolve("kill");
  if (kill_fn) {
    int r = kill_fn((pid_t)judge, SIGSTOP);
    report("kill(judge, SIGSTOP) via libc", r);
    if (r == 0) kill_fn((pid_t)judge, SIGCONT);
  }
  report("kill(judge, SIGKILL)", sys(SYS_kill, judge, SIGKILL));
  report("kill(judge + 2^32, SIGKILL)", sys(SYS_kill, judge | (1L << 32), SIGKILL));
  report("tkill(judge, SIGKILL)", sys(SYS_tkill, judge, SIGKILL));
  report("tgkill(judge, judge, SIGKILL)", sys(SYS_tgkill, judge, judge, SIGKILL));
  siginfo_t si;
  memset(&si, 0, sizeof si);
  si.si_signo = SIGKILL;
  si.si_code = SI_QUEUE;
  report("rt_sigqueueinfo(judge, SIGKILL)", sys(SYS_rt_sigqueueinfo, judge, SIGKILL, &si));
  long pfd = sys(SYS_pidfd_open, judge, 0L);
  report("pidfd_open(judge)", pfd);
  if (pfd >= 0) report("pidfd_send_signal(judge, SIGKILL)", sys(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0L));
  long pgid = sys(SYS_getpgid, judge);
  if (pgid > 0) report("kill(-judge's group, SIGKILL)", sys(SYS_kill, -pgid, SIGKILL));
  report("kill(-1, 0)", sys(SYS_kill, -1L, 0));
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
