/* doctor_kernel.c — the doctor's probes of the kernel features the worker sandbox uses
 * (sandbox.h): seccomp filters, no_new_privs, Landlock, user namespaces, and the sandbox itself
 * entered for real. Each probe that changes the process runs in a forked child, so the doctor
 * stays unconfined; the child reports through a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "doctor_int.h"
#include "eval.h"
#include "../worker/sandbox.h"

typedef int (*child_fn)(void *arg, char *msg, size_t n);

/* Writes a child's failure message; returns 1 (failed) for `return say(...)`. */
static int say(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *msg, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, n, fmt, ap);
  va_end(ap);
  return 1;
}

/* Runs fn in a forked child (10 s at most); 0 when it returned 0, else -1 with msg saying why
 * (its own message, or how it died). */
static int in_child(child_fn fn, void *arg, char *msg, size_t n) {
  int p[2];
  msg[0] = 0;
  if (pipe2(p, O_CLOEXEC)) {
    snprintf(msg, n, "pipe: %s", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(msg, n, "fork: %s", strerror(errno));
    close(p[0]), close(p[1]);
    return -1;
  }
  if (pid == 0) {
    close(p[0]);
    alarm(10);
    char m[512] = "";
    int rc = fn(arg, m, sizeof m);
    if (write(p[1], m, strlen(m)) < 0) rc = rc ? rc : 1;
    _exit(rc ? 1 : 0);
  }
  close(p[1]);
  size_t k = 0;
  for (;;) {
    ssize_t r = read(p[0], msg + k, n - 1 - k);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    k += (size_t)r;
    if (k == n - 1) break;
  }
  msg[k] = 0;
  close(p[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
  if (!msg[0] && WIFSIGNALED(st))
    snprintf(msg, n, "the probe was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
  else if (!msg[0]) snprintf(msg, n, "the probe exited with status %d", WEXITSTATUS(st));
  return -1;
}

/* A filter that refuses getppid with EDOM, loaded and then seen to refuse it. */
static int seccomp_child(void *arg, char *msg, size_t n) {
  (void)arg;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    return say(msg, n, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
  if (!f) return say(msg, n, "seccomp_init failed");
  int rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EDOM), SCMP_SYS(getppid), 0);
  if (rc) snprintf(msg, n, "seccomp_rule_add: %s", strerror(-rc));
  else if ((rc = seccomp_load(f))) snprintf(msg, n, "seccomp_load: %s", strerror(-rc));
  seccomp_release(f);
  if (rc) return 1;
  errno = 0;
  long v = syscall(SYS_getppid);
  if (v != -1 || errno != EDOM)
    return say(msg, n, "a filter loaded but did not act (getppid was not refused)");
  return 0;
}

static int nnp_child(void *arg, char *msg, size_t n) {
  (void)arg;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    return say(msg, n, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
  if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
    return say(msg, n, "PR_GET_NO_NEW_PRIVS does not read back 1");
  return 0;
}

static int userns_child(void *arg, char *msg, size_t n) {
  (void)arg;
  if (unshare(CLONE_NEWUSER)) return say(msg, n, "unshare(CLONE_NEWUSER): %s", strerror(errno));
  return 0;
}

/* The worker's host sandbox, entered as a worker enters it; then what it must refuse is tried. */
static int sandbox_child(void *arg, char *msg, size_t n) {
  cl1_sandbox_opts o = {.tmpdir = arg, .mem_limit_bytes = CL1_HOST_MEM_ROOM, .cpu_seconds = 10,
                        .file_limit_bytes = 1 << 20, .backend = CL1_BACKEND_HOST};
  cl1_err err = {{0}};
  if (cl1_sandbox_enter(&o, &err)) return say(msg, n, "%s", err.msg);
  if (socket(AF_UNIX, SOCK_STREAM, 0) >= 0) return say(msg, n, "entered, but socket() was allowed");
  char *argv[] = {"/bin/true", NULL};
  execve(argv[0], argv, argv + 1);
  if (errno != EPERM) return say(msg, n, "entered, but execve() was not refused by the filter");
  if (open("probe", O_WRONLY | O_CREAT, 0600) >= 0)
    return say(msg, n, "entered, but creating a file was allowed");
  return 0;
}

static void probe_seccomp(cl1_doctor_report *r) {
  char msg[512];
  const struct scmp_version *v = seccomp_version();
  char lib[64] = "libseccomp";
  if (v) snprintf(lib, sizeof lib, "libseccomp %u.%u.%u", v->major, v->minor, v->micro);
  if (in_child(seccomp_child, NULL, msg, sizeof msg) == 0)
    cl1_doctor_add(r, "seccomp", "seccomp", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_ALL, NULL,
                   "%s: a filter loaded and acted in a forked child", lib);
  else
    cl1_doctor_add(r, "seccomp", "seccomp", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_ALL,
                   "a kernel with seccomp filters (CONFIG_SECCOMP_FILTER); in a container, one "
                   "whose profile allows seccomp() itself",
                   "%s: cannot load a filter: %s", lib, msg);
  if (in_child(nnp_child, NULL, msg, sizeof msg) == 0)
    cl1_doctor_add(r, "no_new_privs", "no_new_privs", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_ALL, NULL,
                   "set and read back in a forked child");
  else
    cl1_doctor_add(r, "no_new_privs", "no_new_privs", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_ALL,
                   "a Linux kernel >= 3.5 (the sandbox sets it before its seccomp filter)", "%s", msg);
}

static void probe_landlock(cl1_doctor_report *r) {
  int abi = cl1_sandbox_landlock_abi();
  if (abi > 0)
    cl1_doctor_add(r, "landlock", "Landlock", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_NONE, NULL,
                   "ABI %d: the candidate may write only inside its temp dir", abi);
  else
    cl1_doctor_add(r, "landlock", "Landlock", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_NONE,
                   "a kernel >= 5.13 with landlock in its LSM list (CONFIG_SECURITY_LANDLOCK, "
                   "boot parameter lsm=...,landlock)",
                   "ABI 0 (not available): seccomp alone keeps files from being created, but an "
                   "existing file opened read-write on the cuda backend is not refused");
}

static void probe_userns(cl1_doctor_report *r) {
  char msg[512];
  if (in_child(userns_child, NULL, msg, sizeof msg) == 0)
    cl1_doctor_add(r, "userns", "user namespaces", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_NONE, NULL,
                   "available (unshare(CLONE_NEWUSER) in a forked child); cudal1 does not need them");
  else
    cl1_doctor_add(r, "userns", "user namespaces", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_NONE, NULL,
                   "not available (%s); cudal1 does not need them", msg);
}

static void probe_sandbox(cl1_doctor_report *r) {
  char dir[] = "/tmp/cudal1-doctor.XXXXXX", msg[512];
  if (!mkdtemp(dir)) {
    cl1_doctor_add(r, "sandbox", "worker sandbox", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_ALL,
                   "make /tmp writable: every worker runs in a temp dir there",
                   "cannot create a temp dir in /tmp: %s", strerror(errno));
    return;
  }
  int rc = in_child(sandbox_child, dir, msg, sizeof msg);
  if (rmdir(dir)) cl1_log_warn("doctor: cannot remove %s: %s", dir, strerror(errno));
  if (rc == 0)
    cl1_doctor_add(r, "sandbox", "worker sandbox", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_ALL, NULL,
                   "a forked child entered the host backend's sandbox; sockets, exec and file "
                   "creation were refused");
  else
    cl1_doctor_add(r, "sandbox", "worker sandbox", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_ALL,
                   "see the seccomp and no_new_privs lines; every candidate runs in this sandbox",
                   "%s", msg);
}

void cl1_doctor_probe_kernel(cl1_doctor_report *r) {
  probe_seccomp(r);
  probe_landlock(r);
  probe_userns(r);
  probe_sandbox(r);
}
