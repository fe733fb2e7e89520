/* escape_cases.h — runs the sandbox-escape probes of tests/escapes/manifest.txt through the real
 * `cudal1 eval` (eval_cases.h's manifest reader and result record) and checks, besides the
 * verdict, that the escape had no effect outside the verdict:
 *   - the judge survived: it exited by itself within the deadline with a verdict JSON (a judge
 *     killed by a signal, stopped for a second, or hung fails the case);
 *   - a `crash` is the probe's own "cl1_forward returned 1", which it returns only when every
 *     attempt was refused (2: its resolver failed, no proof), or for a memory bomb the watchdog's
 *     host-memory kill, or exit status 42 from a probe that ends its worker on purpose; a worker
 *     that crashed because an attempt got through says something else; and the log tail has no
 *     ESCAPE-SUCCEEDED line;
 *   - no /tmp/cudal1-escape-* or ./cudal1-escape-* appeared, and /tmp/cudal1-escape-victim (made
 *     here, which the probes try to rewrite, rename, truncate) still holds its bytes;
 *   - a TCP and a UDP listener on 127.0.0.1 ($CUDAL1_ESCAPE_PORT, which the probes read) got no
 *     connection and no datagram;
 *   - free space on the disk of /tmp never dropped by 256 MiB or more during the evaluation
 *     (the probes' own caps: the fallocate attempt asks for 1 GiB, the write loop stops at 2 GiB);
 *   - the largest resident set in the eval's process tree stayed under 2 GiB (the 1 GiB print
 *     was not buffered anywhere), except for the memory bombs (memory*, pinned*), where the
 *     worker is meant to grow until its limit. */
#ifndef CL1_TEST_ESCAPE_CASES_H
#define CL1_TEST_ESCAPE_CASES_H
#include "../eval_cases.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/statvfs.h>

#define ESC_VICTIM "/tmp/cudal1-escape-victim"
#define ESC_VICTIM_TEXT "keep: the escape probes must not change this file\n"
#define ESC_DEADLINE_S 240.0

static int esc_tcp = -1, esc_udp = -1;

/* The listeners and the victim file; $CUDAL1_ESCAPE_PORT reaches the worker through the judge's
 * environment. Returns 0 on success. */
static int esc_setup(void) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t n = sizeof a;
  esc_tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (esc_tcp < 0 || bind(esc_tcp, (struct sockaddr *)&a, sizeof a) || listen(esc_tcp, 16) ||
      getsockname(esc_tcp, (struct sockaddr *)&a, &n))
    return -1;
  esc_udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (esc_udp < 0 || bind(esc_udp, (struct sockaddr *)&a, sizeof a)) return -1;
  char port[16];
  snprintf(port, sizeof port, "%u", (unsigned)ntohs(a.sin_port));
  setenv("CUDAL1_ESCAPE_PORT", port, 1);
  return th_write(ESC_VICTIM, ESC_VICTIM_TEXT);
}

/* Names starting with cudal1-escape- in dir, other than the victim: the count, the first in out. */
static int esc_leftovers(const char *dir, char *out, size_t cap) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (strncmp(e->d_name, "cudal1-escape-", 14)) continue;
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (!strcmp(p, ESC_VICTIM)) continue;
    if (!n++) snprintf(out, cap, "%s", p);
  }
  closedir(d);
  return n;
}

static double esc_free_bytes(void) {
  struct statvfs s;
  return statvfs("/tmp", &s) ? 0 : (double)s.f_bavail * (double)s.f_frsize;
}

/* The state letter of a process (R, S, T, Z, ...), '?' when gone. */
static char esc_state(pid_t pid) {
  char p[64], buf[512];
  snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(p, "r");
  if (!f) return '?';
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *rp = strrchr(buf, ')');
  return rp && rp[1] && rp[2] ? rp[2] : '?';
}

/* Runs `cudal1 eval` in its own process group with stdout to a file, watching the judge every
 * 20 ms: the lowest free disk space seen goes to *min_free (a fill that the temp dir's removal
 * undoes still shows), and a judge stopped for a second (SIGSTOP) or alive past the deadline is
 * killed with its group. Returns the exit status, 128 + signal, -1 at the deadline, -3 stopped. */
/* Copies file into o with each line `#include "NAME"` replaced by NAME's text, NAME taken
 * relative to dir (the probe's own folder, also for files it pulls in: a CUDA twin that
 * includes ../host/X.c gets the CUDA folder's probe_kit.inc). */
static void esc_inline(const char *file, const char *dir, FILE *o, int depth) {
  FILE *f = fopen(file, "r");
  if (!f) fail_msg("%s: cannot read", file);
  if (depth > 3) fail_msg("%s: includes nested too deep", file);
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "#include \"", 10)) {
      fputs(line, o);
      continue;
    }
    char name[512], path[1200];
    const char *q = strchr(line + 10, '"');
    snprintf(name, sizeof name, "%.*s", q ? (int)(q - line - 10) : 0, line + 10);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    esc_inline(path, dir, o, depth + 1);
  }
  fclose(f);
}

/* The probe as a one-file solution (the evaluator takes a single file): its quoted includes
 * (the shared probe_kit.inc; a CUDA twin's host probe) inlined, written under a fresh temp dir
 * with the probe's own name; the path into out. */
static void esc_materialize(const char *file, char *out, size_t n) {
  const char *base = strrchr(file, '/');
  char dir[600];
  snprintf(dir, sizeof dir, "%.*s", base ? (int)(base - file) : 1, base ? file : ".");
  snprintf(out, n, "%s/%s", th_tmpdir(), base ? base + 1 : file);
  FILE *o = fopen(out, "w");
  if (!o) fail_msg("%s: cannot write", out);
  esc_inline(file, dir, o, 0);
  fclose(o);
}

static int esc_eval(const th_case *c, const char *out_path, struct rusage *ru, double *secs,
                    double *min_free) {
  char bin[600], timeout[8], solution[600];
  esc_materialize(c->file, solution, sizeof solution);
  snprintf(bin, sizeof bin, "%s/cudal1", th_build());
  snprintf(timeout, sizeof timeout, "%s", strcmp(c->expect, "timeout") ? "20" : "3");
  const char *argv[] = {bin, "eval", "--task", c->task, "--solution", solution, "--device",
                        c->backend, "--shapes", c->shapes, "--json", "--min-trials", "10",
                        "--max-trials", "60", "--time-budget", "0.5", "--timeout", timeout, NULL};
  double t0 = cl1_now_test();
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) return -2;
  if (pid == 0) {
    setpgid(0, 0);
    int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), e = open("/dev/null", O_WRONLY);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    execv(bin, (char *const *)argv);
    _exit(127);
  }
  setpgid(pid, pid);
  int st = 0, stopped = 0;
  for (;;) {
    pid_t r = wait4(pid, &st, WNOHANG, ru);
    if (r == pid) break;
    double f = esc_free_bytes();
    if (f < *min_free) *min_free = f;
    char s = esc_state(pid);
    stopped = s == 'T' || s == 't' ? stopped + 1 : 0;
    if (stopped >= 50 || cl1_now_test() - t0 > ESC_DEADLINE_S) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      wait4(pid, &st, 0, ru);
      *secs = cl1_now_test() - t0;
      return stopped >= 50 ? -3 : -1;
    }
    usleep(20000);
  }
  *secs = cl1_now_test() - t0;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *esc_slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char buf[1 << 18];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static const char *esc_str(const cJSON *j, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
  return cJSON_IsString(v) ? v->valuestring : "";
}

static void esc_run_case(void **state) {
  const th_case *c = *state;
  char out_path[64], leftover[600] = "";
  snprintf(out_path, sizeof out_path, "/tmp/cl1test-escape-%d.json", (int)getpid());
  double free0 = esc_free_bytes(), min_free = free0, secs = 0;
  struct rusage ru;
  memset(&ru, 0, sizeof ru);
  int status = esc_eval(c, out_path, &ru, &secs, &min_free);
  const char *text = esc_slurp(out_path);
  unlink(out_path);
  th_record(c, text ? text : "", status, secs);
  /* the judge survived and said something */
  if (status == -1) fail_msg("%s: the judge did not finish within %.0f s", c->file, ESC_DEADLINE_S);
  if (status == -3) fail_msg("%s: the judge was stopped (SIGSTOP) and killed", c->file);
  if (status >= 128) fail_msg("%s: the judge died of signal %d", c->file, status - 128);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  if (!j) fail_msg("%s: no verdict JSON from cudal1 eval (exit %d): %.300s", c->file, status, text ? text : "");
  const char *verdict = esc_str(j, "verdict"), *msg = esc_str(j, "message"),
             *tail = esc_str(j, "candidate_log_tail");
  print_message("  %s: %s (%s) in %.1f s\n", c->file, verdict, msg, secs);
  char why[512];
  if (!th_expect_met(c->expect, j, why, sizeof why))
    fail_msg("%s: %s: %s | log: %.600s", c->file, why, msg, tail);
  assert_int_equal(status, !strcmp(verdict, "pass") ? 0 : !strcmp(verdict, "infra_error") ? 3 : 1);
  /* a crash for the right reason: the probe's own report (or, for a memory bomb, the watchdog)
     — a worker that crashed because an attempt got through says something else */
  const char *base = strrchr(c->file, '/');
  base = base ? base + 1 : c->file;
  bool bomb = !strncmp(base, "memory", 6) || !strncmp(base, "pinned", 6);
  if (!strcmp(verdict, "crash") && !strstr(msg, "cl1_forward returned 1") &&
      !(bomb && strstr(msg, "host memory")) && !strstr(msg, "exited with status 42"))
    fail_msg("%s: %s — a probe that was refused everything returns 1 | log: %.600s", c->file, msg, tail);
  if (strstr(tail, "ESCAPE-SUCCEEDED"))
    fail_msg("%s: an attempt got through: %.1500s", c->file, tail);
  /* no trace outside the worker's temp dir */
  if (esc_leftovers("/tmp", leftover, sizeof leftover) || esc_leftovers(".", leftover, sizeof leftover))
    fail_msg("%s: %s appeared", c->file, leftover);
  const char *v = esc_slurp(ESC_VICTIM);
  if (!v || strcmp(v, ESC_VICTIM_TEXT)) fail_msg("%s: %s was changed or removed", c->file, ESC_VICTIM);
  /* nothing reached the listeners */
  int conn = accept4(esc_tcp, NULL, NULL, SOCK_NONBLOCK);
  if (conn >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
    fail_msg("%s: the TCP listener on 127.0.0.1 got a connection", c->file);
  char byte;
  if (recv(esc_udp, &byte, 1, MSG_DONTWAIT) >= 0)
    fail_msg("%s: the UDP listener on 127.0.0.1 got a datagram", c->file);
  /* the disk and memory stayed bounded */
  double dropped = free0 - min_free;
  if (dropped >= 256.0 * 1048576)
    fail_msg("%s: free disk space dropped by %.0f MiB during the evaluation", c->file, dropped / 1048576);
  if (!bomb && ru.ru_maxrss > 2L * 1024 * 1024)
    fail_msg("%s: a process of the evaluation reached %ld MiB resident", c->file, ru.ru_maxrss / 1024);
  cJSON_Delete(j);
}

/* Registers every case of the manifest for one backend, after the n_extra tests in extra, and
 * runs them as one group. */
static int esc_main(const char *group, const char *backend, const char *shapes,
                    const struct CMUnitTest *extra, int n_extra) {
  th_case *cs;
  int n = th_manifest("tests/escapes/manifest.txt", backend, shapes, &cs);
  if (n <= 0) {
    fprintf(stderr, "tests/escapes/manifest.txt: no %s cases\n", backend);
    return 1;
  }
  if (esc_setup()) {
    fprintf(stderr, "cannot set up the listeners or %s: %s\n", ESC_VICTIM, strerror(errno));
    return 1;
  }
  struct CMUnitTest *t = calloc((size_t)(n + n_extra), sizeof *t);
  for (int i = 0; i < n_extra; i++) t[i] = extra[i];
  for (int i = 0; i < n; i++) {
    t[n_extra + i].name = cs[i].file;
    t[n_extra + i].test_func = esc_run_case;
    t[n_extra + i].initial_state = &cs[i];
  }
  int rc = _cmocka_run_group_tests(group, t, (size_t)(n + n_extra), NULL, NULL);
  free(t);
  unlink(ESC_VICTIM);
  return rc;
}
#endif
