/* fork.cu — makes a new process: fork() via libc, and fork, clone(SIGCHLD), clone(CLONE_PARENT)
 * (a sibling, the judge's child) and clone3 as raw system calls (a child would exit at once; the
 * parent reports it). On CUDA, where
 * clone(CLONE_THREAD) must pass for the driver, it also starts a thread (pthread_create, found
 * by the resolver) that forks and execs, and asks for CLONE_THREAD with a new user namespace.
 * Expected: crash — seccomp refuses clone without CLONE_THREAD or with namespace flags (EPERM),
 * clone3 (ENOSYS, so its flags cannot hide) and execve. */
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
#include <sched.h>
#include <linux/sched.h>
#include <pthread.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void child_exit(long r) {
  if (r == 0) sys(SYS_exit_group, 0);
}

static char a0[] = "sh", a1[] = "-c", a2[] = "echo escaped > /tmp/cudal1-escape-exec";
static char *argv_sh[] = {a0, a1, a2, NULL}, *envp_sh[] = {NULL};

static void *from_thread(void *arg) {
  long r = sys(SYS_fork);
  child_exit(r);
  report("fork from a thread", r);
  report("execve(/bin/sh) from a thread", sys(SYS_execve, "/bin/sh", argv_sh, envp_sh));
  return arg;
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
  /* a "thread" with a namespace of its own: refused before any child exists (else the child
     would run on this stack and crash the worker, which the test also catches) */
  r = sys(SYS_clone, (long)(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                            CLONE_NEWUSER), 0L, 0L, 0L, 0L);
  report("clone(CLONE_THREAD | CLONE_NEWUSER)", r);
  int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
      (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))resolve("pthread_create");
  int (*join)(pthread_t, void **) = (int (*)(pthread_t, void **))resolve("pthread_join");
  pthread_t th;
  if (create && join && create(&th, NULL, from_thread, NULL) == 0) join(th, NULL);
  else report("pthread_create", -1);
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
