/* test_escapes_host.c — the sandbox holds against a determined candidate on the host backend:
 * every host line of tests/escapes/manifest.txt (sockets, a connection to a listener here, exec,
 * fork, files and devices outside the temp dir, /proc/<judge>/mem, ptrace, signals to the judge
 * directly and through SIGIO, its rlimits, its shared memory, a forged reply, a memory bomb, a
 * disk fill, a 1 GiB print) runs through the real `cudal1 eval`, in a plain form the gate refuses
 * and in a form that gets past the gate (the manifest's header says how), and gets its verdict
 * with no effect outside it (escape_cases.h says what is checked).
 *
 * One more case runs without a GPU what tests/escapes/cuda/thread_signal.cu attacks on the GPU
 * machine: a thread started before the sandbox (the CUDA driver's) must end up as confined as
 * the thread that entered it. */
#include "escapes/escape_cases.h"
#include "worker/sandbox.h"
#include <pthread.h>

static int cmd[2], ans[2];

/* Stands for a driver thread: waits in read() until told to act, then reports what it can do. */
static void *driver_like(void *arg) {
  char c;
  if (read(cmd[0], &c, 1) != 1) return arg;
  int r = 0;
  FILE *f = fopen("/proc/thread-self/status", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "CapEff:", 7) && strtoull(line + 7, NULL, 16) != 0) r |= 1;
  if (f) fclose(f);
  if (cl1_sandbox_landlock_abi() >= 1 && open(ESC_VICTIM, O_RDWR) >= 0) r |= 2;
  if (open("/tmp/cudal1-escape-thread", O_CREAT | O_WRONLY, 0600) >= 0) r |= 4;
  char b = (char)r;
  if (write(ans[1], &b, 1) != 1) return arg;
  return arg;
}

static void test_threads_started_before_the_sandbox(void **state) {
  (void)state;
  const char *tmp = th_tmpdir();
  assert_non_null(tmp);
  assert_int_equal(th_write(ESC_VICTIM, ESC_VICTIM_TEXT), 0);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    pthread_t th;
    if (pipe(cmd) || pipe(ans) || pthread_create(&th, NULL, driver_like, NULL)) _exit(90);
    /* the CUDA backend: threads allowed, and the others confined */
    cl1_sandbox_opts o = {.tmpdir = tmp, .cpu_seconds = 20, .file_limit_bytes = 1 << 20,
                          .backend = CL1_BACKEND_CUDA};
    cl1_err err;
    if (cl1_sandbox_enter(&o, &err)) {
      fprintf(stderr, "sandbox: %s\n", err.msg);
      _exit(91);
    }
    char c = 'x';
    if (write(cmd[1], &c, 1) != 1 || read(ans[0], &c, 1) != 1) _exit(92);
    _exit(c);
  }
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  int r = WEXITSTATUS(st);
  if (r & 1) fail_msg("the thread kept its capabilities");
  if (r & 2) fail_msg("the thread could open %s read-write (no Landlock domain)", ESC_VICTIM);
  if (r & 4) fail_msg("the thread created a file");
  assert_int_equal(r, 0);
  char left[600];
  assert_int_equal(esc_leftovers("/tmp", left, sizeof left), 0);
}

int main(void) {
  const struct CMUnitTest unit[] = {cmocka_unit_test(test_threads_started_before_the_sandbox)};
  return esc_main("escapes_host", "host", "test", unit, 1);
}
