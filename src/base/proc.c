/* proc.c — child programs with a time limit and captured output (proc.h). The child leads its own
 * process group so a timeout can SIGKILL everything it started (a compiler driver's cc1, as, ptxas);
 * exec failures travel back through a close-on-exec pipe so "no such program" is an error, not an
 * exit code 127 that looks like the program's own. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "proc.h"
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum { STAGE_CHDIR = 1, STAGE_EXEC = 2, STAGE_SETUP = 3 };

/* Only async-signal-safe calls from here on: the parent may have other threads. */
static void child_fail(int fd, int stage) {
  int msg[2] = {stage, errno};
  ssize_t w = write(fd, msg, sizeof msg);
  (void)w;
  _exit(127);
}

static void child_exec(char *const argv[], const char *cwd, const cl1_proc_limits *lim,
                       int out_fd, int err_fd) {
  setpgid(0, 0);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  for (int s = 1; s < NSIG; s++) /* ignored signals would stay ignored across exec */
    if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_DFL);
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
    child_fail(err_fd, STAGE_SETUP);
  if (cwd && chdir(cwd) != 0) child_fail(err_fd, STAGE_CHDIR);
  if (lim && lim->fsize_bytes > 0) {
    struct rlimit rl = {(rlim_t)lim->fsize_bytes, (rlim_t)lim->fsize_bytes};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) child_fail(err_fd, STAGE_SETUP);
  }
  execvpe(argv[0], argv, lim && lim->envp ? lim->envp : environ);
  child_fail(err_fd, STAGE_EXEC);
}

static int status_code(int st) {
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return 255;
}

static int reap(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return 255;
  return status_code(st);
}

static int ms_left(double deadline) {
  if (deadline <= 0) return -1;
  double left = deadline - cl1_now();
  if (left <= 0) return 0;
  return left > INT_MAX / 1000.0 ? INT_MAX : (int)(left * 1000.0) + 1;
}

int cl1_proc_run_lim(char *const argv[], const char *cwd, int timeout_ms,
                     const cl1_proc_limits *lim, char *out, size_t out_cap, size_t *out_len,
                     int *exit_status, cl1_err *err) {
  assert(argv && argv[0]);
  size_t len = 0;
  if (out && out_cap) out[0] = 0;
  if (out_len) *out_len = 0;
  int pout[2], perr[2];
  if (pipe2(pout, O_CLOEXEC) != 0)
    return cl1_err_set(err, "cannot run %s: pipe: %s", argv[0], strerror(errno));
  if (pipe2(perr, O_CLOEXEC) != 0) {
    int e = errno;
    close(pout[0]), close(pout[1]);
    return cl1_err_set(err, "cannot run %s: pipe: %s", argv[0], strerror(e));
  }
  double deadline = timeout_ms > 0 ? cl1_now() + timeout_ms / 1000.0 : 0;
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(pout[0]), close(pout[1]), close(perr[0]), close(perr[1]);
    return cl1_err_set(err, "cannot run %s: fork: %s", argv[0], strerror(e));
  }
  if (pid == 0) child_exec(argv, cwd, lim, pout[1], perr[1]);
  setpgid(pid, pid); /* also here: the child may not have run yet when we kill the group */
  close(pout[1]);
  close(perr[1]);

  int msg[2];
  ssize_t r;
  while ((r = read(perr[0], msg, sizeof msg)) < 0 && errno == EINTR) {}
  close(perr[0]);
  if (r == (ssize_t)sizeof msg) {
    close(pout[0]);
    reap(pid);
    const char *what = msg[0] == STAGE_CHDIR ? "cannot enter folder" : msg[0] == STAGE_EXEC
                                                                           ? "cannot execute"
                                                                           : "cannot set up";
    return cl1_err_set(err, "%s %s for %s: %s", what, msg[0] == STAGE_CHDIR && cwd ? cwd : "",
                       argv[0], strerror(msg[1]));
  }

  int timed_out = 0, eof = 0;
  char scratch[4096];
  while (!eof) {
    struct pollfd pfd = {pout[0], POLLIN, 0};
    int left = ms_left(deadline);
    if (left == 0) { timed_out = 1; break; }
    int pr = poll(&pfd, 1, left);
    if (pr < 0) {
      if (errno == EINTR) continue;
      timed_out = 1; /* cannot wait any more: treat like a limit, never leave the child behind */
      break;
    }
    if (pr == 0) continue; /* ms_left decides */
    char *dst = scratch;
    size_t room = sizeof scratch;
    if (out && len + 1 < out_cap) dst = out + len, room = out_cap - 1 - len;
    ssize_t n = read(pout[0], dst, room);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      eof = 1;
    } else if (n == 0) {
      eof = 1;
    } else if (dst != scratch) {
      len += (size_t)n;
      out[len] = 0;
    }
  }
  close(pout[0]);
  /* The pipe is closed; wait for the exit without reaping, so the group id stays ours while we
   * kill whatever the child left running in it. */
  while (!timed_out) {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (si.si_pid == pid) break;
    if (ms_left(deadline) == 0) { timed_out = 1; break; }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  kill(-pid, SIGKILL);
  if (timed_out) kill(pid, SIGKILL);
  int code = reap(pid);
  if (out_len) *out_len = len;
  if (exit_status) *exit_status = timed_out ? 128 + SIGKILL : code;
  return timed_out ? CL1_PROC_TIMEOUT : 0;
}

int cl1_proc_run(char *const argv[], const char *cwd, int timeout_ms, char *out, size_t out_cap,
                 size_t *out_len, int *exit_status, cl1_err *err) {
  return cl1_proc_run_lim(argv, cwd, timeout_ms, NULL, out, out_cap, out_len, exit_status, err);
}

int cl1_proc_mem(int pid, size_t *vm_bytes, size_t *rss_bytes) {
  char p[64];
  if (pid) snprintf(p, sizeof p, "/proc/%d/statm", pid);
  else snprintf(p, sizeof p, "/proc/self/statm");
  *vm_bytes = *rss_bytes = 0;
  FILE *f = fopen(p, "r");
  if (!f) return -1;
  unsigned long size = 0, res = 0;
  int k = fscanf(f, "%lu %lu", &size, &res);
  fclose(f);
  if (k != 2) return -1;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  *vm_bytes = size * page;
  *rss_bytes = res * page;
  return 0;
}

int cl1_proc_exe_dir(char *out, size_t n) {
  assert(out && n > 0);
  ssize_t k = readlink("/proc/self/exe", out, n);
  if (k <= 0 || (size_t)k >= n) return -1;
  out[k] = 0;
  char *slash = strrchr(out, '/');
  if (!slash) return -1;
  if (slash == out) slash[1] = 0;
  else *slash = 0;
  return 0;
}

int cl1_proc_find_program(const char *env, const char *name, char *out, size_t n, cl1_err *err) {
  assert(name && out && n > 0);
  const char *e = env ? getenv(env) : NULL;
  if (e && *e) {
    snprintf(out, n, "%s", e);
    return 0;
  }
  char exe[PATH_MAX];
  if (cl1_proc_exe_dir(exe, sizeof exe)) return cl1_err_set(err, "cannot read /proc/self/exe");
  const char *ups[] = {"", "/..", "/../.."};
  for (int i = 0; i < 3; i++) {
    int k = snprintf(out, n, "%s%s/%s", exe, ups[i], name);
    if (k > 0 && (size_t)k < n && access(out, X_OK) == 0) return 0;
  }
  if (env) return cl1_err_set(err, "cannot find the program %s beside %s (set %s to it)", name, exe, env);
  return cl1_err_set(err, "cannot find the program %s beside %s", name, exe);
}

int cl1_proc_gpu_names(char (*names)[128], int max, cl1_err *err) {
  assert(names && max > 0);
  if (access("/proc/driver/nvidia/version", R_OK))
    return cl1_err_set(err, "--device cuda: no NVIDIA GPU on this machine (no driver in "
                            "/proc/driver/nvidia); use --device host");
  int n = 0;
  FILE *p = popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r");
  if (!p) return 0;
  char line[256];
  while (fgets(line, sizeof line, p)) {
    line[strcspn(line, "\r\n")] = 0;
    if (n < max && line[0]) snprintf(names[n++], 128, "%.127s", line);
  }
  pclose(p);
  return n;
}

int cl1_proc_gpu_name(char *out, size_t n, cl1_err *err) {
  assert(out && n > 0);
  out[0] = 0;
  char names[1][128];
  int k = cl1_proc_gpu_names(names, 1, err);
  if (k < 0) return -1;
  if (k > 0) snprintf(out, n, "%s", names[0]);
  return 0;
}

void cl1_proc_share_dir(const char *env, const char *name, char *out, size_t n) {
  assert(env && name && out && n > 0);
  const char *e = getenv(env);
  if (e && *e) {
    snprintf(out, n, "%s", e);
    return;
  }
  char exe[PATH_MAX], cand[PATH_MAX + 64];
  struct stat st;
  if (cl1_proc_exe_dir(exe, sizeof exe) == 0 &&
      snprintf(cand, sizeof cand, "%s/../%s", exe, name) < (int)sizeof cand &&
      stat(cand, &st) == 0 && S_ISDIR(st.st_mode)) {
    char *real = realpath(cand, NULL);
    snprintf(out, n, "%s", real ? real : cand);
    free(real);
    return;
  }
  snprintf(out, n, "%s", name);
}
