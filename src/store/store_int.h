/* store_int.h — what the store's files (store.c: connection, schema, tasks, runs, rounds;
 * store_sample.c: solutions, evaluations, samples, queries; store_score.c: the reward service's
 * scored items; store_train.c: training runs and their events; store_import.c: imported
 * solutions and their claims) share: the handle, the statement and transaction helpers that turn
 * every SQLite failure into one sentence naming the file and the operation, and the migration
 * runner (exposed so that tests can feed it steps of their own). */
#ifndef CL1_STORE_INT_H
#define CL1_STORE_INT_H
#include <pthread.h>
#include "store.h"

/* A prepared statement kept for the next use of the same SQL text: preparing took about 70 % of
 * a scored item's lookup (0.07 of 0.1 ms), and the service looks items up one by one. */
typedef struct {
  char *sql;        /* its text (a copy) */
  sqlite3_stmt *st;
  bool busy;        /* handed out and not yet done: a nested use of the same text prepares anew */
} cl1_store_cached;

#define CL1_STORE_CACHE_CAP 64

struct cl1_store {
  sqlite3 *db;
  pthread_mutex_t mu; /* serialises threads on db; held from begin to end of a transaction */
  pthread_mutex_t cache_mu; /* the cache alone: a read may prepare outside mu */
  cl1_store_cached cache[CL1_STORE_CACHE_CAP];
  int n_cached;
  char path[4096];
};

/* Whether v is one of the '|'-separated words of set. */
bool cl1_store_one_of(const char *v, const char *set);
#define CL1_STORE_DEVICES "cuda|host"
#define CL1_STORE_SHAPES "test|small|large"

/* The time columns' format: ISO-8601 UTC with milliseconds. */
#define CL1_STORE_NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

/* Sets err to "store PATH: op: <sqlite3_errmsg>" and returns -1. Call right after the failing
 * call, while the connection's message is still the one that failure left. */
int cl1_store_fail(cl1_store *s, cl1_err *err, const char *op);
/* Sets err to "store PATH: op: <what>" and returns -1 (a caller's mistake, not SQLite's). */
int cl1_store_bad(cl1_store *s, cl1_err *err, const char *op, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A statement for sql: the store's kept one when it is free, else a new one (kept when there is
 * room). Every statement from prep, query or a raw sqlite3_prepare on s->db ends with
 * cl1_store_done, never sqlite3_finalize. */
int cl1_store_prep(cl1_store *s, const char *sql, sqlite3_stmt **st, const char *op,
                   cl1_err *err);
/* Ends a statement: a kept one is reset, its bindings cleared and left for the next prep of its
 * text; any other is finalized. NULL is a no-op. */
void cl1_store_done(cl1_store *s, sqlite3_stmt *st);
/* Prepares sql and binds its parameters ?1, ?2, ... from the arguments, one letter of types
 * each: 't' const char * (NULL binds NULL), 'i' int, 'I' int64_t, 'd' int64_t id (0 binds NULL),
 * 'r' double (NaN binds NULL). *st is NULL after a failure. */
int cl1_store_query(cl1_store *s, sqlite3_stmt **st, const char *op, cl1_err *err,
                    const char *sql, const char *types, ...);
/* cl1_store_query, then steps the statement to its end (a write: no row) and finalizes it. */
int cl1_store_write(cl1_store *s, const char *op, cl1_err *err, const char *sql,
                    const char *types, ...);
/* Steps once: 1 for a row, 0 for none (done), -1 (err) for a failure. */
int cl1_store_row(cl1_store *s, sqlite3_stmt *st, const char *op, cl1_err *err);
/* Steps a query of at most one row holding one integer into *v (0 when no row or NULL), then
 * finalizes it. */
int cl1_store_one_id(cl1_store *s, sqlite3_stmt *st, const char *op, int64_t *v, cl1_err *err);
/* Runs SQL text with no parameters and no rows wanted. */
int cl1_store_exec(cl1_store *s, const char *sql, const char *op, cl1_err *err);

/* Locks the store and starts a write transaction (BEGIN IMMEDIATE); unlocked again on failure. */
int cl1_store_begin(cl1_store *s, const char *op, cl1_err *err);
/* Ends what begin started: rc == 0 commits (rolling back if COMMIT fails), rc != 0 rolls back
 * keeping err. Unlocks. Returns 0 only when the transaction committed. */
int cl1_store_end(cl1_store *s, int rc, const char *op, cl1_err *err);

/* A copy of text column i into *out (NULL for a NULL column); -1 only when out of memory. */
int cl1_store_col_dup(sqlite3_stmt *st, int i, char **out);

/* The checks and the bodies of a solution put and an evaluation put (store_sample.c), for the
 * one-transaction records built on them (a sample's evaluation, a scored item). The tx_ bodies
 * need the caller's write transaction; tx_solution dedupes on the source's SHA-256. */
int cl1_store_check_solution(cl1_store *s, const char *op, const char *backend,
                             const char *source, const char *origin, cl1_err *err);
int cl1_store_check_eval(cl1_store *s, const char *op, const cl1_store_eval *e, cl1_err *err);
int cl1_store_tx_solution(cl1_store *s, const char *op, const char *task_id,
                          const char *backend, const char *source, const char *origin,
                          const char *parents_json, int64_t run_id, int64_t *sol_id,
                          bool *existed, cl1_err *err);
int cl1_store_tx_eval(cl1_store *s, const char *op, const cl1_store_eval *e, int64_t sol_id,
                      const char *task_id, int64_t *eval_id, cl1_err *err);

/* One migration step: the SQL that takes the schema from version - 1 to version. */
typedef struct {
  int version;
  const char *sql;
} cl1_store_step;

/* Applies steps (versions 1..n, in order) that the file lacks, one transaction each, updating
 * meta.schema_version with each. A version above steps[n-1].version is refused. */
int cl1_store_migrate(cl1_store *s, const cl1_store_step *steps, int n, cl1_err *err);
/* The file's meta.schema_version (0 for an empty file). */
int cl1_store_version(cl1_store *s, int *version, cl1_err *err);

#endif
