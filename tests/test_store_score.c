/* test_store_score.c — the reward service's rows in the store (schema v3): a scored item is
 * recorded with its solution and evaluation in one transaction, and found again only for the
 * same task, backend, source, shapes and protocol. */
#include "store_fixture.h"
#include <math.h>

static const char PROTO[] = "{\"service\":\"cudal1 serve/1\",\"backend\":\"host\"}";

static cl1_store_eval pass_eval(void) {
  cl1_store_eval e = {.device = "host", .shapes = "test", .protocol_json = PROTO,
                      .verdict = "pass", .speedup = 1.25, .reward_speedup = 1.25, .reward = 1.25,
                      .ref_ms = 1, .cand_ms = 0.8, .spread = 0.1, .wall_s = 0.5};
  return e;
}

static cl1_store_score score_row(const char *status, const char *result) {
  cl1_store_score sc = {.item_id = "\"a\"", .task_id = TH_TASK, .backend = "host",
                        .shapes = "test", .status = status, .verdict = "pass",
                        .meta_json = "{\"step\":3}", .result_json = result, .reward = 0.5,
                        .score01 = 0.83};
  return sc;
}

static long count(cl1_store *s, const char *sql) {
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(cl1_store_db(s), sql, -1, &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  long n = (long)sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

/* The record writes solution, evaluation and item; find returns the answer for the same key. */
static void test_recorded_answer_is_found_for_the_same_key(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  th_store_seed_task(f->s, TH_TASK, "19_ReLU");
  cl1_store_eval e = pass_eval();
  cl1_store_score sc = score_row("ok", "{\"verdict\":\"pass\"}");
  int64_t id;
  assert_int_equal(cl1_store_score_record(f->s, &sc, "int x;", &e, &id, &err), 0);
  assert_true(id > 0);
  assert_int_equal(count(f->s, "SELECT count(*) FROM solutions WHERE origin = 'served'"), 1);
  assert_int_equal(count(f->s, "SELECT count(*) FROM evaluations"), 1);
  assert_int_equal(count(f->s, "SELECT count(*) FROM scores WHERE meta = '{\"step\":3}'"), 1);
  int64_t sol, ev;
  char *text;
  double paid = -1;
  assert_int_equal(cl1_store_score_find(f->s, TH_TASK, "host", "int x;", "test", PROTO, &sol, &ev,
                                        &text, &paid, &err), 0);
  assert_non_null(text);
  assert_true(paid == e.reward_speedup);  /* what the cached answer's reward is paid on */
  assert_string_equal(text, "{\"verdict\":\"pass\"}");
  assert_true(sol > 0 && ev > 0);
  free(text);
  /* another source, shapes or protocol: nothing */
  const char *other[][3] = {{"int y;", "test", PROTO}, {"int x;", "small", PROTO},
                            {"int x;", "test", "{}"}};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(cl1_store_score_find(f->s, TH_TASK, "host", other[i][0], other[i][1],
                                          other[i][2], &sol, &ev, &text, NULL, &err), 0);
    assert_null(text);
    assert_int_equal(ev, 0);
  }
}

/* A cached answer is a row of its own on the same evaluation, and is never what find returns;
 * an infra_error row has no evaluation to find. */
static void test_cached_and_infra_rows_are_recorded_not_found(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  th_store_seed_task(f->s, TH_TASK, "19_ReLU");
  cl1_store_score infra = score_row("infra_error", "{\"status\":\"infra_error\"}");
  infra.verdict = "infra_error";
  infra.reward = infra.score01 = NAN;
  assert_int_equal(cl1_store_score_record(f->s, &infra, "int z;", NULL, NULL, &err), 0);
  int64_t sol, ev;
  char *text;
  assert_int_equal(cl1_store_score_find(f->s, TH_TASK, "host", "int z;", "test", PROTO, &sol, &ev,
                                        &text, NULL, &err), 0);
  assert_null(text);
  assert_int_equal(count(f->s, "SELECT count(*) FROM scores WHERE reward IS NULL"), 1);
  cl1_store_eval e = pass_eval();
  cl1_store_score first = score_row("ok", "{\"n\":1}");
  assert_int_equal(cl1_store_score_record(f->s, &first, "int z;", &e, NULL, &err), 0);
  assert_int_equal(cl1_store_score_find(f->s, TH_TASK, "host", "int z;", "test", PROTO, &sol, &ev,
                                        &text, NULL, &err), 0);
  assert_string_equal(text, "{\"n\":1}");
  free(text);
  cl1_store_score again = score_row("ok", "{\"n\":2}");
  again.cached = true, again.solution_id = sol, again.evaluation_id = ev;
  assert_int_equal(cl1_store_score_record(f->s, &again, NULL, NULL, NULL, &err), 0);
  assert_int_equal(cl1_store_score_find(f->s, TH_TASK, "host", "int z;", "test", PROTO, &sol, &ev,
                                        &text, NULL, &err), 0);
  assert_string_equal(text, "{\"n\":1}");
  free(text);
  assert_int_equal(count(f->s, "SELECT count(*) FROM scores WHERE cached = 1"), 1);
}

/* Refusals name the field and store nothing. */
/* The service's group commit: answers from the store recorded together, or none of them. */
static void test_many_cached_rows_commit_together_or_not_at_all(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  th_store_seed_task(f->s, TH_TASK, "19_ReLU");
  cl1_store_eval e = pass_eval();
  cl1_store_score first = score_row("ok", "{\"n\":1}");
  assert_int_equal(cl1_store_score_record(f->s, &first, "int w;", &e, NULL, &err), 0);
  int64_t sol, ev;
  char *text;
  assert_int_equal(cl1_store_score_find(f->s, TH_TASK, "host", "int w;", "test", PROTO, &sol, &ev,
                                        &text, NULL, &err), 0);
  free(text);
  cl1_store_score rows[3];
  const cl1_store_score *ptr[3];
  for (int i = 0; i < 3; i++) {
    rows[i] = score_row("ok", "{\"n\":1}");
    rows[i].cached = true, rows[i].solution_id = sol, rows[i].evaluation_id = ev;
    ptr[i] = &rows[i];
  }
  int64_t ids[3] = {0};
  assert_int_equal(cl1_store_score_record_many(f->s, ptr, 3, ids, &err), 0);
  assert_int_equal(count(f->s, "SELECT count(*) FROM scores WHERE cached = 1"), 3);
  assert_true(ids[0] > 0 && ids[1] == ids[0] + 1 && ids[2] == ids[1] + 1);  /* each row's id */
  rows[2].evaluation_id = 0;  /* not an answer from the store: the group is refused */
  assert_int_equal(cl1_store_score_record_many(f->s, ptr, 3, NULL, &err), -1);
  assert_non_null(strstr(err.msg, "item 2"));
  rows[2].evaluation_id = 987654;  /* no such evaluation: the insert fails, nothing is kept */
  assert_int_equal(cl1_store_score_record_many(f->s, ptr, 3, NULL, &err), -1);
  assert_int_equal(count(f->s, "SELECT count(*) FROM scores WHERE cached = 1"), 3);
  /* a request settled: two rows paid again together; a bad one leaves every row as it was */
  double rw[2] = {0.75, -0.25}, s01[2] = {0.8, 0.4};
  const char *texts[2] = {"{\"reward\":0.75}", "{\"reward\":-0.25}"};
  assert_int_equal(cl1_store_score_repaid(f->s, ids, rw, s01, texts, 2, &err), 0);
  assert_int_equal(count(f->s, "SELECT count(*) FROM scores WHERE reward = 0.75 AND score01 = 0.8"
                               " AND result = '{\"reward\":0.75}'"), 1);
  assert_int_equal(count(f->s, "SELECT count(*) FROM scores WHERE reward = -0.25"), 1);
  rw[1] = NAN;
  assert_int_equal(cl1_store_score_repaid(f->s, ids, rw, s01, texts, 2, &err), -1);
  assert_non_null(strstr(err.msg, "item 1"));
  assert_int_equal(count(f->s, "SELECT count(*) FROM scores WHERE reward = -0.25"), 1);
}

static void test_bad_rows_are_refused_by_name(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  th_store_seed_task(f->s, TH_TASK, "19_ReLU");
  cl1_store_score sc = score_row("maybe", "{}");
  assert_int_equal(cl1_store_score_record(f->s, &sc, NULL, NULL, NULL, &err), -1);
  assert_non_null(strstr(err.msg, "status 'maybe'"));
  sc = score_row("ok", "{}");
  cl1_store_eval e = pass_eval();
  assert_int_equal(cl1_store_score_record(f->s, &sc, NULL, &e, NULL, &err), -1);
  assert_non_null(strstr(err.msg, "without its source"));
  sc.task_id = "level1/nope";
  assert_int_equal(cl1_store_score_record(f->s, &sc, "int q;", &e, NULL, &err), -1);
  assert_non_null(strstr(err.msg, "not in the store"));
  assert_int_equal(count(f->s, "SELECT count(*) FROM scores"), 0);
  assert_int_equal(count(f->s, "SELECT count(*) FROM solutions"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      th_store_test(test_recorded_answer_is_found_for_the_same_key),
      th_store_test(test_cached_and_infra_rows_are_recorded_not_found),
      th_store_test(test_many_cached_rows_commit_together_or_not_at_all),
      th_store_test(test_bad_rows_are_refused_by_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
