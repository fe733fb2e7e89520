/* judge_proc.c — worker processes as seen from the judge (see judge_proc.h). */
#include "judge_proc.h"
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../worker/proto.h"
#include "../base/proc.h"
#include "../worker/worker.h"
#include "../base/file.h"

int cl1_worker_exe(char *out, size_t n, cl1_err *err) {
  return cl1_proc_find_program("CUDAL1_WORKER", "cudal1-worker", out, n, err);
}

/* CUDAL1_TRACE=1: every request and reply, timed, on stderr (latency and timing diagnosis). */
bool cl1_trace_on(void) {
  static int on = -1;
  if (on < 0) on = getenv("CUDAL1_TRACE") && *getenv("CUDAL1_TRACE") == '1';
  return on;
}

/* The outputs' shared memory: a sealed memfd the judge maps read-only. Made at spawn; sized,
 * sealed and mapped then, or later for a spare whose task is not known yet (cl1_wproc_size). */
static int make_outputs(cl1_wproc *w, cl1_err *err) {
  w->shm_fd = memfd_create("cudal1-outputs", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (w->shm_fd < 0) return cl1_err_set(err, "cannot create shared memory: %s", strerror(errno));
  return 0;
}

int cl1_wproc_size(cl1_wproc *w, size_t shm_bytes, cl1_err *err) {
  assert(w->shm_fd >= 0 && !w->shm && shm_bytes > 0);
  if (ftruncate(w->shm_fd, (off_t)shm_bytes))
    return cl1_err_set(err, "cannot create %zu bytes of shared memory: %s", shm_bytes, strerror(errno));
  /* The worker holds this file writable: a candidate that shrank it (ftruncate) would make the
     judge's next read of its mapping raise SIGBUS and kill the judge (tests/escapes/host/
     shm_shrink.c did). Sealed, its size is fixed for everyone; writing stays possible. The seal
     comes before SETUP, so before any solution code runs in the worker. */
  if (fcntl(w->shm_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
    return cl1_err_set(err, "cannot seal the shared memory: %s", strerror(errno));
  w->shm_bytes = shm_bytes;
  w->shm = mmap(NULL, shm_bytes, PROT_READ, MAP_SHARED, w->shm_fd, 0);
  if (w->shm == MAP_FAILED) { w->shm = NULL; return cl1_err_set(err, "cannot map shared memory"); }
  return 0;
}

/* The child's side of a spawn: the pipes, the shared memory and the log moved to the worker's
 * fixed descriptors (worker.h), everything else closed, then the worker program; a failure's
 * errno goes back through ex (close-on-exec). Never returns. */
static _Noreturn void exec_child(const char *exe, char **envp, int req, int rep, int shm,
                                 int logfd, int ex) {
  setpgid(0, 0);
  /* Move the pipe ends above the target numbers first so dup2 cannot clobber them. */
  int a = fcntl(req, F_DUPFD, 10), b = fcntl(rep, F_DUPFD, 10),
      c = fcntl(shm, F_DUPFD, 10), l = fcntl(logfd, F_DUPFD, 10),
      x = fcntl(ex, F_DUPFD_CLOEXEC, 10);
  int devnull = open("/dev/null", O_RDONLY);
  int e = errno;
  if (a < 0 || b < 0 || c < 0 || l < 0 || devnull < 0 || x < 0) {
    if (write(ex, &e, sizeof e) < 0) _exit(120);
    _exit(120);
  }
  dup2(devnull, 0);
  dup2(l, 1);
  dup2(l, 2);
  dup2(a, CL1_WORKER_FD_IN);
  dup2(b, CL1_WORKER_FD_OUT);
  dup2(c, CL1_WORKER_FD_SHM);
  for (int fd = CL1_WORKER_FD_SHM + 1; fd < 1024; fd++)
    if (fd != x) close(fd);
  char *argv[] = {"cudal1-worker", NULL};
  execve(exe, argv, envp);
  e = errno;
  if (write(x, &e, sizeof e) < 0) _exit(121);
  _exit(121);
}

/* The worker's environment: the judge's, with CUDA_VISIBLE_DEVICES=cuda_visible when given
 * (and, when the judge itself has no CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER=PCI_BUS_ID: the
 * index is then nvidia-smi's, which numbers GPUs in that order). Built before the fork: the
 * judge may run several threads, and the child of a threaded process may only call
 * async-signal-safe functions before its exec. vars holds the two strings. */
static char **worker_env(const char *cuda_visible, char vars[2][128]) {
  extern char **environ;
  if (!cuda_visible) return environ;
  const char *own = getenv("CUDA_VISIBLE_DEVICES");
  bool pci = !own || !*own;
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 3, sizeof *env);
  if (!env) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) &&
        (!pci || strncmp(environ[i], "CUDA_DEVICE_ORDER=", 18)))
      env[k++] = environ[i];
  snprintf(vars[0], 128, "CUDA_VISIBLE_DEVICES=%s", cuda_visible);
  env[k++] = vars[0];
  if (pci) {
    snprintf(vars[1], 128, "CUDA_DEVICE_ORDER=PCI_BUS_ID");
    env[k++] = vars[1];
  }
  return env;
}

int cl1_wproc_spawn(cl1_wproc *w, const char *exe, size_t shm_bytes, const char *tag,
                    const char *cuda_visible, cl1_err *err) {
  memset(w, 0, sizeof *w);
  w->pid = -1;
  w->to_fd = w->from_fd = w->shm_fd = -1;
  snprintf(w->tag, sizeof w->tag, "%s", tag);
  /* A worker may exit between its reply and the judge's next request (a candidate that forged
     its reply and left did, tests/escapes/host/exit_early.c): that write must fail with EPIPE,
     which cl1_wproc_send reports as the worker's death, not kill the judge with SIGPIPE. */
  signal(SIGPIPE, SIG_IGN);
  /* Same-uid processes may read /proc/<judge>/mem, fd/, environ unless the judge is
     non-dumpable. The candidate is kept out by Landlock (its domain may not trace outside it)
     and, as root, by its dropped capabilities; this covers kernels without Landlock and the CUDA
     driver's threads, which started before the sandbox (tests/escapes/host/proc_mem.c). Workers
     are dumpable again after their exec. */
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  snprintf(w->tmpdir, sizeof w->tmpdir, "/tmp/cudal1-%s.XXXXXX", tag);
  if (!mkdtemp(w->tmpdir)) return cl1_err_set(err, "cannot create a temp dir: %s", strerror(errno));
  chmod(w->tmpdir, 0700);
  snprintf(w->log_path, sizeof w->log_path, "%s/log.txt", w->tmpdir);
  if (make_outputs(w, err) || (shm_bytes && cl1_wproc_size(w, shm_bytes, err))) return -1;
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
    return cl1_err_set(err, "pipe: %s", strerror(errno));
  int logfd = open(w->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (logfd < 0) return cl1_err_set(err, "cannot create %s: %s", w->log_path, strerror(errno));
  /* The child reports a failed exec's errno through a close-on-exec pipe: EOF means the worker
     program is running. A failure to start is the harness's (infra_error), and only this pipe,
     which no solution code ever holds, can say so. */
  int ex[2];
  if (pipe2(ex, O_CLOEXEC)) return cl1_err_set(err, "pipe: %s", strerror(errno));
  char vars[2][128];
  char **envp = worker_env(cuda_visible, vars);
  if (!envp) return cl1_err_set(err, "out of memory");
  pid_t pid = fork();
  if (pid == 0) exec_child(exe, envp, to[0], from[1], w->shm_fd, logfd, ex[1]);
  extern char **environ;
  if (envp != environ) free(envp);
  if (pid < 0) return cl1_err_set(err, "fork: %s", strerror(errno));
  setpgid(pid, pid);
  close(to[0]);
  close(from[1]);
  close(logfd);
  close(ex[1]);
  int child_errno = 0;
  ssize_t got;
  while ((got = read(ex[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {}
  close(ex[0]);
  if (got > 0) {
    int st;
    waitpid(pid, &st, 0);
    close(to[1]);
    close(from[0]);
    return cl1_err_set(err, "cannot start the worker program %s: %s", exe, strerror(child_errno));
  }
  w->pid = pid;
  w->to_fd = to[1];
  w->from_fd = from[0];
  return 0;
}

static size_t rss_bytes(pid_t pid) {
  size_t vm, rss;
  cl1_proc_mem((int)pid, &vm, &rss);
  return rss;
}

static void kill_and_reap(cl1_wproc *w) {
  if (w->pid <= 0) return;
  kill(-w->pid, SIGKILL);
  kill(w->pid, SIGKILL);
  int st = 0;
  while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {}
  w->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  w->pid = -1;
}

/* After EOF: wait briefly for the exit status, to say how the worker died. */
static void describe_death(cl1_wproc *w) {
  int st = 0;
  pid_t r = 0;
  for (int i = 0; i < 200 && (r = waitpid(w->pid, &st, WNOHANG)) == 0; i++) usleep(5000);
  if (r == w->pid) {
    w->pid = -1;
    if (WIFSIGNALED(st)) {
      w->exit_status = 128 + WTERMSIG(st);
      snprintf(w->msg, sizeof w->msg, "the worker was killed by signal %d (%s)", WTERMSIG(st),
               strsignal(WTERMSIG(st)));
    } else {
      w->exit_status = WEXITSTATUS(st);
      snprintf(w->msg, sizeof w->msg, "the worker exited with status %d", WEXITSTATUS(st));
    }
  } else {
    kill_and_reap(w);
    snprintf(w->msg, sizeof w->msg, "the worker closed its pipe and was killed");
  }
}

void cl1_wproc_pause(cl1_wproc *w) {
  if (w->pid <= 0 || w->paused) return;
  if (!kill(-w->pid, SIGSTOP)) w->paused = true;
}

void cl1_wproc_resume(cl1_wproc *w) {
  if (!w->paused) return;
  w->paused = false;
  if (w->pid > 0) kill(-w->pid, SIGCONT);
}

cl1_wstatus cl1_wproc_send(cl1_wproc *w, int type, cJSON *req) {
  cl1_wproc_resume(w);
  w->msg[0] = 0;
  w->harness_failed = false;
  if (w->pid <= 0) {
    snprintf(w->msg, sizeof w->msg, "the worker is not running");
    return w->last = CL1_W_DIED;
  }
  char *s = req ? cJSON_PrintUnformatted(req) : NULL;
  cl1_err err = {{0}};
  w->sent_type = type;
  w->sent_at = cl1_now();
  if (cl1_trace_on()) fprintf(stderr, "trace %.6f %s send %d %s\n", w->sent_at, w->tag, type, s ? s : "{}");
  int src = cl1_proto_send(w->to_fd, (uint32_t)type, s ? s : "{}", &err);
  free(s);
  if (src) {
    describe_death(w);
    return w->last = CL1_W_DIED;
  }
  w->awaiting = true;
  return w->last = CL1_W_OK;
}

cl1_wstatus cl1_wproc_call(cl1_wproc *w, int type, cJSON *req, double timeout_s, cJSON **reply) {
  *reply = NULL;
  cl1_wstatus st = cl1_wproc_send(w, type, req);
  if (st != CL1_W_OK) return st;
  return cl1_wproc_wait(w, timeout_s, reply);
}

cl1_wstatus cl1_wproc_wait(cl1_wproc *w, double timeout_s, cJSON **reply) {
  *reply = NULL;
  cl1_err err = {{0}};
  if (w->pid <= 0) return w->last;
  double deadline = cl1_now() + timeout_s;
  cl1_proto_spin(w->from_fd, 2.0); /* most replies come within a millisecond: no sleep */
  for (;;) {
    /* Wake every 100 ms to check the memory ceiling: a bomb must not take the machine down. */
    double left = deadline - cl1_now();
    if (left <= 0) {
      kill_and_reap(w);
      snprintf(w->msg, sizeof w->msg, "no reply within %.1f s; the worker was killed", timeout_s);
      return w->last = CL1_W_TIMEOUT;
    }
    int wait_ms = left > 0.1 ? 100 : (int)(left * 1e3) + 1;
    uint32_t rtype;
    char *js = NULL;
    int rc = cl1_proto_recv(w->from_fd, wait_ms, &rtype, &js, &err);
    if (rc == -2) {
      size_t rss = rss_bytes(w->pid);
      if (w->rss_limit && rss > w->rss_limit) {
        kill_and_reap(w);
        snprintf(w->msg, sizeof w->msg, "used %.0f MiB of host memory, over the limit of %.0f MiB;"
                 " the worker was killed", rss / 1048576.0, w->rss_limit / 1048576.0);
        return w->last = CL1_W_MEMORY;
      }
      continue;
    }
    if (rc) {
      if (strstr(err.msg, "peer closed")) {
        describe_death(w);
        return w->last = CL1_W_DIED;
      }
      kill_and_reap(w);
      snprintf(w->msg, sizeof w->msg, "%s", err.msg);
      return w->last = CL1_W_PROTOCOL;
    }
    w->awaiting = false;  /* a whole reply read: the pipe is in step again */
    cJSON *o = cJSON_Parse(js);
    free(js);
    if (!o || !cJSON_IsObject(o)) {
      cJSON_Delete(o);
      kill_and_reap(w);
      snprintf(w->msg, sizeof w->msg, "protocol: reply is not a JSON object");
      return w->last = CL1_W_PROTOCOL;
    }
    if (rtype == CL1_MSG_FAIL) {
      const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
      snprintf(w->msg, sizeof w->msg, "%s", cJSON_IsString(e) ? e->valuestring : "unknown error");
      w->harness_failed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "harness"));
      cJSON_Delete(o);
      return w->last = CL1_W_FAILED;
    }
    if (rtype != CL1_MSG_OK) {
      cJSON_Delete(o);
      kill_and_reap(w);
      snprintf(w->msg, sizeof w->msg, "protocol: unexpected reply type %u", rtype);
      return w->last = CL1_W_PROTOCOL;
    }
    if (cl1_trace_on()) {
      char *t = cJSON_PrintUnformatted(o);
      fprintf(stderr, "trace %.6f %s reply %d %.3f ms %.300s\n", cl1_now(), w->tag, w->sent_type,
              (cl1_now() - w->sent_at) * 1e3, t ? t : "");
      free(t);
    }
    const cJSON *th = cJSON_GetObjectItemCaseSensitive(o, "threads");
    if (cJSON_IsNumber(th) && th->valueint > w->threads_max) w->threads_max = th->valueint;
    *reply = o;
    return w->last = CL1_W_OK;
  }
}

void cl1_wproc_log_tail(const cl1_wproc *w, char *out, size_t n) {
  out[0] = 0;
  FILE *f = fopen(w->log_path, "r");
  if (!f) return;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  long start = size > (long)n - 1 ? size - (long)n + 1 : 0;
  fseek(f, start, SEEK_SET);
  size_t k = fread(out, 1, n - 1, f);
  out[k] = 0;
  for (size_t i = 0; i < k; i++) /* keep JSON and terminals sane */
    if ((unsigned char)out[i] < 32 && out[i] != '\n' && out[i] != '\t') out[i] = '?';
  fclose(f);
}

void cl1_wproc_quit(cl1_wproc *w) {
  if (w->pid > 0 && w->last == CL1_W_OK && !w->quit_sent)
    w->quit_sent = cl1_wproc_send(w, CL1_MSG_QUIT, NULL) == CL1_W_OK;
}

/* Waits for a released worker's exit: a few seconds for a clean one, then it is killed. */
static void *reap_later(void *arg) {
  pid_t pid = (pid_t)(intptr_t)arg;
  int st;
  for (int i = 0; i < 500; i++) {
    if (waitpid(pid, &st, WNOHANG) == pid) return NULL;
    usleep(10000);
  }
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  return NULL;
}

void cl1_wproc_release(cl1_wproc *w, bool kill_it) {
  if (w->pid > 0) {
    if (kill_it || w->last != CL1_W_OK) {
      kill(-w->pid, SIGKILL);
      kill(w->pid, SIGKILL);
    } else if (!w->quit_sent) {
      w->quit_sent = cl1_wproc_send(w, CL1_MSG_QUIT, NULL) == CL1_W_OK;
    }
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (!pthread_create(&t, &a, reap_later, (void *)(intptr_t)w->pid)) w->pid = -1;
    pthread_attr_destroy(&a);
    if (w->pid > 0) kill_and_reap(w);  /* no thread to spare: reaped here */
  }
  cl1_wproc_close(w);
}

void cl1_wproc_kill(cl1_wproc *w) {
  kill_and_reap(w);
  cl1_wproc_close(w);
}

void cl1_wproc_close(cl1_wproc *w) {
  if (w->pid > 0) {
    cJSON *r = NULL;
    bool ok = w->quit_sent ? cl1_wproc_wait(w, 2.0, &r) == CL1_W_OK
                           : w->last == CL1_W_OK && cl1_wproc_call(w, CL1_MSG_QUIT, NULL, 2.0, &r) == CL1_W_OK;
    if (ok) {
      cJSON_Delete(r);
      int st;
      for (int i = 0; i < 100; i++) {
        if (waitpid(w->pid, &st, WNOHANG) == w->pid) { w->pid = -1; break; }
        usleep(2000);
      }
    }
    kill_and_reap(w);
  }
  if (w->to_fd >= 0) close(w->to_fd);
  if (w->from_fd >= 0) close(w->from_fd);
  if (w->shm) munmap(w->shm, w->shm_bytes);
  if (w->shm_fd >= 0) close(w->shm_fd);
  w->to_fd = w->from_fd = w->shm_fd = -1;
  w->shm = NULL;
  if (w->tmpdir[0]) cl1_file_rm_tree(w->tmpdir);
  w->tmpdir[0] = 0;
}
