/* reward.c — CUDA-L1-style reward from a verdict and its speedup (see reward.h). */
#include "reward.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void cl1_reward_cfg_default(cl1_reward_cfg *c) {
  c->log_speedup = false;
  c->clip = 1.5;
  c->floor = -(c->clip + 0.5);
  c->hack_penalty = -(c->clip + 1.5);
}

static bool is_pass(const char *v) { return !strcmp(v, "pass"); }

double cl1_reward_raw(const cl1_reward_cfg *c, const char *verdict, double speedup, bool *valid) {
  *valid = strcmp(verdict, "infra_error") != 0;
  if (!*valid) return 0;
  if (!strncmp(verdict, "hack:", 5)) return c->hack_penalty;
  if (!is_pass(verdict) || !(speedup > 0)) return c->floor;
  if (!c->log_speedup) return speedup;
  /* ln goes below any floor for very slow kernels: a correct one still earns more than a failure */
  double r = log(speedup), lo = c->floor + 0.25;
  return r > lo ? r : lo;
}

void cl1_reward_observe(cl1_reward_stats *s, double r) {
  s->n++;
  double d = r - s->mean;
  s->mean += d / (double)s->n;
  s->m2 += d * (r - s->mean);
}

double cl1_reward_normalize(const cl1_reward_cfg *c, const cl1_reward_stats *s,
                            const char *verdict, double speedup, bool *valid) {
  double r = cl1_reward_raw(c, verdict, speedup, valid);
  if (!*valid || !is_pass(verdict) || !(speedup > 0)) return r;
  double mu = s->n ? s->mean : 0, sigma = s->n >= 2 ? sqrt(s->m2 / (double)(s->n - 1)) : 1.0;
  if (sigma < 1e-6) sigma = 1e-6;
  double z = (r - mu) / sigma;
  return z > c->clip ? c->clip : z < -c->clip ? -c->clip : z;
}

/* The running per-task statistics file (reward.h): {"tasks": {ID: {n, mean, m2, best}}}. */
static cJSON *book_read(int fd, const char *path, cl1_err *err) {
  struct stat st;
  if (fstat(fd, &st)) return cl1_err_set(err, "%s: %s", path, strerror(errno)), NULL;
  if (st.st_size == 0) return cJSON_CreateObject();
  if (st.st_size > (64 << 20)) return cl1_err_set(err, "%s: larger than 64 MiB", path), NULL;
  char *buf = malloc((size_t)st.st_size + 1);
  if (!buf) return cl1_err_set(err, "out of memory"), NULL;
  ssize_t n = pread(fd, buf, (size_t)st.st_size, 0);
  if (n != st.st_size) {
    free(buf);
    return cl1_err_set(err, "%s: short read", path), NULL;
  }
  buf[n] = 0;
  cJSON *o = cJSON_Parse(buf);
  free(buf);
  if (!cJSON_IsObject(o)) {
    cJSON_Delete(o);
    return cl1_err_set(err, "%s: not a JSON object of reward statistics", path), NULL;
  }
  return o;
}

static int entry_of(const cJSON *book, const char *path, const char *task, cl1_reward_stats *s,
                    double *best, cl1_err *err) {
  memset(s, 0, sizeof *s);
  *best = 0;
  const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(book, "tasks");
  if (!tasks) return 0;
  if (!cJSON_IsObject(tasks)) return cl1_err_set(err, "%s: tasks: expected an object", path);
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(tasks, task);
  if (!e) return 0;
  const char *keys[4] = {"n", "mean", "m2", "best_speedup"};
  double v[4];
  for (int i = 0; i < 4; i++) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(e, keys[i]);
    if (!cJSON_IsNumber(x)) return cl1_err_set(err, "%s: tasks.%s.%s: expected a number", path, task, keys[i]);
    v[i] = x->valuedouble;
  }
  if (v[0] < 0 || v[2] < 0) return cl1_err_set(err, "%s: tasks.%s: n and m2 must be >= 0", path, task);
  s->n = (long)v[0], s->mean = v[1], s->m2 = v[2], *best = v[3];
  return 0;
}

/* how is LOCK_EX for a read-modify-write, LOCK_SH for a read: a burst of answers from the store
 * reads the statistics at once, while a record (in place, under LOCK_EX) waits for them */
static int open_locked(const char *path, int how, int *fd, cl1_err *err) {
  *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (*fd < 0) return cl1_err_set(err, "%s: %s", path, strerror(errno));
  /* evaluations of one run may finish together: one read-modify-write at a time */
  if (flock(*fd, how)) {
    close(*fd);
    return cl1_err_set(err, "%s: cannot lock: %s", path, strerror(errno));
  }
  return 0;
}

int cl1_reward_file_get(const char *path, const char *task, cl1_reward_stats *s, double *best,
                        cl1_err *err) {
  int fd;
  if (open_locked(path, LOCK_SH, &fd, err)) return -1;
  cJSON *book = book_read(fd, path, err);
  int rc = book ? entry_of(book, path, task, s, best, err) : -1;
  cJSON_Delete(book);
  close(fd);
  return rc;
}

int cl1_reward_file_record(const char *path, const char *task, const cl1_reward_cfg *c,
                           const char *verdict, double speedup, double *norm, cl1_err *err) {
  int fd;
  if (open_locked(path, LOCK_EX, &fd, err)) return -1;
  int rc = -1;
  cJSON *book = book_read(fd, path, err);
  cl1_reward_stats s;
  double best;
  bool valid;
  if (!book || entry_of(book, path, task, &s, &best, err)) goto out;
  /* normalised against the samples before this one, then this one joins them */
  *norm = cl1_reward_normalize(c, &s, verdict, speedup, &valid);
  if (!strcmp(verdict, "pass") && speedup > 0) {
    cl1_reward_observe(&s, cl1_reward_raw(c, verdict, speedup, &valid));
    if (speedup > best) best = speedup;
  }
  cJSON *tasks = cJSON_GetObjectItemCaseSensitive(book, "tasks");
  if (!tasks) tasks = cJSON_AddObjectToObject(book, "tasks");
  cJSON_DeleteItemFromObjectCaseSensitive(tasks, task);
  cJSON *e = cJSON_AddObjectToObject(tasks, task);
  cJSON_AddNumberToObject(e, "n", (double)s.n);
  cJSON_AddNumberToObject(e, "mean", s.mean);
  cJSON_AddNumberToObject(e, "m2", s.m2);
  cJSON_AddNumberToObject(e, "best_speedup", best);
  char *text = cJSON_Print(book);
  if (!text) { cl1_err_set(err, "out of memory"); goto out; }
  size_t len = strlen(text);
  /* in place under the lock: rewriting from offset 0 and truncating keeps readers that wait on
     the lock from ever seeing a mix of two versions */
  if (ftruncate(fd, 0) || pwrite(fd, text, len, 0) != (ssize_t)len || fsync(fd))
    cl1_err_set(err, "%s: cannot write: %s", path, strerror(errno));
  else
    rc = 0;
  free(text);
out:
  cJSON_Delete(book);
  close(fd);
  return rc;
}
