/* train_proc.c — the two children of `cudal1 train` and the signals between them. The service
 * (this binary's `serve`) and the engine each run in a process group of their own, so a Ctrl-C
 * at the terminal reaches `cudal1 train` alone, which forwards it to the engine and stops the
 * service only once the engine has stopped (the engine's last rewards still get answered). Both
 * children get SIGTERM should `cudal1 train` itself die (PR_SET_PDEATHSIG): nothing is left
 * behind. The service's token travels in its environment, never on a command line: a fresh one,
 * or, when $CUDAL1_SERVE_URLS names the evaluation services of other nodes (verl at scale), the
 * one they share in $CUDAL1_SERVE_TOKEN, which the engine then uses for all of them. */
#include "train.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- signals ---- */

static volatile sig_atomic_t n_signals, last_signal;
static struct sigaction old_int, old_term, old_pipe;

static void on_signal(int sig) {
  n_signals++;
  last_signal = sig;
}

void cl1_train_signals_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal; /* no SA_RESTART: poll and waitpid return EINTR at once */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  /* a closed terminal pipe must not kill us before the children are stopped */
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, &old_pipe);
  n_signals = 0;
}

void cl1_train_signals_restore(void) {
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGPIPE, &old_pipe, NULL);
}

int cl1_train_signal(int *last) {
  if (last) *last = last_signal;
  return n_signals;
}

/* In a child after fork: its own process group, SIGTERM when we die, default signals. */
static void child_setup(pid_t parent) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(1); /* we died before the line above */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);
  int null = open("/dev/null", O_RDONLY);
  if (null >= 0) dup2(null, 0);
}

static void child_fail(const char *what, const char *prog) {
  char msg[512];
  int k = snprintf(msg, sizeof msg, "cudal1 train: cannot run %s '%s': %s\n", what, prog,
                   strerror(errno));
  if (k > 0 && write(2, msg, (size_t)k) < 0) _exit(127);
  _exit(127);
}

/* environ without the names in keys[], then the "K=V" entries of set[]; malloc'd array. */
static char **env_with(const char *const *set, int n_set) {
  int n = 0;
  while (environ[n]) n++;
  char **env = calloc((size_t)(n + n_set + 1), sizeof *env);
  if (!env) return NULL;
  int k = 0;
  for (int i = 0; i < n; i++) {
    bool replaced = false;
    for (int j = 0; j < n_set && !replaced; j++) {
      size_t len = strcspn(set[j], "=");
      replaced = !strncmp(environ[i], set[j], len + 1);
    }
    if (!replaced) env[k++] = environ[i];
  }
  for (int j = 0; j < n_set; j++) env[k++] = (char *)set[j];
  return env;
}

static double now_s(void) { return cl1_now(); }

/* ---- the service ---- */

static int make_token(char *out, cl1_err *err) {
  unsigned char raw[16];
  size_t got = 0;
  while (got < sizeof raw) {
    ssize_t k = getrandom(raw + got, sizeof raw - got, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return cl1_err_set(err, "getrandom: %s", strerror(errno));
    got += (size_t)k;
  }
  for (size_t i = 0; i < sizeof raw; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
  return 0;
}

/* The last non-empty line of the service's log (why it stopped), into buf. */
static void log_tail(const char *path, char *buf, size_t n) {
  buf[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (*line) snprintf(buf, n, "%s", line);
  }
  fclose(f);
}

static pid_t spawn_serve(const cl1_train_opts *o, int out_w, int log_fd, char **env) {
  const char *argv[16 + CL1_TRAIN_MAX_SERVE_ARGS] = {"cudal1", "serve", "--port", "0", "--bind",
                                                     "127.0.0.1", "--db", o->db};
  int n = 8;
  for (int i = 0; i < o->n_serve_args; i++) argv[n++] = o->serve_args[i];
  pid_t parent = getpid(), pid = fork();
  if (pid != 0) return pid;
  child_setup(parent);
  dup2(out_w, 1);
  dup2(log_fd, 2);
  execve("/proc/self/exe", (char *const *)argv, env);
  child_fail("the service", "/proc/self/exe serve");
  return -1;
}

/* Reads the announcement "... listening on http://127.0.0.1:PORT ..." into s->port. 0; 1 when
 * the service ended first or the time ran out; 130 for a signal to us. */
static int read_announce(cl1_train_serve *s, double timeout_s) {
  char line[1024];
  size_t k = 0;
  double end = now_s() + timeout_s;
  while (k + 1 < sizeof line) {
    if (cl1_train_signal(NULL)) return 130;
    if (now_s() > end) return 1;
    struct pollfd p = {.fd = s->out_fd, .events = POLLIN};
    int r = poll(&p, 1, 200);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    ssize_t got = read(s->out_fd, line + k, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 1;
    if (line[k] == '\n') break;
    k++;
  }
  line[k] = 0;
  if (write(s->log_fd, line, k) < 0 || write(s->log_fd, "\n", 1) < 0) { /* the log is best effort */ }
  const char *at = strstr(line, "listening on http://127.0.0.1:");
  if (!at) return 1;
  s->port = atoi(at + strlen("listening on http://127.0.0.1:"));
  return s->port > 0 ? 0 : 1;
}

int cl1_train_token_check(cl1_err *err) {
  const char *urls = getenv("CUDAL1_SERVE_URLS"), *tok = getenv("CUDAL1_SERVE_TOKEN");
  if (!urls || !*urls) return 0;
  if (!tok || !*tok)
    return cl1_err_set(err, "$CUDAL1_SERVE_URLS names evaluation services (%s): give their token "
                            "in $CUDAL1_SERVE_TOKEN (a service bound beyond loopback has one)",
                       urls), 2;
  if (strlen(tok) >= sizeof ((cl1_train_serve *)0)->token || strpbrk(tok, " \t\r\n"))
    return cl1_err_set(err, "$CUDAL1_SERVE_TOKEN: longer than %zu bytes or holds white space",
                       sizeof ((cl1_train_serve *)0)->token - 1), 2;
  return 0;
}

/* The fresh token, or the evaluation services' when $CUDAL1_SERVE_URLS names them. */
static int pick_token(char *out, size_t n, cl1_err *err) {
  int rc = cl1_train_token_check(err);
  if (rc) return rc;
  const char *urls = getenv("CUDAL1_SERVE_URLS");
  if (urls && *urls) {
    snprintf(out, n, "%s", getenv("CUDAL1_SERVE_TOKEN"));
    return 0;
  }
  return make_token(out, err) ? 3 : 0;
}

int cl1_train_serve_start(const cl1_train_opts *o, const char *log_path, double timeout_s,
                          cl1_train_serve *s, cl1_err *err) {
  memset(s, 0, sizeof *s);
  s->pid = -1, s->out_fd = -1;
  int rc = pick_token(s->token, sizeof s->token, err);
  if (rc) return rc;
  s->log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (s->log_fd < 0) return cl1_err_set(err, "%s: %s", log_path, strerror(errno)), 2;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC)) return cl1_err_set(err, "pipe: %s", strerror(errno)), 3;
  char tok[320];
  snprintf(tok, sizeof tok, "CUDAL1_SERVE_TOKEN=%s", s->token);
  const char *set[] = {tok};
  char **env = env_with(set, 1);
  s->pid = env ? spawn_serve(o, fds[1], s->log_fd, env) : -1;
  free(env);
  close(fds[1]);
  s->out_fd = fds[0];
  if (s->pid < 0) {
    cl1_train_serve_stop(s, 0);
    return cl1_err_set(err, "cannot start the reward service: %s", strerror(errno)), 3;
  }
  setpgid(s->pid, s->pid);
  int r = read_announce(s, timeout_s);
  if (r == 0) {
    snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d", s->port);
    fcntl(s->out_fd, F_SETFL, fcntl(s->out_fd, F_GETFL) | O_NONBLOCK);
    return 0;
  }
  int status = 0;
  bool ended = cl1_train_serve_exited(s, &status);
  cl1_train_serve_stop(s, 5);
  if (r == 130) return cl1_err_set(err, "stopped before the engine started"), 130;
  char why[1100];
  log_tail(log_path, why, sizeof why);
  int code = ended && WIFEXITED(status) && WEXITSTATUS(status) == 2 ? 2 : 3;
  if (!ended) snprintf(why, sizeof why, "it did not announce its port within %.0f s", timeout_s);
  return cl1_err_set(err, "the reward service did not start: %s (log: %s)",
                     *why ? why : "it exited without a message", log_path), code;
}

bool cl1_train_serve_pump(cl1_train_serve *s) {
  if (s->out_fd < 0) return false;
  char buf[4096];
  for (;;) {
    ssize_t k = read(s->out_fd, buf, sizeof buf);
    if (k > 0) {
      if (write(s->log_fd, buf, (size_t)k) < 0) { /* the log is best effort */ }
      continue;
    }
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    close(s->out_fd);
    s->out_fd = -1;
    return false;
  }
}

bool cl1_train_serve_exited(cl1_train_serve *s, int *status) {
  if (s->pid <= 0) return true;
  int st;
  pid_t r = waitpid(s->pid, &st, WNOHANG);
  if (r != s->pid) return false;
  s->pid = -1;
  if (status) *status = st;
  return true;
}

void cl1_train_serve_stop(cl1_train_serve *s, double grace_s) {
  if (s->pid > 0) {
    kill(s->pid, SIGTERM);
    int seen = cl1_train_signal(NULL);
    double end = now_s() + grace_s;
    while (!cl1_train_serve_exited(s, NULL)) {
      cl1_train_serve_pump(s);
      if (now_s() > end || cl1_train_signal(NULL) > seen) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, NULL, 0);
        s->pid = -1;
        break;
      }
      usleep(20000);
    }
  }
  cl1_train_serve_pump(s);
  if (s->out_fd >= 0) close(s->out_fd);
  if (s->log_fd > 0) close(s->log_fd);
  s->out_fd = s->log_fd = -1;
}

/* ---- the engine ---- */

int cl1_train_engine_start(const cl1_train_opts *o, const cl1_train_paths *p,
                           const cl1_train_serve *s, cl1_train_engine *e, cl1_err *err) {
  e->pid = -1, e->out_fd = e->err_fd = -1;
  const char *custom = getenv("CUDAL1_TRAIN_ENGINE");
  char script[4200];
  const char *argv[8];
  if (custom && *custom) {
    snprintf(script, sizeof script, "%s \"$@\"", custom); /* --config PATH appended, unquoted */
    const char *a[] = {"sh", "-c", script, "sh", "--config", p->config, NULL};
    memcpy(argv, a, sizeof a);
  } else {
    const char *a[] = {o->python, "-m", "cudal1.train", "--config", p->config, NULL};
    memcpy(argv, a, sizeof a);
  }
  char url[96], tok[320], path[8400];
  const char *old = getenv("PYTHONPATH");
  snprintf(url, sizeof url, "CUDAL1_SERVE_URL=%s", s->url);
  snprintf(tok, sizeof tok, "CUDAL1_SERVE_TOKEN=%s", s->token);
  snprintf(path, sizeof path, "PYTHONPATH=%s/python%s%s", p->repo, old && *old ? ":" : "",
           old && *old ? old : "");
  const char *set[] = {url, tok, path, "HF_HUB_OFFLINE=1", "HF_HUB_DISABLE_TELEMETRY=1",
                       "TRANSFORMERS_OFFLINE=1", "TOKENIZERS_PARALLELISM=false",
                       "PYTHONUNBUFFERED=1"};
  int out[2], errp[2];
  if (pipe2(out, O_CLOEXEC)) return cl1_err_set(err, "pipe: %s", strerror(errno));
  if (pipe2(errp, O_CLOEXEC)) {
    close(out[0]), close(out[1]);
    return cl1_err_set(err, "pipe: %s", strerror(errno));
  }
  char **env = env_with(set, (int)(sizeof set / sizeof *set));
  pid_t parent = getpid(), pid = env ? fork() : -1;
  if (pid == 0) {
    child_setup(parent);
    dup2(out[1], 1);
    dup2(errp[1], 2);
    execvpe(argv[0], (char *const *)argv, env);
    child_fail("the engine", argv[0]);
  }
  free(env);
  close(out[1]), close(errp[1]);
  if (pid < 0) {
    close(out[0]), close(errp[0]);
    return cl1_err_set(err, "cannot start the engine: %s", strerror(errno));
  }
  setpgid(pid, pid);
  e->pid = pid, e->out_fd = out[0], e->err_fd = errp[0];
  return 0;
}

void cl1_train_engine_signal(const cl1_train_engine *e, int sig) {
  if (e->pid > 0) kill(-e->pid, sig);
}
