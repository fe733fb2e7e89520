/* fork.c — makes a new process: fork() via libc, and fork, clone(SIGCHLD), clone(CLONE_PARENT)
 * (a sibling, the judge's child) and clone3 as raw system calls (a child would exit at once; the
 * parent reports it). Expected: crash —
 * on the host seccomp refuses every clone (and clone3 with ENOSYS, so its flags cannot hide). */
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
#include <sched.h>
#include <linux/sched.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void child_exit(long r) {
  if (r == 0) sys(SYS_exit_group, 0);
}

static void probe(const cl1_call *c) {
  (void)c;
  pid_t (*fork_fn)(void) = (pid_t (*)(void))resolve("fork");
  long r;
  if (fork_fn) {
    r = fork_fn();
    child_exit(r);
    report("fork() via libc", r);
  }
  r = sys(SYS_fork);
  child_exit(r);
  report("fork", r);
  r = sys(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
  child_exit(r);
  report("clone(SIGCHLD)", r);
  r = sys(SYS_clone, (long)(CLONE_PARENT | SIGCHLD), 0L, 0L, 0L, 0L);   /* a sibling: the judge's child */
  child_exit(r);
  report("clone(CLONE_PARENT)", r);
  struct clone_args ca;
  memset(&ca, 0, sizeof ca);
  ca.exit_signal = SIGCHLD;
  r = sys(SYS_clone3, &ca, sizeof ca);
  child_exit(r);
  report("clone3", r);
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
