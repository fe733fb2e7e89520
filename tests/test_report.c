/* test_report.c — `cudal1 report`: the summary arithmetic on hand-made rows (mean, geomean,
 * median, max, success, >1.01x, fast_p, levels, degenerate tasks left out, baseline columns),
 * and on a store built here with SQL (2 levels, 5 tasks with one degenerate and one failed, two
 * runs — the second replayed — over several rounds, failing evaluations, other shape sets and a
 * host backend): the numbers, the run filter (a run's own solutions and those its samples
 * evaluated), the shape/device filters, the Markdown rows, the HTML (self-contained, escaped), the
 * JSON, the baselines table, each error message, and the CLI. */
#include "harness.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include "report/report.h"
#include "store_fixture.h"

#define TASK_E "level2/2_<E>&\"x|y" /* a task id that needs escaping everywhere */
#define DAGGER "\xe2\x80\xa0" /* the degenerate mark */
#define DASH "\xe2\x80\x94"   /* an undefined number */
#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* ---- the fixture ---- */

static const char schema_sql[] =
    "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO meta VALUES('schema_version','1');"
    "CREATE TABLE tasks(id TEXT PRIMARY KEY, level INTEGER NOT NULL, name TEXT NOT NULL,"
    "  degenerate INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, config TEXT NOT NULL, status TEXT NOT NULL,"
    "  policy TEXT NOT NULL, model TEXT, device TEXT NOT NULL, shapes TEXT NOT NULL,"
    "  started_at TEXT NOT NULL, finished_at TEXT);"
    "CREATE TABLE solutions(id INTEGER PRIMARY KEY, task_id TEXT NOT NULL REFERENCES tasks(id),"
    "  backend TEXT NOT NULL, hash TEXT NOT NULL, source TEXT NOT NULL, origin TEXT NOT NULL,"
    "  parent_ids TEXT NOT NULL DEFAULT '[]', run_id INTEGER REFERENCES runs(id),"
    "  created_at TEXT NOT NULL, UNIQUE(task_id, backend, hash));"
    "CREATE TABLE evaluations(id INTEGER PRIMARY KEY,"
    "  solution_id INTEGER NOT NULL REFERENCES solutions(id),"
    "  task_id TEXT NOT NULL REFERENCES tasks(id), device TEXT NOT NULL, driver TEXT,"
    "  shapes TEXT NOT NULL, protocol TEXT NOT NULL, verdict TEXT NOT NULL, message TEXT,"
    "  speedup REAL, reward_speedup REAL, reward REAL, ref_ms REAL, cand_ms REAL, spread REAL,"
    "  flags TEXT NOT NULL DEFAULT '[]', result_json TEXT, wall_s REAL, created_at TEXT NOT NULL);"
    "CREATE TABLE rounds(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  task_id TEXT NOT NULL REFERENCES tasks(id), round INTEGER NOT NULL, status TEXT NOT NULL,"
    "  best_speedup REAL, started_at TEXT NOT NULL, finished_at TEXT,"
    "  UNIQUE(run_id, task_id, round));"
    "CREATE TABLE samples(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  round_id INTEGER NOT NULL REFERENCES rounds(id), task_id TEXT NOT NULL,"
    "  idx INTEGER NOT NULL, prompt TEXT NOT NULL, exemplar_ids TEXT NOT NULL DEFAULT '[]',"
    "  completion TEXT, reasoning TEXT, finish_reason TEXT, status TEXT NOT NULL, error TEXT,"
    "  analysis TEXT, code TEXT, solution_id INTEGER REFERENCES solutions(id),"
    "  evaluation_id INTEGER REFERENCES evaluations(id), gen_s REAL, created_at TEXT NOT NULL,"
    "  UNIQUE(round_id, idx));"
    "CREATE INDEX ev_task ON evaluations(task_id, verdict);"
    "CREATE INDEX sol_task ON solutions(task_id);"
    "CREATE INDEX sa_run ON samples(run_id, task_id);";

/* Best passing speedups (cuda, small): A 1.5 in run 1 and 1.8 in run 2, B (degenerate) 4.0,
 * C failed (incorrect, compile_error), D 0.8 in run 1 and 0.85 when run 2 re-evaluated run 1's
 * solution, E 1.005 (above 1, not above 1.01). A also has a large-shape pass (10x) and a host
 * one (1.2x), from imported solutions outside any run. */
static const char data_sql[] =
    "INSERT INTO tasks VALUES('level1/1_A',1,'1_A',0),('level1/2_B',1,'2_B',1),"
    "  ('level1/3_C',1,'3_C',0),('level2/1_D',2,'1_D',0),('" TASK_E "',2,'2_E',0);"
    "INSERT INTO runs VALUES(1,'{}','done','openai','m1','cuda','small','2025-01-01T00:00:00Z',"
    "  '2025-01-01T01:00:00Z'),(2,'{}','done','replay',NULL,'cuda','small',"
    "  '2025-01-02T00:00:00Z',NULL);"
    "INSERT INTO solutions(id,task_id,backend,hash,source,origin,run_id,created_at) VALUES"
    "  (1,'level1/1_A','cuda','h1','s','generated',1,'t'),(2,'level1/1_A','cuda','h2','s','generated',1,'t'),"
    "  (3,'level1/1_A','cuda','h3','s','generated',1,'t'),(4,'level1/1_A','cuda','h4','s','replayed',2,'t'),"
    "  (5,'level1/2_B','cuda','h5','s','generated',1,'t'),(6,'level1/3_C','cuda','h6','s','generated',1,'t'),"
    "  (7,'level1/3_C','cuda','h7','s','generated',1,'t'),(8,'level2/1_D','cuda','h8','s','generated',1,'t'),"
    "  (10,'" TASK_E "','cuda','h10','s','generated',1,'t'),"
    "  (11,'level1/1_A','cuda','h11','s','import',NULL,'t'),(12,'level1/1_A','host','h12','s','import',NULL,'t');"
    "INSERT INTO evaluations(id,solution_id,task_id,device,shapes,protocol,verdict,speedup,ref_ms,"
    "  cand_ms,flags,created_at) VALUES"
    "  (1,1,'level1/1_A','NVIDIA H200','small','{}','pass',1.5,3.0,2.0,'[]','t'),"
    "  (2,2,'level1/1_A','NVIDIA H200','small','{}','pass',0.9,1.8,2.0,'[]','t'),"
    "  (3,3,'level1/1_A','NVIDIA H200','small','{}','incorrect',0,NULL,NULL,'[]','t'),"
    "  (4,4,'level1/1_A','NVIDIA H200','small','{}','pass',1.8,3.6,2.0,'[\"input_insensitive\",\"x\"]','t'),"
    "  (5,5,'level1/2_B','NVIDIA H200','small','{}','pass',4.0,2.0,0.5,'[]','t'),"
    "  (6,6,'level1/3_C','NVIDIA H200','small','{}','incorrect',0,NULL,NULL,'[]','t'),"
    "  (7,7,'level1/3_C','NVIDIA H200','small','{}','compile_error',0,NULL,NULL,'[]','t'),"
    "  (8,8,'level2/1_D','NVIDIA H200','small','{}','pass',0.8,4.0,5.0,'[]','t'),"
    "  (9,8,'level2/1_D','NVIDIA H200','small','{}','pass',0.85,4.25,5.0,'[]','t'),"
    "  (10,10,'" TASK_E "','NVIDIA H200','small','{}','pass',1.005,1.005,1.0,'[]','t'),"
    "  (11,11,'level1/1_A','NVIDIA H200','large','{}','pass',10.0,1.0,0.1,'[]','t'),"
    "  (12,12,'level1/1_A','Intel Xeon','test','{}','pass',1.2,1.2,1.0,'[]','t');"
    "INSERT INTO rounds(id,run_id,task_id,round,status,best_speedup,started_at) VALUES"
    "  (1,1,'level1/1_A',1,'done',NULL,'t'),(2,1,'level1/1_A',2,'done',1.5,'t'),"
    "  (3,1,'level1/2_B',1,'done',4.0,'t'),(4,1,'level1/2_B',2,'done',4.0,'t'),"
    "  (5,1,'level1/3_C',1,'done',NULL,'t'),(6,1,'level1/3_C',2,'done',NULL,'t'),"
    "  (7,1,'level2/1_D',1,'done',0.8,'t'),(8,1,'level2/1_D',2,'done',0.8,'t'),"
    "  (9,1,'" TASK_E "',1,'done',1.005,'t'),(10,1,'" TASK_E "',2,'done',1.005,'t'),"
    "  (11,2,'level1/1_A',1,'done',1.8,'t'),(12,2,'level2/1_D',1,'done',0.85,'t');"
    "INSERT INTO samples(id,run_id,round_id,task_id,idx,prompt,status,solution_id,evaluation_id,"
    "  created_at) VALUES"
    "  (1,1,1,'level1/1_A',0,'p','evaluated',3,3,'t'),(2,1,1,'level1/1_A',1,'p','no_code',NULL,NULL,'t'),"
    "  (3,1,2,'level1/1_A',0,'p','evaluated',1,1,'t'),(4,1,2,'level1/1_A',1,'p','evaluated',2,2,'t'),"
    "  (5,1,3,'level1/2_B',0,'p','evaluated',5,5,'t'),(6,1,5,'level1/3_C',0,'p','evaluated',6,6,'t'),"
    "  (7,1,6,'level1/3_C',0,'p','evaluated',7,7,'t'),(8,1,7,'level2/1_D',0,'p','evaluated',8,8,'t'),"
    "  (9,1,9,'" TASK_E "',0,'p','evaluated',10,10,'t'),"
    "  (10,2,11,'level1/1_A',0,'p','evaluated',4,4,'t'),(11,2,12,'level2/1_D',0,'p','evaluated',8,9,'t'),"
    "  (12,2,12,'level2/1_D',1,'p','no_code',NULL,NULL,'t');";

/* Issue 6's table: eager for A, B, C, D (E not measured); torch.compile for A, failed for B. */
static const char baselines_sql[] =
    "CREATE TABLE baselines(task_id TEXT, shapes TEXT, name TEXT, median_ms REAL, status TEXT);"
    "INSERT INTO baselines VALUES('level1/1_A','small','torch.compile',1.0,'ok'),"
    "  ('level1/2_B','small','torch.compile',NULL,'compile_error: xyz'),"
    "  ('level1/1_A','small','eager',3.6,'ok'),('level1/2_B','small','eager',1.0,'ok'),"
    "  ('level1/3_C','small','eager',5.0,'ok'),('level2/1_D','small','eager',2.35,'ok'),"
    "  ('level1/1_A','large','eager',0.5,'ok');";

static void db_exec(const char *path, const char *sql) {
  sqlite3 *db;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  char *msg = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK) fprintf(stderr, "fixture SQL failed: %s\n", msg ? msg : "?");
  sqlite3_free(msg);
  sqlite3_close(db);
  assert_int_equal(rc, SQLITE_OK);
}

/* The fixture's folder (store_fixture.h) with the store built by the SQL above rather than
 * through the store's API, so that every row, id and time is exactly the one the numbers below
 * are worked out from. */
static int setup(void **st) {
  if (th_store_setup_path(st)) return -1;
  th_store *f = *st;
  db_exec(f->path, schema_sql);
  db_exec(f->path, data_sql);
  return 0;
}

static cl1_report *load(const th_store *f, const char *run, const char *shapes, const char *dev) {
  cl1_report_opts o = {.db_path = f->path, .run = run, .shapes = shapes, .backend = dev};
  cl1_report *r = NULL;
  cl1_err err = {{0}};
  int rc = cl1_report_load(&o, &r, &err);
  if (rc) fprintf(stderr, "load failed: %s\n", err.msg);
  assert_int_equal(rc, 0);
  return r;
}

/* The error message of a load that must fail. */
static const char *load_error(const char *db, const char *run, const char *shapes) {
  static cl1_err err;
  cl1_report_opts o = {.db_path = db, .run = run, .shapes = shapes};
  cl1_report *r = NULL;
  memset(&err, 0, sizeof err);
  assert_int_equal(cl1_report_load(&o, &r, &err), -1);
  assert_null(r);
  return err.msg;
}

static const cl1_report_task *find_task(const cl1_report_section *s, const char *id) {
  for (int i = 0; i < s->n_tasks; i++)
    if (!strcmp(s->tasks[i].id, id)) return &s->tasks[i];
  fail_msg("task %s not in the section", id);
  return NULL;
}

static cl1_report_stats stats(const cl1_report_section *s, int col, int level, bool excl) {
  cl1_report_stats a;
  cl1_err err = {{0}};
  assert_int_equal(cl1_report_stats_compute(s->tasks, s->n_tasks, col, level, excl, &a, &err), 0);
  return a;
}

/* ---- the numeric core on hand-made rows ---- */

static cl1_report_task row(const char *id, int level, bool degen, bool correct, double s) {
  cl1_report_task t = {.id = (char *)id, .level = level, .degenerate = degen, .correct = correct};
  t.has[0] = true;
  t.speedup[0] = correct ? s : NAN;
  return t;
}

static void test_summary_stats_of_task_rows(void **st) {
  (void)st;
  cl1_report_task rows[] = {
      row("a", 1, false, true, 2.0), row("b", 1, false, true, 0.5), row("c", 1, true, true, 8.0),
      row("d", 1, false, false, 0), row("e", 2, false, true, 1.01), row("f", 2, false, true, 1.5),
  };
  int n = sizeof rows / sizeof *rows;
  cl1_report_stats a;
  cl1_err err = {{0}};
  /* all levels: 6 tasks, 5 correct {0.5, 1.01, 1.5, 2, 8} */
  assert_int_equal(cl1_report_stats_compute(rows, n, 0, 0, false, &a, &err), 0);
  assert_int_equal(a.n_tasks, 6);
  assert_int_equal(a.n_correct, 5);
  NEAR(a.success, 5.0 / 6);
  NEAR(a.mean, 13.01 / 5);
  NEAR(a.median, 1.5);
  NEAR(a.max, 8.0);
  NEAR(a.geomean, pow(2.0 * 0.5 * 8.0 * 1.01 * 1.5, 0.2));
  NEAR(a.over_1_01, 3.0 / 6); /* 1.01 itself is not faster than 1.01x */
  NEAR(a.fast[0], 5.0 / 6);
  NEAR(a.fast[1], 4.0 / 6);
  NEAR(a.fast[2], 2.0 / 6); /* 1.5 is not > 1.5 */
  NEAR(a.fast[3], 1.0 / 6);
  /* without the degenerate task: even count, median of the middle two */
  assert_int_equal(cl1_report_stats_compute(rows, n, 0, 0, true, &a, &err), 0);
  assert_int_equal(a.n_tasks, 5);
  NEAR(a.median, (1.01 + 1.5) / 2);
  NEAR(a.mean, 5.01 / 4);
  NEAR(a.max, 2.0);
  /* one level */
  assert_int_equal(cl1_report_stats_compute(rows, n, 0, 2, false, &a, &err), 0);
  assert_int_equal(a.n_tasks, 2);
  NEAR(a.success, 1.0);
  NEAR(a.over_1_01, 0.5);
  /* a level without correct tasks: shares defined, speedups undefined */
  cl1_report_task fails[] = {row("x", 3, false, false, 0)};
  assert_int_equal(cl1_report_stats_compute(fails, 1, 0, 0, false, &a, &err), 0);
  NEAR(a.success, 0.0);
  NEAR(a.fast[0], 0.0);
  assert_true(isnan(a.mean) && isnan(a.median) && isnan(a.max) && isnan(a.geomean));
  /* no task at all: everything undefined */
  assert_int_equal(cl1_report_stats_compute(rows, n, 0, 7, false, &a, &err), 0);
  assert_int_equal(a.n_tasks, 0);
  assert_true(isnan(a.success) && isnan(a.fast[0]) && isnan(a.over_1_01));
  /* a baseline column: tasks without the baseline's time leave its set */
  rows[0].has[1] = true;
  rows[0].speedup[1] = 3.0;
  rows[3].has[1] = true;
  assert_int_equal(cl1_report_stats_compute(rows, n, 1, 0, false, &a, &err), 0);
  assert_int_equal(a.n_tasks, 2);
  assert_int_equal(a.n_correct, 1);
  NEAR(a.mean, 3.0);
  NEAR(a.success, 0.5);
}

static void test_vs_baseline_is_undefined_without_both_times(void **st) {
  (void)st;
  NEAR(cl1_report_vs_baseline(3.0, 1.5), 2.0);
  assert_true(isnan(cl1_report_vs_baseline(3.0, NAN)));
  assert_true(isnan(cl1_report_vs_baseline(0, 1.0)));
  assert_true(isnan(cl1_report_vs_baseline(1.0, 0)));
}

/* ---- the store ---- */

/* All runs: one section per backend and shape set, cuda before host, then test, small, large. */
static void test_all_runs_sections_by_backend_then_shapes(void **st) {
  th_store *f = *st;
  cl1_report *r = load(f, NULL, NULL, NULL);
  assert_int_equal(r->run, 0);
  assert_int_equal(r->n_runs, 2);
  assert_int_equal(r->n_sec, 3);
  assert_string_equal(r->sec[0].backend, "cuda");
  assert_string_equal(r->sec[0].shapes, "small");
  assert_string_equal(r->sec[1].shapes, "large");
  assert_string_equal(r->sec[2].backend, "host");
  assert_string_equal(r->sec[2].shapes, "test");
  const cl1_report_section *s = &r->sec[0];
  assert_int_equal(s->n_cols, 1);
  assert_string_equal(s->gpus, "NVIDIA H200");
  assert_int_equal(s->n_tasks, 5);
  /* ordered by level, then task number */
  assert_string_equal(s->tasks[0].id, "level1/1_A");
  assert_string_equal(s->tasks[2].id, "level1/3_C");
  assert_string_equal(s->tasks[4].id, TASK_E);
  /* the other sections: only what was evaluated there */
  assert_int_equal(r->sec[1].n_tasks, 1);
  NEAR(r->sec[1].tasks[0].speedup[0], 10.0);
  assert_string_equal(r->sec[2].gpus, "Intel Xeon");
  NEAR(r->sec[2].tasks[0].speedup[0], 1.2);
  char title[512];
  cl1_report_title(r, title, sizeof title);
  assert_non_null(strstr(title, "run 2: replayed completions (not generated)"));
  cl1_report_free(r);
}

/* A task's row: its best pass over all runs with that evaluation's time and flags, and its
 * sample, evaluation and round counts; a task without a pass is not correct. */
static void test_all_runs_task_row_is_best_pass_with_counts(void **st) {
  th_store *f = *st;
  cl1_report *r = load(f, NULL, NULL, NULL);
  const cl1_report_section *s = &r->sec[0];
  const cl1_report_task *a = find_task(s, "level1/1_A");
  assert_true(a->correct);
  NEAR(a->speedup[0], 1.8);
  assert_int_equal(a->best_eval, 4);
  NEAR(a->cand_ms, 2.0);
  assert_string_equal(a->flags, "input_insensitive, x");
  assert_int_equal(a->n_samples, 5);
  assert_int_equal(a->n_evaluated, 4);
  assert_int_equal(a->n_passed, 3);
  assert_int_equal(a->n_evals, 4);
  assert_int_equal(a->n_evals_passed, 3);
  assert_int_equal(a->n_rounds, 3);
  const cl1_report_task *c = find_task(s, "level1/3_C");
  assert_false(c->correct);
  assert_int_equal(c->n_evals, 2);
  assert_int_equal(c->n_evals_passed, 0);
  assert_true(find_task(s, "level1/2_B")->degenerate);
  NEAR(find_task(s, "level2/1_D")->speedup[0], 0.85);
  cl1_report_free(r);
}

/* The summary of the store's section: all levels, without the degenerate task, per level. */
static void test_all_runs_summary_over_levels_and_without_degenerate(void **st) {
  th_store *f = *st;
  cl1_report *r = load(f, NULL, NULL, NULL);
  const cl1_report_section *s = &r->sec[0];
  /* all levels: {1.8, 4.0, 0.85, 1.005} of 5 tasks */
  cl1_report_stats x = stats(s, 0, 0, false);
  assert_int_equal(x.n_tasks, 5);
  assert_int_equal(x.n_correct, 4);
  NEAR(x.mean, 7.655 / 4);
  NEAR(x.median, (1.005 + 1.8) / 2);
  NEAR(x.max, 4.0);
  NEAR(x.geomean, pow(1.8 * 4.0 * 0.85 * 1.005, 0.25));
  NEAR(x.success, 0.8);
  NEAR(x.over_1_01, 0.4);
  NEAR(x.fast[0], 0.8);
  NEAR(x.fast[1], 0.6);
  NEAR(x.fast[2], 0.4);
  NEAR(x.fast[3], 0.2);
  /* without the degenerate B: {1.8, 0.85, 1.005} of 4 */
  x = stats(s, 0, 0, true);
  assert_int_equal(x.n_tasks, 4);
  NEAR(x.mean, 3.655 / 3);
  NEAR(x.median, 1.005);
  NEAR(x.max, 1.8);
  NEAR(x.success, 0.75);
  NEAR(x.over_1_01, 0.25);
  NEAR(x.fast[3], 0.0);
  /* level 1: {1.8, 4.0} of 3; level 2: {0.85, 1.005} of 2 */
  x = stats(s, 0, 1, false);
  assert_int_equal(x.n_tasks, 3);
  NEAR(x.mean, 2.9);
  NEAR(x.success, 2.0 / 3);
  NEAR(x.fast[3], 1.0 / 3);
  x = stats(s, 0, 2, false);
  NEAR(x.mean, (0.85 + 1.005) / 2);
  NEAR(x.over_1_01, 0.0);
  NEAR(x.fast[1], 0.5);
  cl1_report_free(r);
}

/* The rounds, by run, task order, round; a round without a pass has no best. */
static void test_all_runs_rounds_by_run_task_and_round(void **st) {
  th_store *f = *st;
  cl1_report *r = load(f, NULL, NULL, NULL);
  const cl1_report_section *s = &r->sec[0];
  assert_int_equal(s->n_rounds, 12);
  assert_int_equal(s->rounds[0].run, 1);
  assert_string_equal(s->tasks[s->rounds[0].task].id, "level1/1_A");
  assert_true(isnan(s->rounds[0].best));
  NEAR(s->rounds[1].best, 1.5);
  assert_int_equal(s->rounds[10].run, 2);
  NEAR(s->rounds[11].best, 0.85);
  cl1_report_free(r);
}

static void test_run_filter_keeps_its_own_and_reevaluated_solutions(void **st) {
  th_store *f = *st;
  /* run 1: its own solutions only (A's best is 1.5, not run 2's 1.8) */
  cl1_report *r = load(f, "1", NULL, NULL);
  assert_int_equal(r->run, 1);
  assert_int_equal(r->n_sec, 1);
  assert_int_equal(r->n_runs, 1);
  const cl1_report_section *s = &r->sec[0];
  assert_int_equal(s->n_tasks, 5);
  const cl1_report_task *a = find_task(s, "level1/1_A");
  NEAR(a->speedup[0], 1.5);
  assert_int_equal(a->n_samples, 4);
  assert_int_equal(a->n_evaluated, 3);
  assert_int_equal(a->n_passed, 2);
  assert_int_equal(a->n_evals, 3);
  assert_int_equal(a->n_rounds, 2);
  NEAR(find_task(s, "level2/1_D")->speedup[0], 0.85); /* solution 8 is run 1's */
  cl1_report_stats x = stats(s, 0, 0, false);
  NEAR(x.mean, (1.5 + 4.0 + 0.85 + 1.005) / 4);
  assert_int_equal(s->n_rounds, 10);
  char title[512];
  cl1_report_title(r, title, sizeof title);
  assert_null(strstr(title, "replayed"));
  cl1_report_free(r);
  /* run 2 ('latest'): A and D; D's best comes from run 1's solution its sample re-evaluated */
  r = load(f, "latest", NULL, NULL);
  assert_int_equal(r->run, 2);
  s = &r->sec[0];
  assert_int_equal(s->n_tasks, 2);
  NEAR(find_task(s, "level1/1_A")->speedup[0], 1.8);
  const cl1_report_task *d = find_task(s, "level2/1_D");
  NEAR(d->speedup[0], 0.85);
  assert_int_equal(d->n_samples, 2);
  assert_int_equal(d->n_evaluated, 1);
  assert_int_equal(d->n_passed, 1);
  assert_int_equal(d->n_rounds, 1);
  x = stats(s, 0, 0, false);
  NEAR(x.mean, (1.8 + 0.85) / 2);
  NEAR(x.success, 1.0);
  NEAR(x.fast[1], 0.5);
  cl1_report_title(r, title, sizeof title);
  assert_non_null(strstr(title, "run 2, replayed completions (not generated)"));
  cl1_report_free(r);
}

static void test_shape_and_device_filters_keep_one_section(void **st) {
  th_store *f = *st;
  cl1_report *r = load(f, NULL, "large", NULL);
  assert_int_equal(r->n_sec, 1);
  assert_string_equal(r->sec[0].shapes, "large");
  assert_int_equal(r->n_runs, 0); /* no run used large shapes */
  cl1_report_free(r);
  r = load(f, NULL, NULL, "host");
  assert_int_equal(r->n_sec, 1);
  assert_string_equal(r->sec[0].backend, "host");
  cl1_report_free(r);
  const char *m = load_error(f->path, "2", "large");
  assert_non_null(strstr(m, "no results for --shapes large"));
  assert_non_null(strstr(m, "cuda/small"));
}

static void test_baseline_columns_speedups_and_notes(void **st) {
  th_store *f = *st;
  db_exec(f->path, baselines_sql);
  cl1_report *r = load(f, NULL, NULL, NULL);
  const cl1_report_section *s = &r->sec[0];
  /* eager before torch.compile */
  assert_int_equal(s->n_cols, 3);
  assert_string_equal(s->col[0], "reference");
  assert_string_equal(s->col[1], "eager");
  assert_string_equal(s->col[2], "torch.compile");
  const cl1_report_task *a = find_task(s, "level1/1_A");
  NEAR(a->speedup[1], 3.6 / 2.0);
  NEAR(a->speedup[2], 1.0 / 2.0);
  const cl1_report_task *b = find_task(s, "level1/2_B");
  NEAR(b->speedup[1], 2.0);
  assert_false(b->has[2]);
  assert_string_equal(b->note[2], "compile_error: xyz");
  const cl1_report_task *e = find_task(s, TASK_E);
  assert_false(e->has[1]);
  assert_string_equal(e->note[1], "not measured");
  /* eager: A 1.8, B 2.0, C failed, D 2.35 / 5 = 0.47; E left out */
  cl1_report_stats x = stats(s, 1, 0, false);
  assert_int_equal(x.n_tasks, 4);
  assert_int_equal(x.n_correct, 3);
  NEAR(x.mean, (1.8 + 2.0 + 0.47) / 3);
  NEAR(x.max, 2.0);
  NEAR(x.success, 0.75);
  NEAR(x.fast[1], 0.5);
  x = stats(s, 1, 0, true);
  NEAR(x.mean, (1.8 + 0.47) / 2);
  x = stats(s, 2, 0, false);
  assert_int_equal(x.n_tasks, 1);
  NEAR(x.mean, 0.5);
  /* the reference column is untouched; the host section gets no baselines */
  NEAR(stats(s, 0, 0, false).mean, 7.655 / 4);
  assert_int_equal(r->sec[1].n_cols, 2); /* large: eager only */
  NEAR(r->sec[1].tasks[0].speedup[1], 0.5 / 0.1);
  assert_int_equal(r->sec[2].n_cols, 1);
  char *md = NULL;
  cl1_err err = {{0}};
  assert_int_equal(cl1_report_markdown(r, &md, &err), 0);
  assert_non_null(strstr(md, "### Summary vs eager"));
  assert_non_null(strstr(md, "### Summary vs torch.compile"));
  assert_non_null(strstr(md, "1 task without a time for this baseline left out"));
  assert_non_null(strstr(md, "| level1/2_B " DAGGER " | 1 | 4.00x | 2.00x | n/a (compile_error: xyz) |"));
  free(md);
  cl1_report_free(r);
}

/* ---- renderers ---- */

static void test_markdown_summary_task_and_round_rows(void **st) {
  th_store *f = *st;
  cl1_report *r = load(f, NULL, "small", NULL);
  char *md = NULL;
  cl1_err err = {{0}};
  assert_int_equal(cl1_report_markdown(r, &md, &err), 0);
  assert_non_null(strstr(md, "# cudal1 results: all runs (run 2: replayed completions (not generated))"));
  assert_non_null(strstr(md, "## cuda, shapes small"));
  assert_non_null(strstr(md, "### Summary vs C reference"));
  assert_non_null(strstr(md, "| 1 | 3 | 2 | 66.7% | 2.90x | 1.80x | "));
  assert_non_null(strstr(md, "| all | 5 | 4 | 80.0% | 1.91x | 1.22x | 1.57x | 1.40x | 1.00x | "
                             "4.00x | 40.0% | 80.0% | 60.0% | 40.0% | 20.0% |"));
  assert_non_null(strstr(md, "| level1/1_A | 1 | 1.80x | 3/4/5 | 3/4 | 3 | input_insensitive, x |"));
  assert_non_null(strstr(md, "| level1/2_B " DAGGER " | 1 | 4.00x | 1/1/1 | 1/1 | 2 | "));
  assert_non_null(strstr(md, "| level1/3_C | 1 | failed | 0/2/2 | 0/2 | 2 | "));
  /* the escaped id: | and the HTML characters */
  assert_non_null(strstr(md, "| level2/2_&lt;E&gt;&amp;\"x\\|y | 2 | 1.00x |"));
  assert_null(strstr(md, "<E>"));
  /* per round: run 1 has two rounds, A had nothing passing after round 1 */
  assert_non_null(strstr(md, "### Best speedup per round, run 1"));
  assert_non_null(strstr(md, "| level1/1_A | " DASH " | 1.50x |"));
  assert_non_null(strstr(md, "### Best speedup per round, run 2"));
  assert_non_null(strstr(md, "| level2/1_D | 0.85x |"));
  assert_non_null(strstr(md, "run 2: policy replay (replayed completions, not generated)"));
  free(md);
  cl1_report_free(r);
}

static size_t count(const char *s, const char *what) {
  size_t n = 0;
  for (const char *p = s; (p = strstr(p, what)); p++) n++;
  return n;
}

static void test_html_is_self_contained_and_escaped(void **st) {
  th_store *f = *st;
  cl1_report *r = load(f, NULL, NULL, NULL);
  char *h = NULL;
  cl1_err err = {{0}};
  assert_int_equal(cl1_report_html(r, &h, &err), 0);
  assert_int_equal(strncmp(h, "<!DOCTYPE html>", 15), 0);
  assert_non_null(strstr(h, "</body>\n</html>\n"));
  /* self-contained: no scripts, no external references of any kind */
  assert_null(strstr(h, "http:"));
  assert_null(strstr(h, "https:"));
  assert_null(strstr(h, "<script"));
  assert_null(strstr(h, "src="));
  assert_null(strstr(h, "url("));
  assert_null(strstr(h, "<link"));
  /* plots: a distribution per section, a rounds plot per run of the cuda/small section */
  assert_int_equal(count(h, "<svg "), 3 + 2);
  assert_int_equal(count(h, "<svg "), count(h, "</svg>"));
  assert_int_equal(count(h, "<table>"), count(h, "</table>"));
  assert_int_equal(count(h, "<circle "), count(h, "</circle>"));
  assert_non_null(strstr(h, "<style>"));
  /* escaped everywhere, never raw */
  assert_non_null(strstr(h, "level2/2_&lt;E&gt;&amp;&quot;x|y"));
  assert_null(strstr(h, "<E>"));
  assert_null(strstr(h, "&\"x"));
  assert_non_null(strstr(h, "<td class=\"l\">level1/2_B " DAGGER "</td>"));
  assert_non_null(strstr(h, "<td class=\"fail\">failed</td>"));
  assert_non_null(strstr(h, "<td class=\"l\"><b>all</b></td><td>5</td><td>4</td><td>80.0%</td>"
                            "<td>1.91x</td><td>1.22x</td>"));
  assert_non_null(strstr(h, "replayed completions (not generated)"));
  free(h);
  cl1_report_free(r);
}

static void test_json_holds_summary_tasks_and_rounds(void **st) {
  th_store *f = *st;
  cl1_report *r = load(f, NULL, NULL, NULL);
  char *js = NULL;
  cl1_err err = {{0}};
  assert_int_equal(cl1_report_json(r, &js, &err), 0);
  cJSON *d = cJSON_Parse(js);
  assert_non_null(d);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(d, "replayed")));
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(d, "run")));
  cJSON *sec = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "sections"), 0);
  assert_string_equal(cJSON_GetObjectItem(sec, "shapes")->valuestring, "small");
  cJSON *ref = cJSON_GetObjectItem(cJSON_GetObjectItem(sec, "summary"), "reference");
  assert_int_equal(cJSON_GetArraySize(ref), 3); /* level 1, level 2, all */
  cJSON *all = cJSON_GetArrayItem(ref, 2);
  assert_string_equal(cJSON_GetObjectItem(all, "level")->valuestring, "all");
  cJSON *at = cJSON_GetObjectItem(all, "all_tasks");
  NEAR(cJSON_GetObjectItem(at, "mean")->valuedouble, 7.655 / 4);
  NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(at, "fast"), "1.5")->valuedouble, 0.4);
  cJSON *ex = cJSON_GetObjectItem(all, "excl_degenerate");
  NEAR(cJSON_GetObjectItem(ex, "median")->valuedouble, 1.005);
  cJSON *tasks = cJSON_GetObjectItem(sec, "tasks");
  assert_int_equal(cJSON_GetArraySize(tasks), 5);
  cJSON *c = cJSON_GetArrayItem(tasks, 2);
  assert_string_equal(cJSON_GetObjectItem(c, "id")->valuestring, "level1/3_C");
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(c, "correct")));
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "speedup"), "reference")));
  cJSON *a = cJSON_GetArrayItem(tasks, 0);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(a, "flags")), 2);
  assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(a, "flags"), 1)->valuestring, "x");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sec, "rounds")), 12);
  cJSON_Delete(d);
  free(js);
  cl1_report_free(r);
}

/* ---- errors ---- */

static void test_load_errors_name_the_store_and_the_cause(void **st) {
  th_store *f = *st;
  char path[400];
  /* no file */
  snprintf(path, sizeof path, "%s/absent.db", f->dir);
  const char *m = load_error(path, NULL, NULL);
  assert_non_null(strstr(m, "cannot open the store"));
  assert_non_null(strstr(m, path));
  /* a file that is not SQLite */
  snprintf(path, sizeof path, "%s/notes.txt", f->dir);
  assert_int_equal(th_write(path, "these are not the tables you are looking for\n"), 0);
  m = load_error(path, NULL, NULL);
  assert_non_null(strstr(m, "is not a cudal1 store"));
  assert_non_null(strstr(m, path));
  /* SQLite, but not ours */
  snprintf(path, sizeof path, "%s/other.db", f->dir);
  db_exec(path, "CREATE TABLE t(x);");
  m = load_error(path, NULL, NULL);
  assert_non_null(strstr(m, "is not a cudal1 store: it has no meta table"));
  /* ours, but empty */
  snprintf(path, sizeof path, "%s/empty.db", f->dir);
  db_exec(path, schema_sql);
  m = load_error(path, NULL, NULL);
  assert_non_null(strstr(m, "holds no runs or evaluations yet"));
  m = load_error(path, "latest", NULL);
  assert_non_null(strstr(m, "has no runs yet"));
  m = load_error(path, "3", NULL);
  assert_non_null(strstr(m, "no run 3"));
  assert_non_null(strstr(m, "it has no runs"));
  /* unknown run, malformed run */
  m = load_error(f->path, "7", NULL);
  assert_non_null(strstr(m, "no run 7 in "));
  assert_non_null(strstr(m, "its runs: 1, 2"));
  m = load_error(f->path, "seven", NULL);
  assert_non_null(strstr(m, "expected a run id"));
  /* a pass without a speedup is the store's inconsistency, named */
  db_exec(f->path, "INSERT INTO evaluations(id,solution_id,task_id,device,shapes,protocol,verdict,"
                 "speedup,created_at) VALUES(13,6,'level1/3_C','NVIDIA H200','small','{}','pass',"
                 "NULL,'t');");
  m = load_error(f->path, NULL, NULL);
  assert_non_null(strstr(m, "evaluation 13 of task level1/3_C is a pass without a positive speedup"));
}

/* ---- the command line ---- */

static int cli(const char *args, char *out, size_t cap) {
  char cmd[1500];
  snprintf(cmd, sizeof cmd, "%s/cudal1 report %s 2>&1", th_build(), args);
  return th_run(cmd, out, cap);
}

static void test_cli_writes_files_quietly_and_fails_in_one_line(void **st) {
  th_store *f = *st;
  static char out[1 << 16];
  char args[1200];
  snprintf(args, sizeof args, "--db %s --run 2", f->path);
  assert_int_equal(cli(args, out, sizeof out), 0);
  assert_non_null(strstr(out, "# cudal1 results: run 2, replayed completions (not generated)"));
  assert_non_null(strstr(out, "| all | 2 | 2 | 100.0% |"));
  /* files only: nothing on stdout */
  char html[400], json[400];
  snprintf(html, sizeof html, "%s/r.html", f->dir);
  snprintf(json, sizeof json, "%s/r.json", f->dir);
  snprintf(args, sizeof args, "--db %s --shapes small --device cuda --html %s --json %s", f->path,
           html, json);
  assert_int_equal(cli(args, out, sizeof out), 0);
  assert_string_equal(out, "");
  struct stat sb;
  assert_int_equal(stat(html, &sb), 0);
  assert_true(sb.st_size > 1000);
  assert_int_equal(stat(json, &sb), 0);
  assert_true(sb.st_size > 100);
  /* errors: one clear line, exit 2 */
  snprintf(args, sizeof args, "--db %s/absent.db", f->dir);
  assert_int_equal(cli(args, out, sizeof out), 2);
  assert_non_null(strstr(out, "cudal1 report: cannot open the store"));
  assert_int_equal(count(out, "\n"), 1);
  snprintf(args, sizeof args, "--db %s --run 9", f->path);
  assert_int_equal(cli(args, out, sizeof out), 2);
  assert_non_null(strstr(out, "no run 9"));
  snprintf(args, sizeof args, "--db %s", html);
  assert_int_equal(cli(args, out, sizeof out), 2);
  assert_non_null(strstr(out, "is not a cudal1 store"));
  snprintf(args, sizeof args, "--db %s --shapes huge", f->path);
  assert_int_equal(cli(args, out, sizeof out), 2);
  assert_non_null(strstr(out, "--shapes: expected test, small or large"));
}

/* A test on the fixture's store. */
#define report_test(f) cmocka_unit_test_setup_teardown(f, setup, th_store_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_summary_stats_of_task_rows),
      cmocka_unit_test(test_vs_baseline_is_undefined_without_both_times),
      report_test(test_all_runs_sections_by_backend_then_shapes),
      report_test(test_all_runs_task_row_is_best_pass_with_counts),
      report_test(test_all_runs_summary_over_levels_and_without_degenerate),
      report_test(test_all_runs_rounds_by_run_task_and_round),
      report_test(test_run_filter_keeps_its_own_and_reevaluated_solutions),
      report_test(test_shape_and_device_filters_keep_one_section),
      report_test(test_baseline_columns_speedups_and_notes),
      report_test(test_markdown_summary_task_and_round_rows),
      report_test(test_html_is_self_contained_and_escaped),
      report_test(test_json_holds_summary_tasks_and_rounds),
      report_test(test_load_errors_name_the_store_and_the_cause),
      report_test(test_cli_writes_files_quietly_and_fails_in_one_line),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
