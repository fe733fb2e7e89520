/* store_query.h — reading a store from a test: one number or one text from a query on the file
 * (read-only, waiting out a writer's lock); a query that fails fails the test, naming it. */
#ifndef CL1_TEST_STORE_QUERY_H
#define CL1_TEST_STORE_QUERY_H
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include "harness.h"

static inline double q_num(const char *db_path, const char *sql) {
  sqlite3 *db;
  sqlite3_stmt *st;
  double v = NAN;
  assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_double(st, 0);
  else
    fail_msg("%s: %s", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

/* The first column of the first row into buf ("" when there is none or it is NULL). */
static inline char *q_text(const char *db_path, const char *sql, char *buf, size_t n) {
  sqlite3 *db;
  sqlite3_stmt *st;
  buf[0] = 0;
  assert_int_equal(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
    fail_msg("%s: %s", sql, sqlite3_errmsg(db));
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    snprintf(buf, n, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return buf;
}
#endif
