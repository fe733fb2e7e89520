/* test_gpu_lock.c — one GPU shared by several evaluations (src/eval/gpu_lock.h): the lock's rules
 * (verifications together, timing alone, a waiting timing first) and the judge under it: several
 * evaluations at once through one lock reach their verdicts, each timed exactly once under it, and
 * the candidate's worker is stopped between the phases its evaluation holds the GPU for. Runs on
 * the host backend, where the judge takes the lock the same way (no GPU is needed to test it). */
#include <pthread.h>
#include "harness.h"
#include "eval/eval.h"
#include "eval/gpu_lock.h"
#include "eval/judge_proc.h"
#include "task/task.h"
#include "worker/proto.h"

/* ---- the lock's rules --------------------------------------------------------------------- */

typedef struct {
  cl1_gpu_lock *g;
  cl1_gpu_mode mode;
  int *seq, got;         /* the order in which holders got the lock */
  pthread_mutex_t *mu;
} taker;

static void *take_and_note(void *arg) {
  taker *t = arg;
  cl1_gpu_lock_take(t->g, t->mode);
  pthread_mutex_lock(t->mu);
  t->got = ++*t->seq;
  pthread_mutex_unlock(t->mu);
  cl1_gpu_lock_give(t->g, t->mode);
  return NULL;
}

static int waiting_writers(cl1_gpu_lock *g) {
  pthread_mutex_lock(&g->mu);
  int n = g->writers_waiting;
  pthread_mutex_unlock(&g->mu);
  return n;
}

static void test_verifications_share_and_timing_waits_for_them(void **state) {
  (void)state;
  cl1_gpu_lock g;
  cl1_gpu_lock_init(&g, 0, NULL);
  cl1_gpu_lock_take(&g, CL1_GPU_SHARED);
  cl1_gpu_lock_take(&g, CL1_GPU_SHARED); /* a second verification beside the first */
  assert_int_equal(g.readers, 2);
  int seq = 0;
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  taker w = {&g, CL1_GPU_EXCLUSIVE, &seq, 0, &mu};
  pthread_t tw;
  assert_int_equal(pthread_create(&tw, NULL, take_and_note, &w), 0);
  while (waiting_writers(&g) == 0) usleep(1000);
  /* a verification that arrives while a timing waits comes after it */
  taker r = {&g, CL1_GPU_SHARED, &seq, 0, &mu};
  pthread_t tr;
  assert_int_equal(pthread_create(&tr, NULL, take_and_note, &r), 0);
  cl1_gpu_lock_give(&g, CL1_GPU_SHARED);
  pthread_mutex_lock(&mu);
  assert_int_equal(w.got, 0); /* one verification still holds it */
  pthread_mutex_unlock(&mu);
  cl1_gpu_lock_give(&g, CL1_GPU_SHARED);
  pthread_join(tw, NULL);
  pthread_join(tr, NULL);
  assert_int_equal(w.got, 1);
  assert_int_equal(r.got, 2);
  double held, timed;
  long timings;
  cl1_gpu_lock_usage(&g, &held, &timed, &timings);
  assert_int_equal(timings, 1);
  assert_true(held >= timed && timed >= 0);
  cl1_gpu_lock_destroy(&g);
}

/* ---- the judge under the lock ------------------------------------------------------------- */

typedef struct {
  cl1_eval_opts o;
  cl1_eval_result r;
  int rc;
} eval_job;

static void *run_eval(void *arg) {
  eval_job *j = arg;
  cl1_err err = {{0}};
  j->rc = cl1_eval_run(&j->o, &j->r, &err);
  if (j->rc) fprintf(stderr, "eval: %s\n", err.msg);
  return NULL;
}

static void job_init(eval_job *j, cl1_gpu_lock *g, const char *solution) {
  memset(j, 0, sizeof *j);
  cl1_eval_opts_default(&j->o);
  j->o.backend = CL1_BACKEND_HOST;
  j->o.shapes = CL1_SHAPES_TEST;
  j->o.task = "suite/level1/19_ReLU";
  j->o.solution = solution;
  j->o.min_trials = 5;
  j->o.max_trials = 20;
  j->o.time_budget_s = 0.2;
  j->o.remeasure = 0; /* one timing per passing evaluation, whatever a loaded machine measures */
  j->o.gpu = g;
}

/* A verification between two checks lets a waiting timing go first: it gives the GPU back and
 * takes it again after the timing (cl1_judge_gpu_yield), so a timing waits for one check, not for
 * a whole verification. */
static void test_a_waiting_timing_is_seen_between_checks(void **state) {
  (void)state;
  cl1_gpu_lock g;
  cl1_gpu_lock_init(&g, 0, NULL);
  cl1_gpu_lock_take(&g, CL1_GPU_SHARED);
  assert_false(cl1_gpu_lock_timing_waits(&g));
  int seq = 0;
  pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  taker w = {&g, CL1_GPU_EXCLUSIVE, &seq, 0, &mu};
  pthread_t tw;
  assert_int_equal(pthread_create(&tw, NULL, take_and_note, &w), 0);
  while (!cl1_gpu_lock_timing_waits(&g)) usleep(1000);
  /* the yield: give, take again — the timing gets it in between */
  cl1_gpu_lock_give(&g, CL1_GPU_SHARED);
  cl1_gpu_lock_take(&g, CL1_GPU_SHARED);
  pthread_mutex_lock(&mu);
  assert_int_equal(w.got, 1);
  pthread_mutex_unlock(&mu);
  assert_false(cl1_gpu_lock_timing_waits(&g));
  cl1_gpu_lock_give(&g, CL1_GPU_SHARED);
  pthread_join(tw, NULL);
  cl1_gpu_lock_destroy(&g);
}

static void test_evaluations_at_once_each_time_once_under_the_lock(void **state) {
  (void)state;
  char wrong[300];
  snprintf(wrong, sizeof wrong, "%s/wrong.c", th_tmpdir());
  th_write(wrong, "#include <cudal1/solution.h>\n"
                  "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
                  "  float *y = (float *)c->outputs[0].data;\n"
                  "  y[0] = 12345.f;\n"
                  "  return 0;\n"
                  "}\n");
  cl1_gpu_lock g;
  cl1_gpu_lock_init(&g, 0, NULL);
  enum { N = 4 };
  eval_job jobs[N];
  pthread_t th[N];
  for (int i = 0; i < N; i++) {
    job_init(&jobs[i], &g, i == N - 1 ? wrong : "tests/legit/host/19_ReLU.c");
    assert_int_equal(pthread_create(&th[i], NULL, run_eval, &jobs[i]), 0);
  }
  for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < N - 1; i++) {
    assert_int_equal(jobs[i].rc, 0);
    assert_string_equal(jobs[i].r.verdict, "pass");
    assert_true(jobs[i].r.t_gpu_wait >= 0);
  }
  assert_int_equal(jobs[N - 1].rc, 0);
  assert_string_equal(jobs[N - 1].r.verdict, "incorrect");
  double held, timed;
  long timings;
  cl1_gpu_lock_usage(&g, &held, &timed, &timings);
  /* the passing ones timed once each; the wrong one never */
  assert_int_equal(timings, N - 1);
  assert_int_equal(g.readers, 0);
  assert_false(g.writer);
  cl1_gpu_lock_destroy(&g);
}

/* ---- a paused worker ---------------------------------------------------------------------- */

static char proc_state(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return '?';
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  return p && p[1] == ' ' ? p[2] : '?';
}

/* Paused, the worker's process is stopped; a request resumes it and is answered. */
static void test_a_paused_worker_is_stopped_and_a_request_resumes_it(void **state) {
  (void)state;
  char exe[4096];
  cl1_err err = {{0}};
  assert_int_equal(cl1_worker_exe(exe, sizeof exe, &err), 0);
  cl1_wproc w;
  assert_int_equal(cl1_wproc_spawn(&w, exe, 4096, "cand", "7", &err), 0);
  cl1_wproc_pause(&w);
  assert_true(w.paused);
  char st = '?';
  for (int i = 0; i < 500 && (st = proc_state(w.pid)) != 'T'; i++) usleep(2000);
  assert_int_equal(st, 'T');
  cJSON *reply = NULL;
  /* PING before a setup fails in words ("no device open"): an answer, so the worker ran */
  assert_int_equal(cl1_wproc_call(&w, CL1_MSG_PING, NULL, 30, &reply), CL1_W_FAILED);
  assert_false(w.paused);
  assert_non_null(strstr(w.msg, "no device open"));
  cl1_wproc_pause(&w);
  cl1_wproc_kill(&w); /* a stopped worker is killed and reaped all the same */
  assert_int_equal(w.pid, -1);
}

/* A released worker is asked to quit (or killed) and reaped by itself: its pid leaves /proc
 * (no zombie left behind) without the judge waiting for it. */
static void test_released_workers_are_reaped(void **state) {
  (void)state;
  char exe[4096];
  cl1_err err = {{0}};
  assert_int_equal(cl1_worker_exe(exe, sizeof exe, &err), 0);
  for (int kill_it = 0; kill_it < 2; kill_it++) {
    cl1_wproc w;
    assert_int_equal(cl1_wproc_spawn(&w, exe, 4096, "ref", NULL, &err), 0);
    pid_t pid = w.pid;  /* idle, nothing failed: released by QUIT (kill_it 0) or SIGKILL (1) */
    cl1_wproc_release(&w, kill_it);
    assert_int_equal(w.pid, -1);
    assert_int_equal(w.to_fd, -1);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    int gone = 0;
    for (int i = 0; i < 3000 && !gone; i++) gone = access(path, F_OK) != 0 || (usleep(10000), 0);
    assert_true(gone);
  }
}

/* The worker of a GPU sees that GPU alone: CUDA_VISIBLE_DEVICES as the spawn says. */
static void test_the_worker_runs_under_the_gpu_it_was_given(void **state) {
  (void)state;
  char exe[4096];
  cl1_err err = {{0}};
  assert_int_equal(cl1_worker_exe(exe, sizeof exe, &err), 0);
  cl1_wproc w;
  assert_int_equal(cl1_wproc_spawn(&w, exe, 4096, "cand", "3", &err), 0);
  char path[64], env[65536];
  snprintf(path, sizeof path, "/proc/%d/environ", (int)w.pid);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(env, 1, sizeof env - 1, f);
  fclose(f);
  env[n] = 0;
  bool seen = false;
  for (size_t i = 0; i < n; i += strlen(env + i) + 1)
    if (!strcmp(env + i, "CUDA_VISIBLE_DEVICES=3")) seen = true;
  assert_true(seen);
  cl1_wproc_close(&w);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_verifications_share_and_timing_waits_for_them),
      cmocka_unit_test(test_a_waiting_timing_is_seen_between_checks),
      cmocka_unit_test(test_evaluations_at_once_each_time_once_under_the_lock),
      cmocka_unit_test(test_a_paused_worker_is_stopped_and_a_request_resumes_it),
      cmocka_unit_test(test_the_worker_runs_under_the_gpu_it_was_given),
      cmocka_unit_test(test_released_workers_are_reaped),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
