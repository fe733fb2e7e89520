/* store_score.c — the reward service's items (schema v3, `cudal1 serve`): each answered item is
 * recorded with its solution and evaluation in one transaction, and an earlier answer for the
 * same code under the same protocol is found again, which makes scoring idempotent across
 * retries and restarts. */
#include "store_int.h"
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../base/hash.h"

static int check_score(cl1_store *s, const char *op, const cl1_store_score *sc, cl1_err *err) {
  if (!sc->task_id || !*sc->task_id) return cl1_store_bad(s, err, op, "no task id");
  if (!cl1_store_one_of(sc->backend, CL1_STORE_DEVICES))
    return cl1_store_bad(s, err, op, "backend '%s' is not cuda or host",
                         sc->backend ? sc->backend : "");
  if (!cl1_store_one_of(sc->shapes, CL1_STORE_SHAPES))
    return cl1_store_bad(s, err, op, "shapes '%s' is not test, small or large",
                         sc->shapes ? sc->shapes : "");
  if (!cl1_store_one_of(sc->status, "ok|infra_error"))
    return cl1_store_bad(s, err, op, "status '%s' is not ok or infra_error",
                         sc->status ? sc->status : "");
  if (!sc->verdict || !*sc->verdict) return cl1_store_bad(s, err, op, "no verdict");
  if (!sc->result_json) return cl1_store_bad(s, err, op, "no result");
  return 0;
}

/* The body of a record; the caller holds the write transaction. */
static int record(cl1_store *s, const char *op, const cl1_store_score *sc, const char *source,
                  const cl1_store_eval *e, int64_t *score_id, cl1_err *err) {
  int64_t sol = sc->solution_id, ev = sc->evaluation_id;
  bool existed;
  if (source && cl1_store_tx_solution(s, op, sc->task_id, sc->backend, source, "served", "[]", 0,
                                      &sol, &existed, err))
    return -1;
  if (e && cl1_store_tx_eval(s, op, e, sol, sc->task_id, &ev, err)) return -1;
  if (cl1_store_write(s, op, err,
                      "INSERT INTO scores(item_id, task_id, backend, shapes, solution_id,"
                      " evaluation_id, completion, status, verdict, reward, score01, cached, meta,"
                      " result, created_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
                      " ?12, ?13, ?14, " CL1_STORE_NOW ")",
                      "ttttddtttrritt", sc->item_id, sc->task_id, sc->backend, sc->shapes, sol, ev,
                      sc->completion, sc->status, sc->verdict, sc->reward, sc->score01,
                      sc->cached ? 1 : 0, sc->meta_json, sc->result_json))
    return -1;
  if (score_id) *score_id = sqlite3_last_insert_rowid(s->db);
  return 0;
}

int cl1_store_score_record(cl1_store *s, const cl1_store_score *sc, const char *source,
                           const cl1_store_eval *e, int64_t *score_id, cl1_err *err) {
  char op[256];
  snprintf(op, sizeof op, "record scored item of %s", sc->task_id ? sc->task_id : "?");
  if (score_id) *score_id = 0;
  if (check_score(s, op, sc, err)) return -1;
  if (source && cl1_store_check_solution(s, op, sc->backend, source, "served", err)) return -1;
  if (e && !source) return cl1_store_bad(s, err, op, "an evaluation without its source");
  if (e && cl1_store_check_eval(s, op, e, err)) return -1;
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = record(s, op, sc, source, e, score_id, err);
  return cl1_store_end(s, rc, op, err);
}

int cl1_store_score_record_many(cl1_store *s, const cl1_store_score *const *sc, int n,
                                int64_t *ids, cl1_err *err) {
  static const char op[] = "record scored items answered from the store";
  for (int i = 0; i < n; i++) {
    if (check_score(s, op, sc[i], err)) return -1;
    if (!sc[i]->solution_id || !sc[i]->evaluation_id)
      return cl1_store_bad(s, err, op, "item %d: no stored solution and evaluation", i);
  }
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) rc = record(s, op, sc[i], NULL, NULL, ids ? &ids[i] : NULL, err);
  return cl1_store_end(s, rc, op, err);
}

int cl1_store_score_repaid(cl1_store *s, const int64_t *ids, const double *reward,
                           const double *score01, const char *const *result_json, int n,
                           cl1_err *err) {
  static const char op[] = "record a request's passes paid again";
  for (int i = 0; i < n; i++)
    if (ids[i] <= 0 || !result_json[i] || !isfinite(reward[i]) || !isfinite(score01[i]))
      return cl1_store_bad(s, err, op, "item %d: no row, answer or finite reward", i);
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++)
    rc = cl1_store_write(s, op, err, "UPDATE scores SET reward = ?1, score01 = ?2, result = ?3"
                         " WHERE id = ?4", "rrtI", reward[i], score01[i], result_json[i], ids[i]);
  return cl1_store_end(s, rc, op, err);
}

int cl1_store_score_find(cl1_store *s, const char *task_id, const char *backend,
                         const char *source, const char *shapes, const char *protocol,
                         int64_t *sol_id, int64_t *eval_id, char **result_json,
                         double *reward_speedup, cl1_err *err) {
  static const char op[] = "find an earlier score";
  *sol_id = *eval_id = 0;
  *result_json = NULL;
  if (reward_speedup) *reward_speedup = 0;
  if (!task_id || !backend || !source || !shapes || !protocol)
    return cl1_store_bad(s, err, op, "task, backend, source, shapes and protocol are required");
  cl1_sha *h = cl1_sha_new();
  if (!h) return cl1_store_bad(s, err, op, "cannot start a SHA-256 (OpenSSL)");
  char hash[65];
  cl1_sha_add(h, source, strlen(source)); /* as the solution put hashes it */
  cl1_sha_hex(h, hash);
  sqlite3_stmt *st;
  cl1_store_lock(s);
  int rc = cl1_store_query(
      s, &st, op, err,
      "SELECT so.id, e.id, sc.result, e.reward_speedup FROM solutions so"
      " JOIN evaluations e ON e.solution_id = so.id"
      " JOIN scores sc ON sc.evaluation_id = e.id AND sc.cached = 0 AND sc.status = 'ok'"
      " WHERE so.task_id = ?1 AND so.backend = ?2 AND so.hash = ?3 AND e.shapes = ?4"
      " AND e.protocol = ?5 ORDER BY e.id DESC, sc.id LIMIT 1",
      "ttttt", task_id, backend, hash, shapes, protocol);
  if (!rc) {
    int r = cl1_store_row(s, st, op, err);
    if (r < 0) rc = -1;
    if (r == 1) {
      *sol_id = sqlite3_column_int64(st, 0);
      *eval_id = sqlite3_column_int64(st, 1);
      if (reward_speedup) *reward_speedup = sqlite3_column_double(st, 3);
      if (cl1_store_col_dup(st, 2, result_json)) rc = cl1_store_bad(s, err, op, "out of memory");
    }
    cl1_store_done(s, st);
  }
  cl1_store_unlock(s);
  return rc;
}
