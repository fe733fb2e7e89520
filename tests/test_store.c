/* test_store.c — the variant store (src/store/): schema creation and reopening; migration steps
 * applied one transaction each (a failing step leaves nothing behind); a newer schema, a file
 * that is not SQLite and a SQLite file that is not a store refused with a sentence naming the
 * file; runs and rounds (get-or-create for resume); solution dedup by content hash; best and
 * successes over several evaluations (failures never count, the latest passing evaluation of a
 * solution gives its speedup, run restriction); samples with pending ones re-listed; the
 * one-transaction record of an evaluated sample; four threads sharing one store; and a writer
 * killed with SIGKILL twenty times at random moments, after which the file is intact, nothing
 * committed is lost, no sample is half-recorded and at most the sample in flight is pending.
 * Every test gets a fresh store from store_fixture.h. */
#include "harness.h"
#include "store_fixture.h"
#include <pthread.h>
#include <math.h>
#include <sqlite3.h>
#include "store/store.h"
#include "store/store_int.h"

#define TASK TH_TASK

/* The one integer a query returns (-1 when it returns no row). */
static int64_t q_int(cl1_store *s, const char *sql) {
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(cl1_store_db(s), sql, -1, &st, NULL), SQLITE_OK);
  int rc = sqlite3_step(st);
  assert_true(rc == SQLITE_ROW || rc == SQLITE_DONE);
  int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return v;
}

/* The one text a query returns, into buf ("" for no row or NULL). */
static const char *q_text(cl1_store *s, const char *sql, char *buf, size_t n) {
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(cl1_store_db(s), sql, -1, &st, NULL), SQLITE_OK);
  int rc = sqlite3_step(st);
  assert_true(rc == SQLITE_ROW || rc == SQLITE_DONE);
  const unsigned char *t = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
  snprintf(buf, n, "%s", t ? (const char *)t : "");
  sqlite3_finalize(st);
  return buf;
}

static void raw_exec(const char *path, const char *sql) {
  sqlite3 *db;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

/* An evaluation with the fields the schema requires. */
static cl1_store_eval ev(const char *verdict, double speedup, const char *shapes) {
  cl1_store_eval e = {0};
  e.task_id = TASK;
  e.device = "NVIDIA H200";
  e.shapes = shapes;
  e.protocol_json = "{\"backend\":\"cuda\",\"trials\":30}";
  e.verdict = verdict;
  e.speedup = speedup;
  e.reward_speedup = e.reward = e.ref_ms = e.cand_ms = e.spread = e.wall_s = NAN;
  return e;
}

/* ---- schema, open refusals, migrations ------------------------------------------------------ */

static void test_schema_create_reopen(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  char buf[64];
  cl1_err err = {{0}};
  assert_string_equal(cl1_store_path(s), f->path);
  snprintf(buf + 32, 32, "%d", CL1_STORE_SCHEMA_VERSION);
  char want[32];
  snprintf(want, sizeof want, "%s", buf + 32);
  assert_string_equal(q_text(s, "SELECT value FROM meta WHERE key='schema_version'", buf, 32), want);
  assert_string_equal(q_text(s, "PRAGMA journal_mode", buf, 64), "wal");
  assert_int_equal(q_int(s, "PRAGMA foreign_keys"), 1);
  assert_int_equal(q_int(s, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name IN"
                            " ('meta','tasks','runs','solutions','evaluations','rounds',"
                            "  'samples','baselines')"),
                   8);
  assert_int_equal(q_int(s, "SELECT count(*) FROM sqlite_master WHERE type='index' AND name IN"
                            " ('evaluations_task_verdict','solutions_task','samples_run_task')"),
                   3);
  assert_int_equal(cl1_store_task_put(s, TASK, 1, "19_ReLU", false, &err), 0);
  /* upsert: the second put updates */
  assert_int_equal(cl1_store_task_put(s, TASK, 1, "19_ReLU", true, &err), 0);
  assert_int_equal(q_int(s, "SELECT degenerate FROM tasks WHERE id='" TASK "'"), 1);
  assert_int_equal(cl1_store_task_put(s, "", 1, "x", false, &err), -1);
  assert_non_null(strstr(err.msg, "no task id"));
  th_store_close(f);
  /* reopening changes nothing */
  for (int i = 0; i < 2; i++) {
    assert_int_equal(cl1_store_open(f->path, &f->s, &err), 0);
    assert_int_equal(q_int(f->s, "SELECT count(*) FROM tasks"), 1);
    assert_int_equal(q_int(f->s, "SELECT count(*) FROM meta"), 1);
    int v;
    assert_int_equal(cl1_store_version(f->s, &v, &err), 0);
    assert_int_equal(v, CL1_STORE_SCHEMA_VERSION);
    th_store_close(f);
  }
}

/* A store from a newer cudal1, or with a version that is not a number, is refused by name. */
static void test_open_refuses_newer_or_unreadable_schema_version(void **state) {
  th_store *f = *state;
  char msg[64];
  cl1_err err = {{0}};
  cl1_store *s = NULL;
  th_store_close(f);
  raw_exec(f->path, "UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  assert_int_equal(cl1_store_open(f->path, &s, &err), -1);
  assert_null(s);
  assert_non_null(strstr(err.msg, f->path));
  snprintf(msg, sizeof msg, "schema version 7");
  assert_non_null(strstr(err.msg, msg));
  snprintf(msg, sizeof msg, "up to %d", CL1_STORE_SCHEMA_VERSION);
  assert_non_null(strstr(err.msg, msg));
  raw_exec(f->path, "UPDATE meta SET value = 'x1' WHERE key = 'schema_version'");
  assert_int_equal(cl1_store_open(f->path, &s, &err), -1);
  assert_non_null(strstr(err.msg, "'x1'"));
}

/* A text file and a SQLite file of something else are refused, each naming the file. */
static void test_open_refuses_files_that_are_not_a_store(void **state) {
  th_store *f = *state;
  char other[300];
  cl1_err err = {{0}};
  cl1_store *s = NULL;
  snprintf(other, sizeof other, "%s/notes.txt", f->dir);
  assert_int_equal(th_write(other, "these are not the pages of a database, just some words that "
                                   "are long enough to fill a header and then some more\n"),
                   0);
  assert_int_equal(cl1_store_open(other, &s, &err), -1);
  assert_non_null(strstr(err.msg, other));
  assert_non_null(strstr(err.msg, "not a SQLite database"));
  snprintf(other, sizeof other, "%s/other.db", f->dir);
  raw_exec(other, "CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT)");
  assert_int_equal(cl1_store_open(other, &s, &err), -1);
  assert_non_null(strstr(err.msg, other));
  assert_non_null(strstr(err.msg, "not a cudal1 store"));
}

static void test_open_refuses_a_folder_that_does_not_exist(void **state) {
  th_store *f = *state;
  char other[300];
  cl1_err err = {{0}};
  cl1_store *s = NULL;
  snprintf(other, sizeof other, "%s/no/such/dir/x.db", f->dir);
  assert_int_equal(cl1_store_open(other, &s, &err), -1);
  assert_non_null(strstr(err.msg, other));
}

/* The runner applies later steps one transaction each; a failing step leaves no trace. */
static void test_migration_applies_later_steps_and_rolls_back_a_failing_one(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  th_store_seed_task(s, TASK, "19_ReLU");
  int v;
  /* the file is at V: the test's steps up to V must not run, step V+1 does */
  enum { V = CL1_STORE_SCHEMA_VERSION };
  cl1_store_step steps[V + 2];
  for (int i = 0; i < V; i++) steps[i] = (cl1_store_step){i + 1, "CREATE TABLE must_not_run(x)"};
  steps[V] = (cl1_store_step){V + 1, "CREATE TABLE extra(task_id TEXT, ms REAL); "
                                     "ALTER TABLE tasks ADD COLUMN note TEXT"};
  assert_int_equal(cl1_store_migrate(s, steps, V + 1, &err), 0);
  assert_int_equal(cl1_store_version(s, &v, &err), 0);
  assert_int_equal(v, V + 1);
  assert_int_equal(q_int(s, "SELECT count(*) FROM sqlite_master WHERE name='extra'"), 1);
  assert_int_equal(q_int(s, "SELECT count(*) FROM sqlite_master WHERE name='must_not_run'"), 0);
  assert_int_equal(q_int(s, "SELECT count(*) FROM tasks WHERE note IS NULL"), 1);
  /* step V+2's second statement fails: its first is rolled back and the version stays V+1 */
  steps[V + 1] = (cl1_store_step){V + 2, "CREATE TABLE half(x); CREATE TABLE extra(y)"};
  assert_int_equal(cl1_store_migrate(s, steps, V + 2, &err), -1);
  char msg[64];
  snprintf(msg, sizeof msg, "schema version %d", V + 2);
  assert_non_null(strstr(err.msg, msg));
  assert_non_null(strstr(err.msg, "extra"));
  assert_int_equal(cl1_store_version(s, &v, &err), 0);
  assert_int_equal(v, V + 1);
  assert_int_equal(q_int(s, "SELECT count(*) FROM sqlite_master WHERE name='half'"), 0);
  /* the store still works after the failed migration */
  assert_int_equal(cl1_store_task_put(s, "level1/1_x", 1, "1_x", false, &err), 0);
  th_store_close(f);
  /* this cudal1 knows only versions up to V */
  assert_int_equal(cl1_store_open(f->path, &f->s, &err), -1);
  snprintf(msg, sizeof msg, "schema version %d", V + 1);
  assert_non_null(strstr(err.msg, msg));
}

/* A batch of baseline rows is all or nothing: the second row's task is not in the store, so the
 * first row is not written either; a good batch writes every row. */
static void test_baselines_batch_is_all_or_nothing(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  th_store_seed_task(s, TASK, "19_ReLU");
  cl1_store_baseline rows[2] = {
      {.task_id = TASK, .shapes = "small", .name = "eager", .status = "ok", .median_ms = 0.5,
       .ref_ms = 0.4, .ci_rel = 0.01},
      {.task_id = "level1/1_nowhere", .shapes = "small", .name = "eager", .status = "ok",
       .median_ms = 0.5, .ref_ms = 0.4, .ci_rel = 0.01}};
  assert_int_equal(cl1_store_baselines_put(s, rows, 2, &err), -1);
  assert_non_null(strstr(err.msg, "put baseline"));
  assert_int_equal(q_int(s, "SELECT count(*) FROM baselines"), 0);
  rows[1].task_id = TASK;
  rows[1].name = "graph";
  rows[1].status = "capture_failed";
  assert_int_equal(cl1_store_baselines_put(s, rows, 2, &err), 0);
  assert_int_equal(q_int(s, "SELECT count(*) FROM baselines WHERE status='ok'"), 1);
  assert_int_equal(q_int(s, "SELECT count(*) FROM baselines WHERE status='capture_failed'"), 1);
}

/* ---- runs and rounds ------------------------------------------------------------------------ */

/* An empty store has no latest run; a new run is the latest and keeps what it was created with. */
static void test_run_create_keeps_fields_and_newest_is_latest(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  int64_t latest, r1, r2;
  assert_int_equal(cl1_store_run_latest(s, &latest, &err), 0);
  assert_int_equal(latest, 0);
  r1 = th_store_seed_task_run(s);
  assert_int_equal(cl1_store_run_create(s, "{}", "openai", "qwen", "host", "test", &r2, &err), 0);
  assert_true(r2 > r1);
  assert_int_equal(cl1_store_run_latest(s, &latest, &err), 0);
  assert_int_equal(latest, r2);
  cl1_store_run run;
  assert_int_equal(cl1_store_run_get(s, r1, &run, &err), 0);
  assert_string_equal(run.config, "{\"rounds\":2}");
  assert_string_equal(run.status, "running");
  assert_string_equal(run.policy, "replay");
  assert_null(run.model);
  assert_string_equal(run.device, "cuda");
  assert_string_equal(run.shapes, "small");
  assert_int_equal(strlen(run.started_at), 24); /* 2025-01-02T03:04:05.678Z */
  assert_null(run.finished_at);
  cl1_store_run_free(&run);
}

/* Interrupting a run stamps finished_at; resuming it (running again) clears the stamp. */
static void test_run_interrupted_then_resumed_clears_finished_at(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  int64_t r1 = th_store_seed_task_run(s);
  cl1_store_run run;
  assert_int_equal(cl1_store_run_set_status(s, r1, "interrupted", &err), 0);
  assert_int_equal(cl1_store_run_get(s, r1, &run, &err), 0);
  assert_string_equal(run.status, "interrupted");
  assert_non_null(run.finished_at);
  cl1_store_run_free(&run);
  assert_int_equal(cl1_store_run_set_status(s, r1, "running", &err), 0); /* resumed */
  assert_int_equal(cl1_store_run_get(s, r1, &run, &err), 0);
  assert_null(run.finished_at);
  cl1_store_run_free(&run);
}

/* Unknown statuses, runs, devices and shape sets are refused, each named. */
static void test_run_refuses_unknown_status_run_device_and_shapes(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  int64_t r1 = th_store_seed_task_run(s), r2;
  cl1_store_run run;
  assert_int_equal(cl1_store_run_set_status(s, r1, "paused", &err), -1);
  assert_non_null(strstr(err.msg, "paused"));
  assert_int_equal(cl1_store_run_set_status(s, 999, "done", &err), -1);
  assert_non_null(strstr(err.msg, "run 999"));
  assert_int_equal(cl1_store_run_get(s, 999, &run, &err), -1);
  assert_non_null(strstr(err.msg, "run 999"));
  assert_int_equal(cl1_store_run_create(s, "{}", "replay", NULL, "tpu", "small", &r2, &err), -1);
  assert_non_null(strstr(err.msg, "tpu"));
  assert_int_equal(cl1_store_run_create(s, "{}", "replay", NULL, "cuda", "huge", &r2, &err), -1);
  assert_non_null(strstr(err.msg, "huge"));
}

/* A round is absent until opened; opening it again (a resume) returns the same round. */
static void test_round_open_is_get_or_create(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  char status[16];
  int64_t r1 = th_store_seed_task_run(s), rid, rid2, found;
  assert_int_equal(cl1_store_round_status(s, r1, TASK, 1, status, &found, &err), 0);
  assert_string_equal(status, "");
  assert_int_equal(found, 0);
  assert_int_equal(cl1_store_round_open(s, r1, TASK, 1, &rid, &err), 0);
  assert_int_equal(cl1_store_round_open(s, r1, TASK, 1, &rid2, &err), 0);
  assert_int_equal(rid, rid2);
  assert_int_equal(cl1_store_round_open(s, r1, TASK, 2, &rid2, &err), 0);
  assert_true(rid2 != rid);
  assert_int_equal(cl1_store_round_status(s, r1, TASK, 1, status, &found, &err), 0);
  assert_string_equal(status, "open");
  assert_int_equal(found, rid);
}

/* Closing a round records its best speedup (none: NULL) and is final: reopening does not reopen. */
static void test_round_close_records_best_and_stays_done(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  char status[16];
  int64_t r1 = th_store_seed_task_run(s), rid2, found;
  int64_t rid = th_store_seed_round(s, r1, 1);
  assert_int_equal(cl1_store_round_close(s, rid, 2.5, &err), 0);
  assert_int_equal(cl1_store_round_open(s, r1, TASK, 1, &rid2, &err), 0);
  assert_int_equal(rid2, rid);
  assert_int_equal(cl1_store_round_status(s, r1, TASK, 1, status, &found, &err), 0);
  assert_string_equal(status, "done"); /* reopening does not reopen */
  char sql[200], buf[64];
  snprintf(sql, sizeof sql, "SELECT best_speedup FROM rounds WHERE id=%lld", (long long)rid);
  assert_string_equal(q_text(s, sql, buf, 64), "2.5");
  assert_int_equal(cl1_store_round_close(s, rid, -1, &err), 0);
  assert_string_equal(q_text(s, sql, buf, 64), "");
  assert_int_equal(q_int(s, "SELECT count(*) FROM rounds WHERE finished_at IS NOT NULL"), 1);
}

static void test_round_refuses_unknown_round_or_run_and_round_zero(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  int64_t r1 = th_store_seed_task_run(s), rid2;
  th_store_seed_round(s, r1, 1);
  assert_int_equal(cl1_store_round_close(s, 999, 1, &err), -1);
  assert_non_null(strstr(err.msg, "round 999"));
  assert_int_equal(cl1_store_round_open(s, 999, TASK, 1, &rid2, &err), -1); /* no such run */
  assert_non_null(strstr(err.msg, "FOREIGN KEY"));
  assert_int_equal(cl1_store_round_open(s, r1, TASK, 0, &rid2, &err), -1);
}

/* ---- solutions ------------------------------------------------------------------------------ */

/* One row per (task, backend, SHA-256 of the source): the first put's origin and run stay. */
static void test_solution_put_dedups_by_content_hash(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  char buf[128];
  cl1_err err = {{0}};
  int64_t run = th_store_seed_task_run(s), a, b, c, h;
  bool existed = true;
  const int64_t parents[] = {3, 5};
  assert_int_equal(cl1_store_solution_put(s, TASK, "cuda", "abc", "generated", parents, 2, run, &a,
                                          &existed, &err), 0);
  assert_false(existed);
  /* the hash is SHA-256 of the source bytes */
  assert_string_equal(q_text(s, "SELECT hash FROM solutions", buf, sizeof buf),
                      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert_string_equal(q_text(s, "SELECT parent_ids FROM solutions", buf, sizeof buf), "[3,5]");
  assert_int_equal(cl1_store_solution_put(s, TASK, "cuda", "abc", "replayed", NULL, 0, 0, &b,
                                          &existed, &err), 0);
  assert_true(existed);
  assert_int_equal(a, b);
  assert_string_equal(q_text(s, "SELECT origin FROM solutions", buf, sizeof buf), "generated");
  assert_int_equal(cl1_store_solution_put(s, TASK, "host", "abc", "import", NULL, 0, 0, &c,
                                          &existed, &err), 0);
  assert_false(existed);
  assert_true(c != a);
  assert_int_equal(cl1_store_solution_put(s, TASK, "cuda", "abd", "example", NULL, 0, 0, &h,
                                          &existed, &err), 0);
  assert_false(existed);
  assert_true(h != a && h != c);
  assert_int_equal(q_int(s, "SELECT count(*) FROM solutions WHERE run_id IS NULL"), 2);
  char *src;
  assert_int_equal(cl1_store_solution_source(s, h, &src, &err), 0);
  assert_string_equal(src, "abd");
  free(src);
  assert_int_equal(cl1_store_solution_source(s, 999, &src, &err), -1);
  assert_non_null(strstr(err.msg, "solution 999"));
  assert_int_equal(q_int(s, "SELECT count(*) FROM solutions"), 3);
}

/* Refusals name the cause (task, origin, backend, run) and store nothing. */
static void test_solution_put_refusals_name_the_cause(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  int64_t b;
  bool existed;
  th_store_seed_task_run(s);
  assert_int_equal(cl1_store_solution_put(s, "level9/none", "cuda", "x", "generated", NULL, 0, 0,
                                          &b, &existed, &err), -1);
  assert_non_null(strstr(err.msg, "task level9/none is not in the store"));
  assert_int_equal(cl1_store_solution_put(s, TASK, "cuda", "x", "dreamed", NULL, 0, 0, &b,
                                          &existed, &err), -1);
  assert_non_null(strstr(err.msg, "dreamed"));
  assert_int_equal(cl1_store_solution_put(s, TASK, "metal", "x", "generated", NULL, 0, 0, &b,
                                          &existed, &err), -1);
  assert_non_null(strstr(err.msg, "metal"));
  assert_int_equal(cl1_store_solution_put(s, TASK, "cuda", "", "generated", NULL, 0, 0, &b,
                                          &existed, &err), -1);
  assert_int_equal(cl1_store_solution_put(s, TASK, "cuda", "x", "generated", NULL, 0, 999, &b,
                                          &existed, &err), -1); /* no run 999 */
  assert_non_null(strstr(err.msg, f->path));
  assert_int_equal(q_int(s, "SELECT count(*) FROM solutions"), 0);
}

/* ---- best and successes --------------------------------------------------------------------- */

static int64_t put_sol(cl1_store *s, const char *backend, const char *src, int64_t run) {
  cl1_err err = {{0}};
  int64_t id;
  bool existed;
  assert_int_equal(cl1_store_solution_put(s, TASK, backend, src, "generated", NULL, 0, run, &id,
                                          &existed, &err), 0);
  return id;
}

static void put_ev(cl1_store *s, int64_t sol, const char *verdict, double speedup,
                   const char *shapes) {
  cl1_err err = {{0}};
  cl1_store_eval e = ev(verdict, speedup, shapes);
  e.solution_id = sol;
  int64_t id;
  assert_int_equal(cl1_store_eval_put(s, &e, &id, &err), 0);
  assert_true(id > 0);
}

static double success_of(const cl1_store_success *rows, int n, int64_t sol) {
  for (int i = 0; i < n; i++)
    if (rows[i].solution_id == sol) return rows[i].speedup;
  return -1;
}

/* Two runs and five solutions of TASK with ten evaluations (EVALS) between them: A passes 2.0
 * then 1.5, B passes 3.0 between a failure and a hack, C (run 2) never passes, D passes 10x on
 * the host backend, E 50x on large shapes and times out on small. */
typedef struct {
  int64_t run1, run2, A, B, C, D, E;
} scores;
#define EVALS 10

static scores seed_scores(cl1_store *s) {
  cl1_err err = {{0}};
  scores x;
  x.run1 = th_store_seed_task_run(s);
  assert_int_equal(cl1_store_run_create(s, "{}", "replay", NULL, "cuda", "small", &x.run2, &err),
                   0);
  x.A = put_sol(s, "cuda", "A", x.run1);
  x.B = put_sol(s, "cuda", "B", x.run1);
  x.C = put_sol(s, "cuda", "C", x.run2);
  x.D = put_sol(s, "host", "D", x.run1);
  x.E = put_sol(s, "cuda", "E", x.run1);
  put_ev(s, x.A, "pass", 2.0, "small");
  put_ev(s, x.A, "pass", 1.5, "small");          /* A's latest pass: 1.5 */
  put_ev(s, x.B, "incorrect", 0, "small");
  put_ev(s, x.B, "pass", 3.0, "small");
  put_ev(s, x.B, "hack:unstable", 9.0, "small"); /* latest, but not a pass */
  put_ev(s, x.C, "incorrect", 0, "small");
  put_ev(s, x.C, "compile_error", 0, "small");
  put_ev(s, x.D, "pass", 10.0, "small");         /* another backend */
  put_ev(s, x.E, "pass", 50.0, "large");         /* other shapes */
  put_ev(s, x.E, "timeout", 0, "small");
  return x;
}

/* No passing evaluation yet is not an error: best is solution 0. */
static void test_best_is_none_before_any_pass(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  int64_t sol;
  double sp;
  th_store_seed_task_run(f->s);
  assert_int_equal(cl1_store_best(f->s, TASK, "cuda", "small", 0, &sol, &sp, &err), 0);
  assert_int_equal(sol, 0);
}

/* Best is the highest latest pass per task, backend and shape set; failures never count. */
static void test_best_is_highest_pass_per_backend_and_shapes(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  scores x = seed_scores(s);
  int64_t sol;
  double sp;
  assert_int_equal(cl1_store_best(s, TASK, "cuda", "small", 0, &sol, &sp, &err), 0);
  assert_int_equal(sol, x.B);
  assert_true(sp == 3.0);
  assert_int_equal(cl1_store_best(s, TASK, "host", "small", 0, &sol, &sp, &err), 0);
  assert_int_equal(sol, x.D);
  assert_int_equal(cl1_store_best(s, TASK, "cuda", "large", 0, &sol, &sp, &err), 0);
  assert_int_equal(sol, x.E);
  assert_int_equal(cl1_store_best(s, "level1/1_other", "cuda", "small", 0, &sol, &sp, &err), 0);
  assert_int_equal(sol, 0);
}

static void test_best_restricted_to_a_run_sees_only_its_solutions(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  scores x = seed_scores(s);
  int64_t sol;
  double sp;
  /* run 2 produced only C, which never passed */
  assert_int_equal(cl1_store_best(s, TASK, "cuda", "small", x.run2, &sol, &sp, &err), 0);
  assert_int_equal(sol, 0);
  assert_int_equal(cl1_store_best(s, TASK, "cuda", "small", x.run1, &sol, &sp, &err), 0);
  assert_int_equal(sol, x.B);
}

/* Successes: one row per solution with its latest pass, by solution id, with its source. */
static void test_successes_list_each_solution_latest_pass(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  scores x = seed_scores(s);
  cl1_store_success *rows;
  int n;
  assert_int_equal(cl1_store_successes(s, TASK, "cuda", "small", &rows, &n, &err), 0);
  assert_int_equal(n, 2);
  assert_int_equal(rows[0].solution_id, x.A); /* by solution id */
  assert_true(rows[0].speedup == 1.5);
  assert_string_equal(rows[0].source, "A");
  assert_int_equal(rows[1].solution_id, x.B);
  assert_true(rows[1].speedup == 3.0);
  cl1_store_successes_free(rows, n);
  assert_int_equal(cl1_store_successes(s, TASK, "cuda", "large", &rows, &n, &err), 0);
  assert_int_equal(n, 1);
  assert_true(success_of(rows, n, x.E) == 50.0);
  cl1_store_successes_free(rows, n);
  assert_int_equal(cl1_store_successes(s, TASK, "cuda", "test", &rows, &n, &err), 0);
  assert_int_equal(n, 0);
  assert_null(rows);
}

/* Run 2 re-discovers A (deduplicated: A stays run 1's) and measures 1.8: that is run 2's best and
 * A's latest pass. */
static void test_rediscovered_solution_is_best_of_the_new_run(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  scores x = seed_scores(s);
  int64_t rid, smp, sol, sol2, eid;
  double sp;
  assert_int_equal(cl1_store_round_open(s, x.run2, TASK, 1, &rid, &err), 0);
  cl1_store_sample m = {.round_id = rid, .idx = 0, .prompt = "p", .status = "generated",
                        .code = "A", .gen_s = NAN};
  assert_int_equal(cl1_store_sample_add(s, &m, &smp, &err), 0);
  cl1_store_eval e = ev("pass", 1.8, "small");
  assert_int_equal(cl1_store_sample_record_eval(s, smp, "cuda", "A", "generated", &e, &sol2, &eid,
                                                &err), 0);
  assert_int_equal(sol2, x.A);
  assert_int_equal(cl1_store_best(s, TASK, "cuda", "small", x.run2, &sol, &sp, &err), 0);
  assert_int_equal(sol, x.A);
  assert_true(sp == 1.8);
  cl1_store_success *rows;
  int n;
  assert_int_equal(cl1_store_successes(s, TASK, "cuda", "small", &rows, &n, &err), 0);
  assert_true(success_of(rows, n, x.A) == 1.8); /* now A's latest pass */
  cl1_store_successes_free(rows, n);
}

/* Evaluations that would corrupt the queries are refused. */
static void test_eval_put_refuses_rows_that_would_corrupt_queries(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  scores x = seed_scores(s);
  int64_t eid;
  cl1_store_eval e = ev("pass", NAN, "small");
  e.solution_id = x.A;
  assert_int_equal(cl1_store_eval_put(s, &e, &eid, &err), -1);
  assert_non_null(strstr(err.msg, "a pass with speedup"));
  e = ev("pass", 2.0, "small");
  e.solution_id = x.A;
  e.task_id = "level1/1_other";
  assert_int_equal(cl1_store_eval_put(s, &e, &eid, &err), -1);
  assert_non_null(strstr(err.msg, "not a solution of task level1/1_other"));
  e.task_id = TASK;
  e.shapes = "medium";
  assert_int_equal(cl1_store_eval_put(s, &e, &eid, &err), -1);
  assert_non_null(strstr(err.msg, "medium"));
  e.shapes = "small";
  e.protocol_json = NULL;
  assert_int_equal(cl1_store_eval_put(s, &e, &eid, &err), -1);
  assert_non_null(strstr(err.msg, "no protocol"));
  assert_int_equal(q_int(s, "SELECT count(*) FROM evaluations"), EVALS);
}

/* NULL flags store '[]', NaN stores NULL. */
static void test_eval_put_stores_no_flags_as_empty_list_and_nan_as_null(void **state) {
  th_store *f = *state;
  seed_scores(f->s);
  assert_int_equal(q_int(f->s, "SELECT count(*) FROM evaluations WHERE flags = '[]' AND"
                               " ref_ms IS NULL AND wall_s IS NULL"),
                   EVALS);
}

/* ---- samples -------------------------------------------------------------------------------- */

static int64_t sample_status_is(cl1_store *s, int64_t id, const char *status) {
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM samples WHERE id = %lld AND status = '%s'",
           (long long)id, status);
  return q_int(s, sql);
}

/* Round 1 of a run with an exemplar solution and five samples: 0 and 3 generated with code,
 * 1 without a code block, 2 a generation error, 4 generated without code (truncated). */
typedef struct {
  int64_t run, rid, ex, ids[5];
  char exj[64];
  cl1_store_sample m[5];
} round_samples;

static void seed_samples(cl1_store *s, round_samples *r) {
  cl1_err err = {{0}};
  r->run = th_store_seed_task_run(s);
  r->rid = th_store_seed_round(s, r->run, 1);
  r->ex = put_sol(s, "cuda", "exemplar", 0);
  snprintf(r->exj, sizeof r->exj, "[%lld]", (long long)r->ex);
  const cl1_store_sample m[5] = {
      {r->rid, 0, "prompt", r->exj, "```cuda\nK0\n```", "thought", "stop", "generated", NULL,
       "fast", "K0", 1.5, NULL, NULL},
      {r->rid, 1, "prompt", r->exj, "no fence", NULL, "stop", "no_code", "no code block", NULL,
       NULL, 2.0, NULL, NULL},
      {r->rid, 2, "prompt", NULL, NULL, NULL, NULL, "gen_error", "HTTP 500 after 5 tries", NULL,
       NULL, NAN, NULL, NULL},
      {r->rid, 3, "prompt", r->exj, "```cuda\nK3\n```", NULL, "stop", "generated", NULL, NULL,
       "K3", 1.0, NULL, NULL},
      {r->rid, 4, "prompt", r->exj, "x", NULL, "length", "generated", NULL, NULL, NULL, 1.0, NULL, NULL},
  };
  memcpy(r->m, m, sizeof m);
  for (int i = 0; i < 5; i++)
    assert_int_equal(cl1_store_sample_add(s, &r->m[i], &r->ids[i], &err), 0);
}

/* The evaluation a sample is recorded with (its task taken from the sample). */
static cl1_store_eval sample_ev(void) {
  cl1_store_eval e = ev("pass", 2.0, "small");
  e.task_id = NULL;
  return e;
}

/* Generated samples count as pending; those with code are listed for (re-)evaluation. */
static void test_samples_pending_lists_generated_ones_with_code(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  round_samples r;
  seed_samples(s, &r);
  assert_int_equal(q_int(s, "SELECT count(*) FROM samples WHERE exemplar_ids = '[]'"), 1);
  int total, pending;
  assert_int_equal(cl1_store_samples_count(s, r.rid, &total, &pending, &err), 0);
  assert_int_equal(total, 5);
  assert_int_equal(pending, 3);
  cl1_store_pending *p;
  int n;
  assert_int_equal(cl1_store_samples_pending(s, r.run, &p, &n, &err), 0);
  assert_int_equal(n, 2); /* sample 4 has no code */
  assert_int_equal(p[0].sample_id, r.ids[0]);
  assert_int_equal(p[0].round_id, r.rid);
  assert_int_equal(p[0].idx, 0);
  assert_string_equal(p[0].task_id, TASK);
  assert_string_equal(p[0].code, "K0");
  assert_int_equal(p[1].sample_id, r.ids[3]);
  cl1_store_pending_free(p, n);
}

/* Recording an evaluation stores the solution (its parents: the sample's exemplars, its run: the
 * sample's), the evaluation, and the sample's status and links; a second record is refused. */
static void test_sample_record_eval_links_solution_and_evaluation_once(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  char buf[128], sql[256], want[128];
  round_samples r;
  seed_samples(s, &r);
  cl1_store_eval e = sample_ev();
  int64_t sol, eid;
  assert_int_equal(cl1_store_sample_record_eval(s, r.ids[0], "cuda", "K0", "generated", &e, &sol,
                                                &eid, &err), 0);
  snprintf(sql, sizeof sql, "SELECT status || ' ' || solution_id || ' ' || evaluation_id FROM"
                            " samples WHERE id = %lld", (long long)r.ids[0]);
  snprintf(want, sizeof want, "evaluated %lld %lld", (long long)sol, (long long)eid);
  assert_string_equal(q_text(s, sql, buf, sizeof buf), want);
  snprintf(sql, sizeof sql, "SELECT parent_ids || run_id FROM solutions WHERE id = %lld",
           (long long)sol);
  snprintf(want, sizeof want, "%s%lld", r.exj, (long long)r.run);
  assert_string_equal(q_text(s, sql, buf, sizeof buf), want);
  /* twice is refused, and leaves no second evaluation */
  assert_int_equal(cl1_store_sample_record_eval(s, r.ids[0], "cuda", "K0", "generated", &e, &sol,
                                                &eid, &err), -1);
  assert_non_null(strstr(err.msg, "'evaluated', not 'generated'"));
  assert_int_equal(q_int(s, "SELECT count(*) FROM evaluations"), 1);
}

/* A failure inside the transaction, after the solution went in, leaves nothing at all; the
 * message names the store. */
static void test_sample_record_eval_failure_leaves_nothing(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  round_samples r;
  seed_samples(s, &r);
  cl1_store_eval e = sample_ev();
  int64_t sol, eid;
  int64_t solutions = q_int(s, "SELECT count(*) FROM solutions");
  assert_int_equal(solutions, 1); /* the exemplar */
  assert_int_equal(sqlite3_exec(cl1_store_db(s),
                                "CREATE TEMP TRIGGER boom BEFORE INSERT ON evaluations"
                                " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  assert_int_equal(cl1_store_sample_record_eval(s, r.ids[3], "cuda", "K3", "generated", &e, &sol,
                                                &eid, &err), -1);
  assert_non_null(strstr(err.msg, "disk on fire"));
  assert_non_null(strstr(err.msg, f->path));
  assert_int_equal(q_int(s, "SELECT count(*) FROM solutions"), solutions);
  assert_int_equal(q_int(s, "SELECT count(*) FROM evaluations"), 0);
  assert_int_equal(sample_status_is(s, r.ids[3], "generated"), 1);
}

static void test_sample_record_eval_refuses_another_task(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  round_samples r;
  seed_samples(s, &r);
  cl1_store_eval e = sample_ev();
  e.task_id = "level1/1_other";
  int64_t sol, eid;
  assert_int_equal(cl1_store_sample_record_eval(s, r.ids[3], "cuda", "K3", "generated", &e, &sol,
                                                &eid, &err), -1);
  assert_non_null(strstr(err.msg, "the evaluation is of task level1/1_other"));
  assert_int_equal(sample_status_is(s, r.ids[3], "generated"), 1);
}

/* A failing verdict is recorded with its flags, and evaluated samples leave the pending list. */
static void test_sample_record_eval_keeps_failing_verdict_and_flags(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  round_samples r;
  seed_samples(s, &r);
  cl1_store_eval e = sample_ev();
  int64_t sol, eid;
  assert_int_equal(cl1_store_sample_record_eval(s, r.ids[0], "cuda", "K0", "generated", &e, &sol,
                                                &eid, &err), 0);
  e.task_id = TASK;
  e.verdict = "compile_error";
  e.speedup = 0;
  e.message = "error: expected ';'";
  e.flags_json = "[\"slow_compile\"]";
  assert_int_equal(cl1_store_sample_record_eval(s, r.ids[3], "cuda", "K3", "generated", &e, &sol,
                                                &eid, &err), 0);
  assert_int_equal(q_int(s, "SELECT count(*) FROM evaluations WHERE flags = '[\"slow_compile\"]'"),
                   1);
  cl1_store_pending *p;
  int n;
  assert_int_equal(cl1_store_samples_pending(s, r.run, &p, &n, &err), 0);
  assert_int_equal(n, 0);
  assert_null(p);
}

/* A truncated sample is finished without an evaluation and is no longer pending; finishing needs
 * a known sample, and an evaluated one a stored evaluation. */
static void test_sample_finish_without_evaluation(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  round_samples r;
  seed_samples(s, &r);
  int total, pending;
  assert_int_equal(cl1_store_sample_finish(s, r.ids[4], "truncated", 0, 0, &err), 0);
  assert_int_equal(sample_status_is(s, r.ids[4], "truncated"), 1);
  assert_int_equal(cl1_store_samples_count(s, r.rid, &total, &pending, &err), 0);
  assert_int_equal(total, 5);
  assert_int_equal(pending, 2); /* 0 and 3, not evaluated here */
  assert_int_equal(cl1_store_sample_finish(s, r.ids[4], "evaluated", 0, 0, &err), -1);
  assert_int_equal(cl1_store_sample_finish(s, 999, "truncated", 0, 0, &err), -1);
  assert_non_null(strstr(err.msg, "sample 999"));
  assert_int_equal(cl1_store_sample_finish(s, r.ids[4], "evaluated", r.ex, 999, &err), -1);
  assert_non_null(strstr(err.msg, "FOREIGN KEY"));
}

/* Adds that are refused: a taken index, an unknown round, a status other than a generation's,
 * no prompt; none is stored. */
static void test_sample_add_refusals_store_nothing(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  round_samples r;
  seed_samples(s, &r);
  cl1_store_sample m = r.m[0];
  int64_t id;
  m.idx = 1; /* taken */
  assert_int_equal(cl1_store_sample_add(s, &m, &id, &err), -1);
  assert_non_null(strstr(err.msg, "UNIQUE"));
  m.idx = 9;
  m.round_id = 999;
  assert_int_equal(cl1_store_sample_add(s, &m, &id, &err), -1);
  assert_non_null(strstr(err.msg, "round 999 is not in the store"));
  m.round_id = r.rid;
  m.status = "evaluated";
  assert_int_equal(cl1_store_sample_add(s, &m, &id, &err), -1);
  m.status = "generated";
  m.prompt = NULL;
  assert_int_equal(cl1_store_sample_add(s, &m, &id, &err), -1);
  assert_int_equal(q_int(s, "SELECT count(*) FROM samples"), 5);
  assert_int_equal(q_int(s, "SELECT count(*) FROM samples WHERE gen_s IS NULL"), 1);
}

/* ---- threads -------------------------------------------------------------------------------- */

#define THREADS 4
#define PER_THREAD 40

typedef struct {
  cl1_store *s;
  int64_t round_id;
  int t, failures;
  char msg[1024];
} worker;

static void *work(void *arg) {
  worker *w = arg;
  for (int i = 0; i < PER_THREAD; i++) {
    cl1_err err = {{0}};
    char code[64];
    snprintf(code, sizeof code, "kernel %d.%d", w->t, i);
    cl1_store_sample m = {.round_id = w->round_id, .idx = w->t * 1000 + i, .prompt = "p",
                          .status = "generated", .code = code, .gen_s = 0.5};
    cl1_store_eval e = ev(i % 3 ? "pass" : "incorrect", i % 3 ? 1.0 + i : 0, "small");
    int64_t smp, sol, eid, best;
    double sp;
    if (cl1_store_sample_add(w->s, &m, &smp, &err) ||
        cl1_store_sample_record_eval(w->s, smp, "cuda", code, "generated", &e, &sol, &eid, &err) ||
        cl1_store_best(w->s, TASK, "cuda", "small", 0, &best, &sp, &err)) {
      w->failures++;
      snprintf(w->msg, sizeof w->msg, "%s", err.msg);
    }
  }
  return NULL;
}

/* Four threads adding and recording samples through one store: nothing fails, nothing is lost. */
static void test_threads_share_one_store(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  int64_t run = th_store_seed_task_run(s);
  int64_t rid = th_store_seed_round(s, run, 1);
  pthread_t th[THREADS];
  worker w[THREADS];
  for (int t = 0; t < THREADS; t++) {
    w[t] = (worker){.s = s, .round_id = rid, .t = t};
    assert_int_equal(pthread_create(&th[t], NULL, work, &w[t]), 0);
  }
  for (int t = 0; t < THREADS; t++) {
    assert_int_equal(pthread_join(th[t], NULL), 0);
    if (w[t].failures) fprintf(stderr, "thread %d: %s\n", t, w[t].msg);
    assert_int_equal(w[t].failures, 0);
  }
  int total, pending;
  assert_int_equal(cl1_store_samples_count(s, rid, &total, &pending, &err), 0);
  assert_int_equal(total, THREADS * PER_THREAD);
  assert_int_equal(pending, 0);
  assert_int_equal(q_int(s, "SELECT count(*) FROM evaluations"), THREADS * PER_THREAD);
  assert_int_equal(q_int(s, "SELECT count(DISTINCT solution_id) FROM samples"),
                   THREADS * PER_THREAD);
  for (int t = 0; t < THREADS; t++) {
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM samples WHERE idx / 1000 = %d", t);
    assert_int_equal(q_int(s, sql), PER_THREAD);
  }
}
/* ---- kill -9 ------------------------------------------------------------------------------ */

#define KILLS 20

/* The child: writes samples and records their evaluations as fast as it can, reporting each
 * commit on fd (+id: the sample is in, -id: its evaluation is recorded) until it is killed. */
static void writer(const char *path, int64_t run, int round, int fd) {
  cl1_err err = {{0}};
  cl1_store *s;
  int64_t rid;
  if (cl1_store_open(path, &s, &err) || cl1_store_round_open(s, run, TASK, round, &rid, &err))
    _exit(2);
  for (int i = 0;; i++) {
    char code[64];
    /* every fifth source repeats: the dedup path runs under the kills too */
    snprintf(code, sizeof code, i % 5 ? "kernel %d.%d" : "kernel shared %d", round, i);
    cl1_store_sample m = {.round_id = rid, .idx = i, .prompt = "p", .exemplar_ids_json = "[]",
                          .completion = code, .status = "generated", .code = code, .gen_s = 0.1};
    cl1_store_eval e = ev("pass", 1.0 + i % 7, "small");
    int64_t smp, sol, eid;
    if (cl1_store_sample_add(s, &m, &smp, &err)) _exit(3);
    if (write(fd, &smp, sizeof smp) != sizeof smp) _exit(4);
    if (cl1_store_sample_record_eval(s, smp, "cuda", code, "generated", &e, &sol, &eid, &err))
      _exit(5);
    int64_t neg = -smp;
    if (write(fd, &neg, sizeof neg) != sizeof neg) _exit(4);
  }
}

/* After a kill: the file is intact and every committed write is there, whole. Re-evaluates the
 * pending sample as a resumed run would. counts[3]: samples, evaluations, solutions, monotone. */
static void check_after_kill(const char *path, int64_t run, const int64_t *reports, size_t n,
                             int64_t counts[3]) {
  cl1_err err = {{0}};
  cl1_store *s;
  char buf[64];
  assert_int_equal(cl1_store_open(path, &s, &err), 0);
  assert_string_equal(q_text(s, "PRAGMA integrity_check", buf, sizeof buf), "ok");
  assert_int_equal(q_int(s, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  for (size_t i = 0; i < n; i++) {
    int64_t id = reports[i] > 0 ? reports[i] : -reports[i];
    int64_t done = sample_status_is(s, id, "evaluated");
    assert_int_equal(reports[i] < 0 ? done : done + sample_status_is(s, id, "generated"), 1);
  }
  /* no half-recorded combination */
  assert_int_equal(q_int(s, "SELECT count(*) FROM samples sa WHERE sa.status = 'evaluated' AND"
                            " NOT EXISTS (SELECT 1 FROM evaluations e JOIN solutions so ON"
                            " so.id = e.solution_id WHERE e.id = sa.evaluation_id AND"
                            " so.id = sa.solution_id AND so.source = sa.code)"),
                   0);
  assert_int_equal(q_int(s, "SELECT count(*) FROM evaluations e WHERE NOT EXISTS (SELECT 1"
                            " FROM samples sa WHERE sa.evaluation_id = e.id)"),
                   0);
  int64_t now[3] = {q_int(s, "SELECT count(*) FROM samples"),
                    q_int(s, "SELECT count(*) FROM evaluations"),
                    q_int(s, "SELECT count(*) FROM solutions")};
  for (int k = 0; k < 3; k++) assert_true(now[k] >= counts[k]);
  /* at most the sample in flight is lost to evaluation; resume evaluates it */
  cl1_store_pending *p;
  int np;
  assert_int_equal(cl1_store_samples_pending(s, run, &p, &np, &err), 0);
  assert_true(np <= 1);
  for (int i = 0; i < np; i++) {
    cl1_store_eval e = ev("pass", 1.0, "small");
    int64_t sol, eid;
    assert_int_equal(cl1_store_sample_record_eval(s, p[i].sample_id, "cuda", p[i].code,
                                                  "generated", &e, &sol, &eid, &err), 0);
  }
  cl1_store_pending_free(p, np);
  counts[0] = q_int(s, "SELECT count(*) FROM samples");
  counts[1] = q_int(s, "SELECT count(*) FROM evaluations");
  counts[2] = q_int(s, "SELECT count(*) FROM solutions");
  assert_int_equal(q_int(s, "SELECT count(*) FROM samples WHERE status = 'generated'"), 0);
  cl1_store_close(s);
}

/* Twenty writers killed with SIGKILL at random moments: the file stays intact, nothing committed
 * is lost, nothing is half-recorded, and at most the sample in flight is left pending. */
static void test_sigkill_during_writes_loses_nothing_committed(void **state) {
  th_store *f = *state;
  const char *path = f->path;
  int64_t run = th_store_seed_task_run(f->s);
  th_store_close(f);
  unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
  int64_t counts[3] = {0, 0, 0};
  static int64_t reports[1 << 16];
  for (int k = 0; k < KILLS; k++) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      close(fds[0]);
      writer(path, run, k + 1, fds[1]);
    }
    close(fds[1]);
    /* the delay counts from the first commit, so every child gets to write */
    assert_int_equal(read(fds[0], &reports[0], sizeof reports[0]), sizeof reports[0]);
    usleep(1000 * (1 + rand_r(&seed) % 30) + rand_r(&seed) % 1000);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    size_t n = 1;
    ssize_t got;
    while (n < sizeof reports / sizeof reports[0] &&
           (got = read(fds[0], &reports[n], (sizeof reports / sizeof reports[0] - n) *
                                                 sizeof reports[0])) > 0)
      n += (size_t)got / sizeof reports[0];
    close(fds[0]);
    check_after_kill(path, run, reports, n, counts);
  }
  assert_true(counts[1] >= KILLS); /* each child committed a sample, evaluated by now */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      th_store_test(test_schema_create_reopen),
      th_store_test(test_open_refuses_newer_or_unreadable_schema_version),
      th_store_test(test_open_refuses_files_that_are_not_a_store),
      th_store_test(test_open_refuses_a_folder_that_does_not_exist),
      th_store_test(test_migration_applies_later_steps_and_rolls_back_a_failing_one),
      th_store_test(test_run_create_keeps_fields_and_newest_is_latest),
      th_store_test(test_run_interrupted_then_resumed_clears_finished_at),
      th_store_test(test_run_refuses_unknown_status_run_device_and_shapes),
      th_store_test(test_round_open_is_get_or_create),
      th_store_test(test_round_close_records_best_and_stays_done),
      th_store_test(test_round_refuses_unknown_round_or_run_and_round_zero),
      th_store_test(test_solution_put_dedups_by_content_hash),
      th_store_test(test_solution_put_refusals_name_the_cause),
      th_store_test(test_best_is_none_before_any_pass),
      th_store_test(test_best_is_highest_pass_per_backend_and_shapes),
      th_store_test(test_best_restricted_to_a_run_sees_only_its_solutions),
      th_store_test(test_successes_list_each_solution_latest_pass),
      th_store_test(test_rediscovered_solution_is_best_of_the_new_run),
      th_store_test(test_eval_put_refuses_rows_that_would_corrupt_queries),
      th_store_test(test_eval_put_stores_no_flags_as_empty_list_and_nan_as_null),
      th_store_test(test_samples_pending_lists_generated_ones_with_code),
      th_store_test(test_sample_record_eval_links_solution_and_evaluation_once),
      th_store_test(test_sample_record_eval_failure_leaves_nothing),
      th_store_test(test_sample_record_eval_refuses_another_task),
      th_store_test(test_sample_record_eval_keeps_failing_verdict_and_flags),
      th_store_test(test_sample_finish_without_evaluation),
      th_store_test(test_sample_add_refusals_store_nothing),
      th_store_test(test_threads_share_one_store),
      th_store_test(test_sigkill_during_writes_loses_nothing_committed),
      th_store_test(test_baselines_batch_is_all_or_nothing),
  };
  return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
