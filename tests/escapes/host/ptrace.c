/* ptrace.c — attaches to the judge with ptrace (ATTACH, SEIZE; TRACEME for itself), reads and
 * writes its memory with process_vm_readv/writev, and takes its descriptors with pidfd_open +
 * pidfd_getfd. Expected: crash — seccomp refuses ptrace, process_vm_*, pidfd_* (EPERM). */
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
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void probe(const cl1_call *c) {
  (void)c;
  long judge = sys(SYS_getppid);
  long (*ptrace_fn)(int, pid_t, void *, void *) = (long (*)(int, pid_t, void *, void *))resolve("ptrace");
  long r;
  if (ptrace_fn) {
    r = ptrace_fn(PTRACE_ATTACH, (pid_t)judge, NULL, NULL);
    report("ptrace(PTRACE_ATTACH, judge) via libc", r);
    if (r == 0) ptrace_fn(PTRACE_DETACH, (pid_t)judge, NULL, NULL);
  }
  r = sys(SYS_ptrace, PTRACE_SEIZE, judge, 0L, 0L);
  report("ptrace(PTRACE_SEIZE, judge)", r);
  if (r == 0) sys(SYS_ptrace, PTRACE_DETACH, judge, 0L, 0L);
  report("ptrace(PTRACE_TRACEME)", sys(SYS_ptrace, PTRACE_TRACEME, 0L, 0L, 0L));
  char buf[64];
  struct iovec local = {buf, sizeof buf}, remote = {(void *)0x400000, sizeof buf};
  report("process_vm_readv(judge)", sys(SYS_process_vm_readv, judge, &local, 1L, &remote, 1L, 0L));
  report("process_vm_writev(judge)", sys(SYS_process_vm_writev, judge, &local, 1L, &remote, 1L, 0L));
  long pfd = sys(SYS_pidfd_open, judge, 0L);
  report("pidfd_open(judge)", pfd);
  if (pfd >= 0) report("pidfd_getfd(judge, 1)", sys(SYS_pidfd_getfd, pfd, 1L, 0L));
  report("kcmp(judge)", sys(SYS_kcmp, judge, sys(SYS_getpid), 0L, 0L, 0L));
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
