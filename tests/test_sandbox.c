/* test_sandbox.c — the candidate sandbox: each case forks a child that enters the sandbox
 * (host backend unless noted, a fresh temp dir) and tries one forbidden thing; the child reports
 * through its exit status (0: the sandbox held, k: check k failed), and the parent — the test
 * process, which the child tries to signal and trace — must survive all of it. */
#include "harness.h"
#include "worker/sandbox.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>

#define MEM_LIMIT ((size_t)512 << 20)
#define FILE_LIMIT ((size_t)64 << 10)

static char out_path[512];   /* the child's stdout, for the file-size case */

typedef int (*check_fn)(const char *tmpdir);

/* Runs fn in a sandboxed child; returns its exit status (or 100 + signal). */
static int in_sandbox(check_fn fn, cl1_backend b, bool redirect_stdout) {
  const char *tmp = th_tmpdir();
  assert_non_null(tmp);
  snprintf(out_path, sizeof out_path, "%s.out", tmp);
  fflush(stdout);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (redirect_stdout) {
      int fd = open(out_path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
      if (fd < 0 || dup2(fd, 1) < 0) _exit(90);
      close(fd);
    }
    cl1_sandbox_opts o = {.tmpdir = tmp, .mem_limit_bytes = MEM_LIMIT, .cpu_seconds = 20,
                          .file_limit_bytes = FILE_LIMIT, .backend = b};
    cl1_err err;
    if (cl1_sandbox_enter(&o, &err)) {
      fprintf(stderr, "sandbox: %s\n", err.msg);
      _exit(91);
    }
    _exit(fn(tmp));
  }
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  if (WIFSIGNALED(st)) return 100 + WTERMSIG(st);
  return WEXITSTATUS(st);
}

static int c_socket(const char *t) {
  (void)t;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd >= 0) return 1;
  if (errno != EPERM) return 2;
  if (socket(AF_UNIX, SOCK_DGRAM, 0) >= 0) return 3;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) return 4;
  int p[2];
  if (pipe(p)) return 5;  /* pipes stay usable */
  return 0;
}

static int c_fork(const char *t) {
  (void)t;
  pid_t p = fork();
  if (p == 0) _exit(0);   /* must not happen; the parent reports it */
  if (p > 0) return 1;
  return 0;
}

static int c_exec(const char *t) {
  (void)t;
  char *argv[] = {"/bin/true", NULL}, *envp[] = {NULL};
  execve("/bin/true", argv, envp);
  return errno == EPERM ? 0 : 1;
}

static void *thread_fn(void *a) { return a; }

static int c_thread_host(const char *t) {
  (void)t;
  pthread_t th;
  if (pthread_create(&th, NULL, thread_fn, NULL) == 0) return 1;
  return cl1_sandbox_thread_count() == 1 ? 0 : 2;
}

/* CUDA backend: driver threads must still work, processes still must not */
static int c_thread_cuda(const char *t) {
  (void)t;
  pthread_t th;
  if (pthread_create(&th, NULL, thread_fn, NULL)) return 1;
  if (pthread_join(th, NULL)) return 2;
  if (fork() >= 0) return 3;
  return 0;
}

static int c_files(const char *tmpdir) {
  if (open("/tmp/cl1-sandbox-outside", O_CREAT | O_WRONLY, 0600) >= 0) return 1;
  char p[600];
  snprintf(p, sizeof p, "%s/new-file", tmpdir);
  /* creation is refused everywhere, the temp dir too: the candidate writes only to stdout/err */
  if (open(p, O_CREAT | O_WRONLY, 0600) >= 0) return 2;
  if (open("/etc/hostname", O_WRONLY | O_APPEND) >= 0) return 3;
  if (open("/etc/hostname", O_RDONLY | O_TRUNC) >= 0) return 4;
  if (mkdir(p, 0700) == 0) return 5;
  if (unlink("/etc/hostname") == 0) return 6;
  int fd = open("/etc/hostname", O_RDONLY);
  if (fd < 0) fd = open("/etc/passwd", O_RDONLY);
  if (fd < 0) return 7;
  char buf[64];
  if (read(fd, buf, sizeof buf) <= 0) return 8;
  close(fd);
  if (cl1_sandbox_thread_count() != 1) return 9;   /* opendir after the sandbox */
  return 0;
}

/* a file made by the parent outside the temp dir: O_RDWR passes seccomp, Landlock stops it */
static char victim[512];
static int c_landlock(const char *t) {
  (void)t;
  int fd = open(victim, O_RDWR);
  if (cl1_sandbox_landlock_abi() < 1) return 0;
  if (fd >= 0) return 1;
  return errno == EACCES ? 0 : 2;
}

static int c_memory(const char *t) {
  (void)t;
  void *p = malloc(2 * MEM_LIMIT);
  if (p) return 1;
  p = malloc(1 << 20);   /* small allocations still work */
  if (!p) return 2;
  free(p);
  return 0;
}

static int c_signals(const char *t) {
  (void)t;
  if (kill(getppid(), SIGTERM) == 0) return 1;
  if (kill(-1, SIGTERM) == 0) return 2;
  if (kill(0, SIGTERM) == 0) return 3;
  if (kill(getpid(), 0) != 0) return 4;   /* ourselves: allowed */
  signal(SIGUSR1, SIG_IGN);
  if (raise(SIGUSR1) != 0) return 5;
  return 0;
}

static int c_ptrace(const char *t) {
  (void)t;
  if (ptrace(PTRACE_ATTACH, getppid(), NULL, NULL) == 0) return 1;
  if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0) return 2;
  return 0;
}

static int c_file_size(const char *t) {
  (void)t;
  static char buf[4096];
  memset(buf, 'x', sizeof buf);
  size_t total = 0;
  for (int i = 0; i < 1000; i++) {
    ssize_t w = write(1, buf, sizeof buf);
    if (w < 0) return errno == EFBIG && total == FILE_LIMIT ? 0 : 1;
    total += (size_t)w;
  }
  return 2;   /* wrote 4 MB past a 64 KB limit */
}

static void expect_held(check_fn fn, cl1_backend b, bool redirect) {
  int rc = in_sandbox(fn, b, redirect);
  if (rc) fprintf(stderr, "child check failed with status %d\n", rc);
  assert_int_equal(rc, 0);
}

static void test_no_network(void **s) { (void)s; expect_held(c_socket, CL1_BACKEND_HOST, false); }
static void test_no_fork(void **s) { (void)s; expect_held(c_fork, CL1_BACKEND_HOST, false); }
static void test_no_exec(void **s) { (void)s; expect_held(c_exec, CL1_BACKEND_HOST, false); }
static void test_no_threads_on_host(void **s) { (void)s; expect_held(c_thread_host, CL1_BACKEND_HOST, false); }
static void test_threads_on_cuda(void **s) { (void)s; expect_held(c_thread_cuda, CL1_BACKEND_CUDA, false); }
static void test_files(void **s) {
  (void)s;
  expect_held(c_files, CL1_BACKEND_HOST, false);
  assert_int_not_equal(access("/tmp/cl1-sandbox-outside", F_OK), 0);
}
static void test_landlock(void **s) {
  (void)s;
  const char *d = th_tmpdir();
  snprintf(victim, sizeof victim, "%s/victim", d);
  assert_int_equal(th_write(victim, "keep\n"), 0);
  expect_held(c_landlock, CL1_BACKEND_CUDA, false);
  if (cl1_sandbox_landlock_abi() < 1) print_message("note: no Landlock here; O_RDWR is unconfined\n");
}
static void test_memory_limit(void **s) { (void)s; expect_held(c_memory, CL1_BACKEND_HOST, false); }
static void test_signals_to_others(void **s) { (void)s; expect_held(c_signals, CL1_BACKEND_HOST, false); }
static void test_ptrace(void **s) { (void)s; expect_held(c_ptrace, CL1_BACKEND_HOST, false); }
static void test_file_size(void **s) {
  (void)s;
  expect_held(c_file_size, CL1_BACKEND_HOST, true);
  struct stat st;
  assert_int_equal(stat(out_path, &st), 0);
  assert_int_equal((size_t)st.st_size, FILE_LIMIT);
}
static void test_thread_count(void **s) {
  (void)s;
  assert_int_equal(cl1_sandbox_thread_count(), 1);
}
/* The build step's confinement (cl1_sandbox_confine_build): writes and renames inside its folder
 * (Triton's cache writes a file in a temporary folder and renames it up: EXDEV before REFER was
 * handled), its own threads' /proc entries (cuInit writes them: 304 without), nothing else. */
static int c_build(const char *dir) {
  char a[600], f[600], up[600], out[600];
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(f, sizeof f, "%s/a/f", dir);
  snprintf(up, sizeof up, "%s/f", dir);
  snprintf(out, sizeof out, "%s.outside", dir);
  if (mkdir(a, 0700)) return 1;
  if (th_write(f, "x\n")) return 2;
  if (rename(f, up)) return 3;
  char comm[64];
  snprintf(comm, sizeof comm, "/proc/self/task/%d/comm", (int)gettid());
  int fd = open(comm, O_WRONLY);
  if (fd < 0 || write(fd, "cl1build", 8) != 8) return 4;
  close(fd);
  if (cl1_sandbox_landlock_abi() < 1) return 0;
  if (rename(up, out) == 0) return 5;
  if (open("/proc/self/oom_score_adj", O_WRONLY) >= 0) return 6;
  if (open(victim, O_RDWR) >= 0) return 7;
  return 0;
}
static void test_build_confinement(void **s) {
  (void)s;
  const char *d = th_tmpdir();
  assert_non_null(d);
  snprintf(victim, sizeof victim, "%s.victim", d);
  assert_int_equal(th_write(victim, "keep\n"), 0);
  fflush(stdout);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    cl1_err err;
    if (cl1_sandbox_confine_build(d, (size_t)1 << 34, 20, &err)) {
      fprintf(stderr, "confine: %s\n", err.msg);
      _exit(91);
    }
    _exit(c_build(d));
  }
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
  char out[600];
  snprintf(out, sizeof out, "%s.outside", d);
  assert_int_not_equal(access(out, F_OK), 0);
  if (cl1_sandbox_landlock_abi() < 1) print_message("note: no Landlock here; only the folder's writes were tried\n");
}

static void test_bad_options(void **s) {
  (void)s;
  cl1_sandbox_opts o = {.tmpdir = NULL};
  cl1_err err;
  assert_int_equal(cl1_sandbox_enter(&o, &err), -1);
  assert_non_null(strstr(err.msg, "temp dir"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bad_options),       cmocka_unit_test(test_thread_count),
      cmocka_unit_test(test_no_network),        cmocka_unit_test(test_no_fork),
      cmocka_unit_test(test_no_exec),           cmocka_unit_test(test_no_threads_on_host),
      cmocka_unit_test(test_threads_on_cuda),   cmocka_unit_test(test_files),
      cmocka_unit_test(test_landlock),          cmocka_unit_test(test_memory_limit),
      cmocka_unit_test(test_signals_to_others), cmocka_unit_test(test_ptrace),
      cmocka_unit_test(test_file_size),         cmocka_unit_test(test_build_confinement),
  };
  return cmocka_run_group_tests_name("sandbox", tests, NULL, NULL);
}
