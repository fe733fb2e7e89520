/* test_store_stmt.c — the store's kept statements (store.c cl1_store_prep / cl1_store_done): the
 * same SQL text gets the same statement back once it is done; a nested use of one text gets a
 * second statement; a kept statement holds no read snapshot after it is done (a checkpoint from
 * another connection is not blocked, and that connection's writes are seen); more texts than the
 * cache holds all work; and close finalizes what is kept. */
#include "store_fixture.h"
#include <sqlite3.h>
#include "store/store_int.h"

static const char PROTO[] = "{\"service\":\"cudal1 serve/1\",\"backend\":\"host\"}";

static void record_pass(cl1_store *s, const char *source) {
  cl1_err err = {{0}};
  cl1_store_eval e = {.device = "host", .shapes = "test", .protocol_json = PROTO,
                      .verdict = "pass", .speedup = 1.5, .reward_speedup = 1.5, .reward = 1.0,
                      .ref_ms = 1, .cand_ms = 0.66, .spread = 0.1, .wall_s = 0.5};
  cl1_store_score sc = {.item_id = "\"a\"", .task_id = TH_TASK, .backend = "host",
                        .shapes = "test", .status = "ok", .verdict = "pass", .meta_json = "{}",
                        .result_json = "{\"verdict\":\"pass\"}", .reward = 1.0, .score01 = 0.9};
  assert_int_equal(cl1_store_score_record(s, &sc, source, &e, NULL, &err), 0);
}

static bool found(cl1_store *s, const char *source) {
  cl1_err err = {{0}};
  int64_t sol, ev;
  char *text = NULL;
  assert_int_equal(cl1_store_score_find(s, TH_TASK, "host", source, "test", PROTO, &sol, &ev,
                                        &text, NULL, &err), 0);
  free(text);
  return text != NULL;
}

/* One text, prepared, done, prepared again: the same statement; while it is out, a second. */
static void test_one_text_is_kept_and_a_nested_use_gets_its_own(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  static const char sql[] = "SELECT value FROM json_each('[1,2,3]')";
  sqlite3_stmt *a, *b, *c;
  assert_int_equal(cl1_store_prep(f->s, sql, &a, "test", &err), 0);
  assert_int_equal(sqlite3_step(a), SQLITE_ROW);
  /* a's rows half read: the same text again is another statement, and both read all rows */
  assert_int_equal(cl1_store_prep(f->s, sql, &b, "test", &err), 0);
  assert_ptr_not_equal(a, b);
  int n = 0;
  while (sqlite3_step(b) == SQLITE_ROW) n++;
  assert_int_equal(n, 3);
  assert_int_equal(sqlite3_column_count(a), 1);
  assert_int_equal(sqlite3_column_int(a, 0), 1);
  assert_int_equal(sqlite3_step(a), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(a, 0), 2);
  cl1_store_done(f->s, b);
  cl1_store_done(f->s, a);
  /* done: the kept one comes back, from its first row */
  assert_int_equal(cl1_store_prep(f->s, sql, &c, "test", &err), 0);
  assert_ptr_equal(c, a);
  assert_int_equal(sqlite3_step(c), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(c, 0), 1);
  cl1_store_done(f->s, c);
  cl1_store_done(f->s, NULL);
}

/* A lookup steps its statement to one row only. Done, it must have ended its read: another
 * connection can checkpoint the whole log, and its writes are seen by the next lookup. */
static void test_a_done_statement_holds_no_snapshot(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  th_store_seed_task(f->s, TH_TASK, "19_ReLU");
  record_pass(f->s, "int a;");
  record_pass(f->s, "int b;");
  assert_true(found(f->s, "int a;"));
  assert_true(found(f->s, "int b;"));
  cl1_store *other;
  assert_int_equal(cl1_store_open(f->path, &other, &err), 0);
  record_pass(other, "int c;");
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(cl1_store_db(other), "PRAGMA wal_checkpoint(TRUNCATE)", -1,
                                      &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(st, 0), 0);  /* 1: a reader blocked the checkpoint */
  sqlite3_finalize(st);
  cl1_store_close(other);
  assert_true(found(f->s, "int c;"));
  assert_false(found(f->s, "int d;"));
}

/* More distinct texts than the cache keeps: each still prepares, runs and is done; the store then
 * closes with its kept statements finalized (sqlite3_close_v2 would otherwise leave it open). */
static void test_more_texts_than_kept_all_work(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < CL1_STORE_CACHE_CAP + 8; i++) {
      char sql[64];
      snprintf(sql, sizeof sql, "SELECT %d + ?1", i);
      sqlite3_stmt *st;
      assert_int_equal(cl1_store_prep(f->s, sql, &st, "test", &err), 0);
      assert_int_equal(sqlite3_bind_int(st, 1, round), SQLITE_OK);
      assert_int_equal(sqlite3_step(st), SQLITE_ROW);
      assert_int_equal(sqlite3_column_int(st, 0), i + round);
      cl1_store_done(f->s, st);
    }
  sqlite3 *db = cl1_store_db(f->s);
  int kept = 0;
  for (sqlite3_stmt *st = sqlite3_next_stmt(db, NULL); st; st = sqlite3_next_stmt(db, st)) kept++;
  assert_int_equal(kept, CL1_STORE_CACHE_CAP);
  th_store_close(f);
  /* reopened: nothing was left half-closed, and the file is a store */
  assert_int_equal(cl1_store_open(f->path, &f->s, &err), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      th_store_test(test_one_text_is_kept_and_a_nested_use_gets_its_own),
      th_store_test(test_a_done_statement_holds_no_snapshot),
      th_store_test(test_more_texts_than_kept_all_work),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
