/* test_baselines.c — `cudal1 baselines import` (issue 6): a fixture file imports into the store
 * (idempotently), speedups against a baseline go through the reference timed beside it, failed
 * modes say why, `cudal1 report` shows the baseline columns, and every schema error names the
 * file and the field and imports nothing. Each test has its own store (store_fixture.h). */
#include <math.h>
#include <sqlite3.h>
#include "harness.h"
#include "loop/baselines.h"
#include "store/store.h"
#include "store_fixture.h"

#define FIXTURE "tests/baselines/fixture-small.json"

static int count(const char *db, const char *sql) {
  sqlite3 *h;
  sqlite3_stmt *st;
  int n = -1;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return n;
}

/* The fixture imported into the fixture's store: 4 baseline times and 2 failed modes. */
static void import_fixture(cl1_store *s) {
  cl1_err err = {{0}};
  int ok, failed;
  assert_int_equal(cl1_baselines_import(s, FIXTURE, &ok, &failed, &err), 0);
  assert_int_equal(ok, 4);
  assert_int_equal(failed, 2);
}

/* Importing the same file twice updates the rows in place. */
static void test_import_is_idempotent(void **state) {
  th_store *f = *state;
  import_fixture(f->s);
  import_fixture(f->s); /* upsert */
  th_store_close(f);
  assert_int_equal(count(f->path, "SELECT count(*) FROM baselines"), 6);
  assert_int_equal(count(f->path, "SELECT count(*) FROM baselines WHERE status = 'ok'"), 4);
}

/* A speedup against a baseline goes through the reference timed beside it; a failed or missing
 * mode says why. */
static void test_vs_baseline_uses_the_reference_timed_beside_it(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  import_fixture(s);
  double x;
  char why[400];
  /* 2x the reference; eager took 1.5x the reference's time beside it: 3x eager */
  assert_int_equal(cl1_baselines_vs(s, "level1/19_ReLU", "small", "eager", 2.0, &x, why, sizeof why, &err), 0);
  assert_true(fabs(x - 3.0) < 1e-9);
  /* graph has its own reference time beside it (0.025 ms): 2 * 0.010 / 0.025 */
  assert_int_equal(cl1_baselines_vs(s, "level1/19_ReLU", "small", "graph", 2.0, &x, why, sizeof why, &err), 0);
  assert_true(fabs(x - 0.8) < 1e-9);
  assert_int_equal(cl1_baselines_vs(s, "level1/19_ReLU", "small", "reduce-overhead", 2.0, &x, why, sizeof why, &err), 1);
  assert_non_null(strstr(why, "compile_error"));
  assert_int_equal(cl1_baselines_vs(s, "level1/19_ReLU", "large", "eager", 2.0, &x, why, sizeof why, &err), 1);
  assert_non_null(strstr(why, "not measured"));
}

/* The report: a pass at 2x the reference on the GPU gets the baseline columns. */
static void test_report_shows_baseline_columns(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  import_fixture(s);
  int64_t sol, ev;
  bool existed;
  assert_int_equal(cl1_store_solution_put(s, "level1/19_ReLU", "cuda", "// x\n", "import", NULL, 0, 0,
                                          &sol, &existed, &err), 0);
  cl1_store_eval e = {.solution_id = sol, .task_id = "level1/19_ReLU", .device = "NVIDIA H200",
                      .shapes = "small", .protocol_json = "{}", .verdict = "pass", .speedup = 2.0,
                      .reward_speedup = 2.0, .reward = 2.0, .ref_ms = 0.02, .cand_ms = 0.01,
                      .spread = 0.01, .wall_s = 1};
  assert_int_equal(cl1_store_eval_put(s, &e, &ev, &err), 0);
  th_store_close(f);
  char cmd[600], out[1 << 16];
  snprintf(cmd, sizeof cmd, "%s/cudal1 report --db %s 2>&1", th_build(), f->path);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "eager"));
  assert_non_null(strstr(out, "3.00x"));
}

/* Each broken file: one message naming the file and the field; nothing imported. */
static void test_import_schema_errors_name_file_and_field_and_import_nothing(void **state) {
  th_store *fx = *state;
  const char *db = fx->path;
  char f[300], cmd[900], out[4096];
  snprintf(f, sizeof f, "%s/bad.json", fx->dir);
  struct { const char *text, *want; } cases[] = {
      {"not json", "not JSON"},
      {"{\"results\": []}", "shapes"},
      {"{\"shapes\": \"small\"}", "results: expected an array"},
      {"{\"shapes\": \"small\", \"results\": [{\"modes\": {}}]}", "results[0].task"},
      {"{\"shapes\": \"small\", \"results\": [{\"task\": \"level1/no_such\", \"modes\": {}}]}", "results[0].task"},
      {"{\"shapes\": \"small\", \"results\": [{\"task\": \"level1/19_ReLU\"}]}", "results[0].modes"},
      {"{\"shapes\": \"small\", \"results\": [{\"task\": \"level1/19_ReLU\", \"modes\": {\"eager\": {\"status\": \"ok\"}}}]}",
       "results[0].modes.eager.median_ms"},
      {"{\"shapes\": \"small\", \"results\": [{\"task\": \"level1/19_ReLU\", \"modes\": {\"eager\": {\"median_ms\": 1}}}]}",
       "results[0].modes.eager.status"},
      {"{\"shapes\": \"small\", \"results\": [{\"task\": \"level1/19_ReLU\", \"ref_ms\": -1, \"modes\": {}}]}",
       "results[0].ref_ms"},
      {"{\"shapes\": \"small\", \"results\": [{\"task\": \"level1/19_ReLU\", \"modes\": {\"eager\": {\"status\": \"ok\", "
       "\"median_ms\": 0.1}}}, {\"task\": \"level1/19_ReLU\", \"modes\": {\"graph\": {\"status\": \"ok\", \"median_ms\": -2}}}]}",
       "results[1].modes.graph.median_ms"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    assert_int_equal(th_write(f, cases[i].text), 0);
    snprintf(cmd, sizeof cmd, "%s/cudal1 baselines import %s --db %s 2>&1", th_build(), f, db);
    int rc = th_run(cmd, out, sizeof out);
    if (rc != 2 || !strstr(out, cases[i].want) || !strstr(out, f))
      fail_msg("case %zu: exit %d: %s (wanted '%s')", i, rc, out, cases[i].want);
    assert_int_equal(count(db, "SELECT count(*) FROM baselines"), 0);
  }
}

/* The CLI imports a good file, refuses a missing one and more files than one import takes (by
 * name, none dropped silently). */
static void test_import_cli_good_missing_and_too_many_files(void **state) {
  th_store *fx = *state;
  const char *db = fx->path, *dir = fx->dir;
  char cmd[900], out[4096];
  snprintf(cmd, sizeof cmd, "%s/cudal1 baselines import " FIXTURE " --db %s 2>&1", th_build(), db);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "4 baseline times, 2 failed modes"));
  snprintf(cmd, sizeof cmd, "%s/cudal1 baselines import %s/none.json --db %s 2>&1", th_build(), dir, db);
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "none.json"));
  static char many[257 * sizeof(" " FIXTURE) + 512];
  int k = snprintf(many, sizeof many, "%s/cudal1 baselines import --db %s/many.db", th_build(), dir);
  for (int i = 0; i < 257; i++) k += snprintf(many + k, sizeof many - (size_t)k, " " FIXTURE);
  snprintf(many + k, sizeof many - (size_t)k, " 2>&1");
  assert_int_equal(th_run(many, out, sizeof out), 2);
  assert_non_null(strstr(out, "at most 256 files"));
}

/* Baselines are GPU times: eval --baseline on the host is a usage error. */
static void test_eval_baseline_needs_the_cuda_device(void **state) {
  th_store *fx = *state;
  char cmd[900], out[4096];
  snprintf(cmd, sizeof cmd, "%s/cudal1 eval --task level1/19_ReLU --solution tests/legit/host/19_ReLU.c "
           "--device host --shapes test --baseline eager --db %s 2>&1", th_build(), fx->path);
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--device cuda"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      th_store_test(test_import_is_idempotent),
      th_store_test(test_vs_baseline_uses_the_reference_timed_beside_it),
      th_store_test(test_report_shows_baseline_columns),
      th_store_path_test(test_import_schema_errors_name_file_and_field_and_import_nothing),
      th_store_path_test(test_import_cli_good_missing_and_too_many_files),
      th_store_path_test(test_eval_baseline_needs_the_cuda_device),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
