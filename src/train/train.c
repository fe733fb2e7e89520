/* train.c — one `cudal1 train` run from start to end: the output folder (locked, so two runs
 * never share one), the run in the store (new, or the one OUT/run.json names for --resume), the
 * stage-1 data from the store's passing solutions, the child service, the engine with its log
 * streamed and its events recorded, and the outcome: the run's status and the exit status the
 * contract's engine codes map to. */
#include "train.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../base/file.h"
#include "../data/dataset.h"
#include "../store/store.h"

#define PIP_LINE "pip install -e python[train] (or: python3 -m pip install trl==1.16.0 " \
                 "transformers peft tokenizers datasets pyarrow accelerate)"
#define SERVE_START_S 300.0 /* a CUDA service preloads its op libraries before it announces */
#define SERVE_DRAIN_S 120.0 /* the rewards still in flight when the engine stopped */
#define MAX_LINE (1 << 20)

typedef struct {
  const cl1_train_opts *o;
  cl1_train_paths p;
  cl1_store *store;
  char db_abs[PATH_MAX];
  int64_t run_id;
  bool resumed;    /* the run OUT/run.json names goes on */
  bool from_state; /* ... from the engine's OUT/state.json: "resume": true */
  int lock_fd, log_fd;
  char *line; /* the engine's stdout line being read */
  size_t line_n;
  char last_error[1024]; /* the engine's last error event */
  char tail[4096];       /* the end of the engine's stderr */
  int n_events, n_bad;
} run_ctx;

static void say(run_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(run_ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("cudal1 train: ", c->o->err_stream);
  vfprintf(c->o->err_stream, fmt, ap);
  fputc('\n', c->o->err_stream);
  fflush(c->o->err_stream);
  va_end(ap);
}

static void log_write(run_ctx *c, const char *s, size_t n) {
  if (c->log_fd >= 0 && write(c->log_fd, s, n) < 0) { /* the log is best effort */ }
}

/* ---- the output folder ---- */

/* dir/name into dst; -1 when it does not fit. */
static int join(char *dst, size_t n, const char *dir, const char *name) {
  int k = snprintf(dst, n, "%s/%s", dir, name);
  return k < 0 || (size_t)k >= n ? -1 : 0;
}

static int setup_paths(run_ctx *c, cl1_err *err) {
  cl1_train_paths *p = &c->p;
  if (c->o->model && cl1_train_check_model(c->o->model, p->model, sizeof p->model, err)) return 2;
  if (cl1_train_find_repo(p->repo, sizeof p->repo, err)) return 2;
  if (cl1_file_mkdirs(c->o->out, err)) return cl1_err_wrap(err, "--out"), 2;
  if (!realpath(c->o->out, p->out)) return cl1_err_set(err, "--out %s: %s", c->o->out, strerror(errno)), 2;
  if (!join(p->data_dir, sizeof p->data_dir, p->out, "data") && cl1_file_mkdirs(p->data_dir, err))
    return 2;
  if (join(p->data_dir, sizeof p->data_dir, p->out, "data") ||
      join(p->sft_data, sizeof p->sft_data, p->data_dir, "sft.jsonl") ||
      join(p->config, sizeof p->config, p->out, "train-config.json") ||
      join(p->run_json, sizeof p->run_json, p->out, "run.json") ||
      join(p->log, sizeof p->log, p->out, "train.log") ||
      join(p->serve_log, sizeof p->serve_log, p->out, "serve.log") ||
      join(p->lock, sizeof p->lock, p->out, "train.lock"))
    return cl1_err_set(err, "--out %s: path too long", p->out), 2;
  c->lock_fd = open(p->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (c->lock_fd < 0) return cl1_err_set(err, "%s: %s", p->lock, strerror(errno)), 2;
  if (flock(c->lock_fd, LOCK_EX | LOCK_NB))
    return cl1_err_set(err, "%s is in use by another cudal1 train (%s is locked)", p->out,
                       p->lock), 2;
  return 0;
}

/* OUT/run.json against --resume: which run this is. */
static int find_run(run_ctx *c, cl1_err *err) {
  cl1_train_runfile rf;
  int r = cl1_train_runfile_read(c->p.run_json, &rf, err);
  if (r < 0) return 2;
  if (r == 0) {
    if (c->o->resume) say(c, "--resume: %s holds no run yet: starting one", c->p.out);
    return 0;
  }
  if (!c->o->resume)
    return cl1_err_set(err, "%s holds training run %lld already (%s): pass --resume to continue "
                            "it, or give another --out", c->p.out, (long long)rf.run_id,
                       c->p.run_json), 2;
  if (strcmp(rf.db, c->db_abs))
    return cl1_err_set(err, "--resume: run %lld of %s is in the store %s, not %s (give --db %s)",
                       (long long)rf.run_id, c->p.out, rf.db, c->db_abs, rf.db), 2;
  if (strcmp(rf.stage, c->o->stage) || strcmp(rf.engine, c->o->engine))
    return cl1_err_set(err, "--resume: run %lld was `cudal1 train %s --engine %s`: resume it "
                            "with the same stage and engine", (long long)rf.run_id, rf.stage,
                       rf.engine), 2;
  cl1_store_train_run row;
  if (cl1_store_train_run_get(c->store, rf.run_id, &row, err))
    return cl1_err_wrap(err, "--resume (%s)", c->p.run_json), 2;
  cl1_store_train_run_free(&row);
  c->run_id = rf.run_id;
  c->resumed = true;
  /* the engine resumes from its state.json; a run stopped before its first checkpoint has none
     and starts its stages over (the engine refuses "resume" without one) */
  char state[4300];
  snprintf(state, sizeof state, "%s/state.json", c->p.out);
  c->from_state = !access(state, F_OK);
  if (!c->from_state)
    say(c, "--resume: run %lld has no checkpoint yet (%s): its stages start over",
        (long long)c->run_id, state);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* OUT/data/sft.jsonl: the training tasks' passing solutions (`cudal1 dataset sft`'s rows). Stage
 * 1 cannot run without any; the later stages make their own data, so theirs may be empty. */
static int write_sft_data(run_ctx *c, cl1_err *err) {
  const cl1_train_opts *o = c->o;
  char *ids[CL1_TRAIN_MAX_TASKS];
  memcpy(ids, o->tasks, sizeof *ids * (size_t)o->n_tasks);
  qsort(ids, (size_t)o->n_tasks, sizeof *ids, cmp_str);
  const char *dev = cl1_backend_name(o->eval.backend), *shapes = cl1_shapes_name(o->eval.shapes);
  int passing = 0;
  for (int i = 0; i < o->n_tasks; i++) {
    cl1_store_success *rows;
    int k;
    if (cl1_store_successes(c->store, ids[i], dev, shapes, &rows, &k, err)) return 3;
    cl1_store_successes_free(rows, k);
    passing += k;
  }
  bool needs = !strcmp(o->stage, "sft") || !strcmp(o->stage, "all");
  if (!passing && needs)
    return cl1_err_set(err, "no data for stage 1 (sft): the store %s holds no passing %s solution "
                            "at shapes %s of the %d training task%s; collect some first (cudal1 "
                            "collect --db %s --tasks ... --device %s --shapes %s; README, "
                            "\"Training\")", o->db, dev, shapes, o->n_tasks,
                       o->n_tasks == 1 ? "" : "s", o->db, dev, shapes), 2;
  char *train = NULL;
  cl1_dataset_sft_stats st = {0};
  cl1_dataset_sft_opts so = {.store = c->store, .tasks = ids, .n_tasks = o->n_tasks,
                             .device = dev, .shapes = shapes, .format = CL1_DATASET_MESSAGES,
                             .exemplars = o->sft_exemplars,
                             .exemplar_rows = o->sft_exemplar_rows, .seed = (uint64_t)o->seed + 1};
  if (passing && cl1_dataset_sft(&so, &train, NULL, &st, err)) return 3;
  int rc = cl1_file_write_atomic(c->p.sft_data, train ? train : "", err) ? 3 : 0;
  free(train);
  if (!rc && passing) say(c, "%s: %d rows, %d tasks (the store's passing solutions)", c->p.sft_data,
                          st.train_rows, st.train_tasks);
  else if (!rc) say(c, "%s: empty (no passing solution in the store yet; stages 2 and 3 make "
                       "their own data)", c->p.sft_data);
  return rc;
}

/* The run's row (new, or the resumed one now running again), OUT/run.json and the config. */
static int record_run(run_ctx *c, cl1_err *err) {
  const cl1_train_opts *o = c->o;
  char *config = cl1_train_config_json(o, &c->p, c->run_id, c->from_state);
  if (!config) return cl1_err_set(err, "out of memory"), 3;
  int rc = 0;
  if (!c->resumed) {
    rc = cl1_store_train_run_create(c->store, o->stage, o->engine, *c->p.model ? c->p.model : NULL,
                                    c->p.out, config, &c->run_id, err);
    free(config);
    config = rc ? NULL : cl1_train_config_json(o, &c->p, c->run_id, false);
    if (!rc && !config) rc = cl1_err_set(err, "out of memory");
  }
  if (!rc) rc = cl1_store_train_run_update(c->store, c->run_id, "running", config, err);
  if (!rc && !c->resumed) {
    cl1_train_runfile rf = {.run_id = c->run_id};
    snprintf(rf.db, sizeof rf.db, "%s", c->db_abs);
    snprintf(rf.stage, sizeof rf.stage, "%s", o->stage);
    snprintf(rf.engine, sizeof rf.engine, "%s", o->engine);
    rc = cl1_train_runfile_write(c->p.run_json, &rf, err);
  }
  if (!rc) rc = cl1_file_write_atomic(c->p.config, config, err);
  free(config);
  return rc ? 3 : 0;
}

/* ---- the engine's output ---- */

static void on_event(run_ctx *c, const char *line) {
  cl1_train_event ev;
  cl1_err e = {{0}};
  if (cl1_train_event_parse(line, &ev, &e)) {
    c->n_bad++;
    say(c, "the engine printed a malformed event (%s), not recorded: %.200s", e.msg, line);
    return;
  }
  char *text = cl1_train_event_text(&ev);
  if (!text || cl1_store_train_event_add(c->store, c->run_id, ev.event, *ev.stage ? ev.stage : NULL,
                                         ev.round, ev.step, text, &e))
    say(c, "warning: event not recorded in the store (%s); it is in %s",
        text ? e.msg : "out of memory", c->p.log);
  else c->n_events++;
  free(text);
  char sum[1400];
  cl1_train_event_summary(&ev, sum, sizeof sum);
  fprintf(c->o->out_stream, "cudal1 train %s\n", sum);
  fflush(c->o->out_stream);
  cl1_train_event_error(&ev, c->last_error, sizeof c->last_error);
  cl1_train_event_free(&ev);
}

/* One whole line of the engine's stdout (its newline dropped): an event, or shown as it is. */
static void on_line(run_ctx *c, char *line, size_t n) {
  log_write(c, line, n);
  log_write(c, "\n", 1);
  if (n && line[n - 1] == '\r') line[--n] = 0;
  if (cl1_train_is_event(line)) return on_event(c, line);
  fwrite(line, 1, n, c->o->out_stream);
  fputc('\n', c->o->out_stream);
  fflush(c->o->out_stream);
}

static void on_stdout(run_ctx *c, const char *buf, size_t k) {
  for (size_t i = 0; i < k; i++) {
    if (buf[i] == '\n' || c->line_n + 1 >= MAX_LINE) {
      c->line[c->line_n] = 0;
      on_line(c, c->line, c->line_n);
      c->line_n = 0;
      if (buf[i] == '\n') continue;
    }
    c->line[c->line_n++] = buf[i];
  }
}

/* The engine's stderr as it comes (progress bars redraw with \r), and its end kept. */
static void on_stderr(run_ctx *c, const char *buf, size_t k) {
  fwrite(buf, 1, k, c->o->err_stream);
  fflush(c->o->err_stream);
  log_write(c, buf, k);
  size_t keep = sizeof c->tail - 1, have = strlen(c->tail);
  if (k >= keep) {
    memcpy(c->tail, buf + k - keep, keep);
    c->tail[keep] = 0;
    return;
  }
  if (have + k > keep) {
    memmove(c->tail, c->tail + (have + k - keep), keep - k);
    have = keep - k;
  }
  memcpy(c->tail + have, buf, k);
  c->tail[have + k] = 0;
  for (size_t i = 0; i < have + k; i++) if (!c->tail[i]) c->tail[i] = ' ';
}

/* Reads one fd's available bytes into its handler; false at its end. */
static bool pump(run_ctx *c, int *fd, bool is_out) {
  char buf[8192];
  ssize_t k = read(*fd, buf, sizeof buf);
  if (k < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (k <= 0) {
    close(*fd);
    *fd = -1;
    return false;
  }
  if (is_out) on_stdout(c, buf, (size_t)k);
  else on_stderr(c, buf, (size_t)k);
  return true;
}

typedef struct {
  int engine_status, serve_status;
  bool ran;        /* the engine was started (engine_status is its wait status) */
  bool serve_died, stopped;
} outcome;

/* Forwards a new SIGINT/SIGTERM to the engine's group (a second one kills it). */
static void forward_signals(run_ctx *c, const cl1_train_engine *e, int *forwarded, outcome *r) {
  int sig, n = cl1_train_signal(&sig);
  if (n <= *forwarded) return;
  r->stopped = true;
  if (*forwarded == 0) {
    say(c, "%s: stopping the engine (again to kill it)", sig == SIGINT ? "SIGINT" : "SIGTERM");
    cl1_train_engine_signal(e, sig);
  } else {
    say(c, "killing the engine");
    cl1_train_engine_signal(e, SIGKILL);
  }
  *forwarded = n;
}

/* Until the engine has exited and its output is read (what its leftovers hold open is given
 * up on 3 s after its exit). */
static void stream(run_ctx *c, cl1_train_serve *s, cl1_train_engine *e, outcome *r) {
  int forwarded = 0;
  bool done = false;
  double drain_until = 0;
  r->ran = true;
  while (!done || ((e->out_fd >= 0 || e->err_fd >= 0) && cl1_now() < drain_until)) {
    if (!done) forward_signals(c, e, &forwarded, r);
    cl1_train_serve_pump(s);
    if (!r->serve_died && cl1_train_serve_exited(s, &r->serve_status)) {
      r->serve_died = true;
      say(c, "the reward service died (%s %d; its log: %s); the engine stops at its next reward",
          WIFSIGNALED(r->serve_status) ? "signal" : "exit status",
          WIFSIGNALED(r->serve_status) ? WTERMSIG(r->serve_status) : WEXITSTATUS(r->serve_status),
          c->p.serve_log);
    }
    if (!done && waitpid(e->pid, &r->engine_status, WNOHANG) == e->pid) {
      done = true;
      drain_until = cl1_now() + 3;
      cl1_train_engine_signal(e, SIGTERM); /* whatever it left running in its group */
      e->pid = -1;
    }
    struct pollfd pf[2];
    int n = 0;
    if (e->out_fd >= 0) pf[n++] = (struct pollfd){.fd = e->out_fd, .events = POLLIN};
    if (e->err_fd >= 0) pf[n++] = (struct pollfd){.fd = e->err_fd, .events = POLLIN};
    if (poll(pf, (nfds_t)n, 200) <= 0) continue;
    for (int i = 0; i < n; i++)
      if (pf[i].revents) pump(c, pf[i].fd == e->out_fd ? &e->out_fd : &e->err_fd, pf[i].fd == e->out_fd);
  }
  if (c->line_n) on_line(c, c->line, c->line_n), c->line_n = 0;
  if (e->out_fd >= 0) close(e->out_fd);
  if (e->err_fd >= 0) close(e->err_fd);
  e->out_fd = e->err_fd = -1;
}

/* ---- the outcome ---- */

static const char *engine_msg(run_ctx *c) {
  if (*c->last_error) return c->last_error;
  static char buf[4400];
  snprintf(buf, sizeof buf, "it gave no error event; see %s", c->p.log);
  return buf;
}

/* The exit status for an engine that did not finish, and err saying why. */
static int failure(run_ctx *c, const outcome *r, cl1_err *err) {
  int st = r->engine_status;
  if (r->serve_died)
    return cl1_err_set(err, "the reward service died (its log: %s); training stopped with the "
                            "store intact (the engine: %s)", c->p.serve_log, engine_msg(c)), 3;
  if (WIFSIGNALED(st))
    return cl1_err_set(err, "the engine was killed by signal %d%s (log: %s)", WTERMSIG(st),
                       WTERMSIG(st) == SIGKILL ? " (out of memory? lower --batch-size, "
                                                 "--max-completion-len or --generations)" : "",
                       c->p.log), 3;
  int code = WEXITSTATUS(st);
  bool no_module = strstr(c->tail, "No module named") != NULL;
  switch (code) {
  case 2: return cl1_err_set(err, "the engine stopped on its input: %s", engine_msg(c)), 2;
  case 3: return cl1_err_set(err, "the engine stopped on an infrastructure error: %s", engine_msg(c)), 3;
  case 4:
    return cl1_err_set(err, "the engine ran out of memory: %s", *c->last_error ? c->last_error :
                       "lower --batch-size, --max-completion-len or --generations"), 3;
  case 5:
    return cl1_err_set(err, "a Python dependency of the engine is missing: %s%s%s", engine_msg(c),
                       strstr(c->last_error, "pip") ? "" : "; install it: ",
                       strstr(c->last_error, "pip") ? "" : PIP_LINE), 2;
  case 127:
    return cl1_err_set(err, "cannot run the engine (see above; --python PY names the "
                            "interpreter)"), 2;
  }
  if (no_module && !*c->last_error)
    return cl1_err_set(err, "the training engine cannot be imported (%s says \"No module "
                            "named\"; see above): %s", c->o->python, PIP_LINE), 2;
  return cl1_err_set(err, "the engine failed (exit status %d): %s", code, engine_msg(c)), 3;
}

static int finish(run_ctx *c, const outcome *r, cl1_err *err) {
  const char *status = "done";
  int rc = 0;
  bool finished = r->ran && WIFEXITED(r->engine_status) && !WEXITSTATUS(r->engine_status);
  if (r->stopped && !finished) status = "stopped", rc = 130; /* a signal it finished despite: done */
  else if (!finished) status = "failed", rc = failure(c, r, err);
  cl1_err e = {{0}};
  if (cl1_store_train_run_update(c->store, c->run_id, status, NULL, &e)) {
    say(c, "warning: %s", e.msg);
    if (!rc) rc = 3, *err = e;
  }
  if (r->serve_died && !rc) say(c, "warning: the reward service died during the run (log: %s)",
                                c->p.serve_log);
  say(c, "run %lld %s: %d events recorded%s%s; log %s", (long long)c->run_id, status, c->n_events,
      c->n_bad ? ", some malformed (see above)" : "", rc == 130 ? " (continue with --resume)" : "",
      c->p.log);
  if (rc == 130) cl1_err_set(err, "stopped");
  return rc;
}

/* The run's status after a failure of ours (the outcome's message stays in err). */
static void set_status(run_ctx *c, const char *status) {
  cl1_err e = {{0}};
  if (cl1_store_train_run_update(c->store, c->run_id, status, NULL, &e)) say(c, "warning: %s", e.msg);
}

/* The service, the engine and its output, then the outcome. */
static int train_with_service(run_ctx *c, cl1_err *err) {
  cl1_train_serve s;
  int rc = cl1_train_serve_start(c->o, c->p.serve_log, SERVE_START_S, &s, err);
  if (rc) {
    set_status(c, rc == 130 ? "stopped" : "failed");
    return rc;
  }
  say(c, "reward service on %s (%s, %s shapes; log %s)", s.url, cl1_backend_name(c->o->eval.backend),
      cl1_shapes_name(c->o->eval.shapes), c->p.serve_log);
  cl1_train_engine e;
  outcome r = {0};
  if (cl1_train_signal(NULL)) r.stopped = true;
  else if (cl1_train_engine_start(c->o, &c->p, &s, &e, err)) rc = 3;
  else stream(c, &s, &e, &r);
  /* a service that died in the last moment, the engine exiting on it at once */
  if (!rc && !r.serve_died && cl1_train_serve_exited(&s, &r.serve_status)) r.serve_died = true;
  cl1_train_serve_stop(&s, SERVE_DRAIN_S);
  if (rc) {
    set_status(c, "failed");
    return rc;
  }
  return finish(c, &r, err);
}

static void log_header(run_ctx *c) {
  c->log_fd = open(c->p.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  time_t t = time(NULL);
  char when[64], head[512];
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
  int k = snprintf(head, sizeof head, "==== cudal1 train %s: run %lld %s at %s ====\n",
                   c->o->stage, (long long)c->run_id, c->resumed ? "resumed" : "started", when);
  log_write(c, head, (size_t)k);
}

/* Everything up to the engine: 0 to go on, else the exit status. */
static int prepare(run_ctx *c, cl1_err *err) {
  int rc = setup_paths(c, err);
  if (rc) return rc;
  if (cl1_store_open(c->o->db, &c->store, err)) return 2;
  if (!realpath(c->o->db, c->db_abs)) return cl1_err_set(err, "--db %s: %s", c->o->db, strerror(errno)), 2;
  if ((rc = find_run(c, err)) || (rc = write_sft_data(c, err)) || (rc = record_run(c, err)))
    return rc;
  log_header(c);
  say(c, "run %lld %s (%s, engine %s, model %s, %d task%s, store %s, torch on %s)",
      (long long)c->run_id, c->resumed ? "resumed" : "started", c->o->stage, c->o->engine,
      *c->p.model ? c->p.model : "embedded", c->o->n_tasks, c->o->n_tasks == 1 ? "" : "s",
      c->o->db, c->o->torch_device);
  return 0;
}

int cl1_train_run(const cl1_train_opts *o, cl1_err *err) {
  run_ctx c = {.o = o, .lock_fd = -1, .log_fd = -1};
  if (!(c.line = malloc(MAX_LINE))) return cl1_err_set(err, "out of memory"), 3;
  cl1_train_signals_install();
  int rc = prepare(&c, err);
  if (!rc && cl1_train_signal(NULL)) {
    set_status(&c, "stopped");
    rc = 130;
    cl1_err_set(err, "stopped");
  }
  if (!rc) rc = train_with_service(&c, err);
  cl1_train_signals_restore();
  cl1_store_close(c.store);
  if (c.log_fd >= 0) close(c.log_fd);
  if (c.lock_fd >= 0) close(c.lock_fd);
  free(c.line);
  return rc;
}
