/* test_spare.c — the spare workers of a long-lived judge (src/eval/spare.c) with the real worker
 * program on the host backend: a kind is filled after its first take, a spare taken is a
 * working worker, dead spares are never handed out, a program that cannot start is counted and
 * not retried in a loop, a take waits (when asked) for the spare being started but not for a
 * start that fails, and closing leaves no process behind. */
#include <dirent.h>
#include <signal.h>
#include "harness.h"
#include "base/err.h"
#include "eval/judge_proc.h"
#include "eval/spare.h"
#include "worker/proto.h"

/* This process's children running the worker program, their pids into out (at most n). */
static int worker_children(pid_t *out, int n) {
  DIR *d = opendir("/proc");
  int k = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char path[300], line[256];
    snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    bool worker = false, mine = false;
    while (fgets(line, sizeof line, f)) {
      if (!strncmp(line, "Name:", 5)) worker = strstr(line, "cudal1-worker") != NULL;
      if (!strncmp(line, "PPid:", 5)) mine = atoi(line + 5) == (int)getpid();
    }
    fclose(f);
    if (worker && mine && k < n) out[k++] = atoi(e->d_name);
  }
  if (d) closedir(d);
  return k;
}

/* Waits (up to 30 s) until `started` reaches at least n. */
static long wait_started(long n) {
  long used, started = 0, failed;
  for (int i = 0; i < 3000; i++) {
    cl1_spare_counts(&used, &started, &failed);
    if (started >= n) break;
    usleep(10000);
  }
  return started;
}

static cl1_spare_kind host_kind(char *exe, size_t n) {
  cl1_err err = {{0}};
  if (cl1_worker_exe(exe, n, &err)) fail_msg("%s", err.msg);
  return (cl1_spare_kind){.exe = exe, .gpu = NULL, .backend = "host", .preload = NULL};
}

/* A spare taken is a working worker: sized by the evaluation that took it, it answers (its
 * device open); then let go. */
static void assert_serves(cl1_wproc *w) {
  assert_true(w->pid > 0);
  assert_null(w->shm);
  cl1_err err = {{0}};
  assert_int_equal(cl1_wproc_size(w, 4096, &err), 0);
  cJSON *reply = NULL;
  assert_int_equal(cl1_wproc_call(w, CL1_MSG_PING, NULL, 30, &reply), CL1_W_OK);
  cJSON_Delete(reply);
  cl1_wproc_close(w);
}

/* One spare at most and takes that wait up to 60 s for it; the counts before, into *0. */
static void waiting_takes(long *used0, long *started0, long *failed0) {
  cl1_spare_set_max(1);
  cl1_spare_set_wait(60);
  cl1_spare_counts(used0, started0, failed0);
}

static void test_a_kind_is_filled_after_its_first_take_and_a_spare_serves(void **st) {
  (void)st;
  char exe[4096];
  cl1_spare_kind k = host_kind(exe, sizeof exe);
  cl1_spare_set_max(2);
  cl1_wproc w;
  assert_false(cl1_spare_take(&k, &w, NULL));  /* none yet: the caller spawns its own */
  assert_true(wait_started(2) >= 2);
  assert_true(cl1_spare_take(&k, &w, NULL));
  assert_serves(&w);
  long used, started, failed;
  cl1_spare_counts(&used, &started, &failed);
  assert_int_equal(used, 1);
  assert_int_equal(failed, 0);
  cl1_spare_close();
  pid_t pids[16];
  assert_int_equal(worker_children(pids, 16), 0);
}

static void test_a_kind_wanted_is_filled_before_any_take(void **st) {
  (void)st;
  char exe[4096];
  cl1_spare_kind k = host_kind(exe, sizeof exe);
  long used0, started0, failed0, used, started, failed;
  cl1_spare_counts(&used0, &started0, &failed0);  /* the counts run over the whole process */
  cl1_spare_set_max(0);
  cl1_spare_want(&k);  /* spares off: nothing starts */
  usleep(100000);
  cl1_spare_counts(&used, &started, &failed);
  assert_int_equal(started, started0);
  cl1_spare_set_max(2);
  cl1_spare_want(&k);
  assert_true(wait_started(started0 + 2) >= started0 + 2);
  cl1_wproc w;
  assert_true(cl1_spare_take(&k, &w, NULL));  /* the first take finds one */
  cl1_wproc_close(&w);
  cl1_spare_counts(&used, &started, &failed);
  assert_int_equal(used, used0 + 1);
  assert_int_equal(failed, failed0);
  cl1_spare_close();
  pid_t pids[16];
  assert_int_equal(worker_children(pids, 16), 0);
}

static void test_dead_spares_are_not_handed_out(void **st) {
  (void)st;
  char exe[4096];
  cl1_spare_kind k = host_kind(exe, sizeof exe);
  cl1_spare_set_max(2);
  cl1_wproc w;
  long used0, started0, failed0;
  cl1_spare_counts(&used0, &started0, &failed0);
  assert_false(cl1_spare_take(&k, &w, NULL));
  assert_true(wait_started(started0 + 2) >= started0 + 2);
  pid_t pids[16];
  int n = worker_children(pids, 16);
  assert_true(n >= 2);
  for (int i = 0; i < n; i++) kill(pids[i], SIGKILL);
  usleep(100000);
  /* every waiting spare is dead: none is handed out, and the kind is filled again */
  bool got = cl1_spare_take(&k, &w, NULL);
  if (got) {  /* only a spare the filler started after the kill */
    bool fresh = true;
    for (int i = 0; i < n; i++) fresh = fresh && w.pid != pids[i];
    assert_true(fresh);
    cl1_wproc_close(&w);
  }
  assert_true(wait_started(started0 + 3) >= started0 + 3);
  assert_true(cl1_spare_take(&k, &w, NULL));
  for (int i = 0; i < n; i++) assert_int_not_equal(w.pid, pids[i]);
  cl1_wproc_close(&w);
  cl1_spare_close();
  assert_int_equal(worker_children(pids, 16), 0);
}

static void test_a_program_that_cannot_start_is_counted_not_looped(void **st) {
  (void)st;
  cl1_spare_kind k = {.exe = "/nonexistent/cudal1-worker", .backend = "host"};
  cl1_spare_set_max(2);
  long used0, started0, failed0, used, started, failed = 0;
  cl1_spare_counts(&used0, &started0, &failed0);
  cl1_wproc w;
  assert_false(cl1_spare_take(&k, &w, NULL));
  for (int i = 0; i < 3000 && failed <= failed0; i++) {
    usleep(10000);
    cl1_spare_counts(&used, &started, &failed);
  }
  assert_true(failed > failed0);
  usleep(300000);
  cl1_spare_counts(&used, &started, &failed);
  /* the kind cools off after a failure (5 s) instead of failing as fast as it can */
  assert_true(failed - failed0 <= 4);
  assert_int_equal(started, started0);
  assert_false(cl1_spare_take(&k, &w, NULL));
  cl1_spare_close();
}

static void test_no_spares_when_turned_off(void **st) {
  (void)st;
  char exe[4096];
  cl1_spare_kind k = host_kind(exe, sizeof exe);
  cl1_spare_set_max(0);
  cl1_wproc w;
  assert_false(cl1_spare_take(&k, &w, NULL));
  usleep(200000);
  pid_t pids[4];
  assert_int_equal(worker_children(pids, 4), 0);
  cl1_spare_close();
}

/* The filler count: set before the fillers start (1 to 8), refused after, back to two on close. */
static void test_fillers_are_set_before_they_start(void **st) {
  (void)st;
  char exe[4096];
  cl1_spare_kind k = host_kind(exe, sizeof exe);
  assert_int_equal(cl1_spare_set_fillers(0), -1);
  assert_int_equal(cl1_spare_set_fillers(9), -1);
  assert_int_equal(cl1_spare_set_fillers(4), 0);
  cl1_spare_set_max(4);
  long used, started0, failed;
  cl1_spare_counts(&used, &started0, &failed);
  cl1_spare_want(&k);
  assert_int_equal(cl1_spare_fillers(), 4);
  assert_int_equal(cl1_spare_set_fillers(2), -1);  /* running: too late */
  assert_true(wait_started(started0 + 4) >= started0 + 4);
  cl1_spare_close();
  assert_int_equal(cl1_spare_fillers(), 0);
  cl1_spare_set_max(1);
  cl1_spare_want(&k);
  assert_int_equal(cl1_spare_fillers(), 2);  /* the default again */
  cl1_spare_close();
  pid_t pids[8];
  assert_int_equal(worker_children(pids, 8), 0);
}

/* With a wait set, a take that finds none ready waits for the one the fillers start (where
 * without one it returns false and its evaluation spawns: the first test). */
static void test_a_take_with_a_wait_gets_the_spare_being_started(void **st) {
  (void)st;
  char exe[4096];
  cl1_spare_kind k = host_kind(exe, sizeof exe);
  long used0, started0, failed0, used, started, failed;
  waiting_takes(&used0, &started0, &failed0);
  cl1_wproc w;
  double waited = -1;
  assert_true(cl1_spare_take(&k, &w, &waited));  /* the kind is new: nothing was ready */
  assert_true(waited > 0);
  assert_serves(&w);
  cl1_spare_counts(&used, &started, &failed);
  assert_int_equal(used, used0 + 1);
  assert_true(started >= started0 + 1);
  cl1_spare_close();  /* and the wait back to none */
  cl1_spare_set_max(1);
  assert_false(cl1_spare_take(&k, &w, NULL));
  cl1_spare_close();
  pid_t pids[8];
  assert_int_equal(worker_children(pids, 8), 0);
}

/* A wait ends when the fillers' start fails: the kind cools off and the evaluation spawns its
 * own (and reports the machine's failure) long before the wait's 60 s. */
static void test_a_take_does_not_wait_for_a_start_that_fails(void **st) {
  (void)st;
  cl1_spare_kind k = {.exe = "/nonexistent/cudal1-worker", .backend = "host"};
  long used0, started0, failed0, used, started, failed;
  waiting_takes(&used0, &started0, &failed0);
  cl1_wproc w;
  double waited = -1;
  assert_false(cl1_spare_take(&k, &w, &waited));
  assert_true(waited < 30);
  cl1_spare_counts(&used, &started, &failed);
  assert_true(failed > failed0);
  assert_false(cl1_spare_take(&k, &w, &waited));  /* cooling off: no wait at all */
  assert_true(waited < 30);
  cl1_spare_close();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_kind_is_filled_after_its_first_take_and_a_spare_serves),
      cmocka_unit_test(test_dead_spares_are_not_handed_out),
      cmocka_unit_test(test_a_program_that_cannot_start_is_counted_not_looped),
      cmocka_unit_test(test_no_spares_when_turned_off),
      cmocka_unit_test(test_a_kind_wanted_is_filled_before_any_take),
      cmocka_unit_test(test_fillers_are_set_before_they_start),
      cmocka_unit_test(test_a_take_with_a_wait_gets_the_spare_being_started),
      cmocka_unit_test(test_a_take_does_not_wait_for_a_start_that_fails)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
