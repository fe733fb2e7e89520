/* store_sample.c — the store's solutions (deduplicated by content hash), evaluations and samples,
 * the one-transaction record of an evaluated sample that makes a kill lose nothing but samples in
 * flight, and the queries the loop asks: best solution, successes for exemplars, pending
 * samples. */
#include "store_int.h"
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../base/hash.h"

/* ---- solutions ---------------------------------------------------------------------------- */

/* "[1,2,3]" (malloc'd) */
static char *ids_json(const int64_t *ids, int n) {
  size_t cap = 3 + (size_t)n * 22, len = 1;
  char *j = malloc(cap);
  if (!j) return NULL;
  j[0] = '[';
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(j + len, cap - len, "%s%" PRId64, i ? "," : "", ids[i]);
  assert(len + 2 <= cap);
  memcpy(j + len, "]", 2);
  return j;
}

int cl1_store_check_solution(cl1_store *s, const char *op, const char *backend,
                             const char *source, const char *origin, cl1_err *err) {
  if (!cl1_store_one_of(backend, CL1_STORE_DEVICES))
    return cl1_store_bad(s, err, op, "backend '%s' is not cuda or host", backend ? backend : "");
  if (!source || !*source) return cl1_store_bad(s, err, op, "empty source");
  if (!cl1_store_one_of(origin, "generated|replayed|example|import|served"))
    return cl1_store_bad(s, err, op,
                         "origin '%s' is not generated, replayed, example, import or served",
                         origin ? origin : "");
  return 0;
}

static int task_exists(cl1_store *s, const char *op, const char *task_id, cl1_err *err) {
  sqlite3_stmt *st;
  int64_t one = 0;
  if (cl1_store_query(s, &st, op, err, "SELECT 1 FROM tasks WHERE id = ?1", "t", task_id) ||
      cl1_store_one_id(s, st, op, &one, err))
    return -1;
  if (!one) return cl1_store_bad(s, err, op, "task %s is not in the store", task_id);
  return 0;
}

/* The body of a solution put; the caller holds a write transaction. */
int cl1_store_tx_solution(cl1_store *s, const char *op, const char *task_id,
                          const char *backend, const char *source, const char *origin,
                          const char *parents_json, int64_t run_id, int64_t *sol_id,
                          bool *existed, cl1_err *err) {
  assert(!sqlite3_get_autocommit(s->db));
  cl1_sha *h = cl1_sha_new();
  if (!h) return cl1_store_bad(s, err, op, "cannot start a SHA-256 (OpenSSL)");
  char hash[65];
  cl1_sha_add(h, source, strlen(source));
  cl1_sha_hex(h, hash);
  if (task_exists(s, op, task_id, err)) return -1;
  sqlite3_stmt *st;
  if (cl1_store_query(s, &st, op, err,
                      "SELECT id FROM solutions WHERE task_id = ?1 AND backend = ?2 AND hash = ?3",
                      "ttt", task_id, backend, hash) ||
      cl1_store_one_id(s, st, op, sol_id, err))
    return -1;
  *existed = *sol_id != 0;
  if (*existed) return 0;
  if (cl1_store_write(s, op, err,
                      "INSERT INTO solutions(task_id, backend, hash, source, origin, parent_ids,"
                      " run_id, created_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, " CL1_STORE_NOW ")",
                      "ttttttd", task_id, backend, hash, source, origin, parents_json, run_id))
    return -1;
  *sol_id = sqlite3_last_insert_rowid(s->db);
  assert(*sol_id > 0);
  return 0;
}

int cl1_store_solution_put(cl1_store *s, const char *task_id, const char *backend,
                           const char *source, const char *origin, const int64_t *parent_ids,
                           int n_parents, int64_t run_id, int64_t *sol_id, bool *existed,
                           cl1_err *err) {
  char op[256];
  snprintf(op, sizeof op, "put solution for %s", task_id ? task_id : "?");
  *sol_id = 0;
  *existed = false;
  if (!task_id || !*task_id) return cl1_store_bad(s, err, op, "no task id");
  if (cl1_store_check_solution(s, op, backend, source, origin, err)) return -1;
  if (n_parents < 0 || (n_parents > 0 && !parent_ids))
    return cl1_store_bad(s, err, op, "bad parent list (%d ids)", n_parents);
  char *parents = ids_json(parent_ids, n_parents);
  if (!parents) return cl1_store_bad(s, err, op, "out of memory");
  int64_t id = 0;
  bool had = false;
  int rc = cl1_store_begin(s, op, err);
  if (!rc) {
    rc = cl1_store_tx_solution(s, op, task_id, backend, source, origin, parents, run_id, &id,
                               &had, err);
    rc = cl1_store_end(s, rc, op, err);
  }
  free(parents);
  if (rc) return -1;
  *sol_id = id;
  *existed = had;
  return 0;
}

int cl1_store_solution_source(cl1_store *s, int64_t sol_id, char **source, cl1_err *err) {
  static const char op[] = "read solution source";
  *source = NULL;
  sqlite3_stmt *st;
  cl1_store_lock(s);
  int rc = cl1_store_query(s, &st, op, err, "SELECT source FROM solutions WHERE id = ?1", "I",
                           sol_id);
  if (!rc) {
    int r = cl1_store_row(s, st, op, err);
    if (r < 0) rc = -1;
    if (r == 0)
      rc = cl1_store_bad(s, err, op, "solution %" PRId64 " is not in the store", sol_id);
    if (r == 1 && cl1_store_col_dup(st, 0, source))
      rc = cl1_store_bad(s, err, op, "out of memory");
    cl1_store_done(s, st);
  }
  cl1_store_unlock(s);
  return rc;
}

/* ---- evaluations -------------------------------------------------------------------------- */

int cl1_store_check_eval(cl1_store *s, const char *op, const cl1_store_eval *e, cl1_err *err) {
  if (!e->device || !*e->device) return cl1_store_bad(s, err, op, "no device");
  if (!cl1_store_one_of(e->shapes, CL1_STORE_SHAPES))
    return cl1_store_bad(s, err, op, "shapes '%s' is not test, small or large",
                         e->shapes ? e->shapes : "");
  if (!e->protocol_json || !*e->protocol_json) return cl1_store_bad(s, err, op, "no protocol");
  if (!e->verdict || !*e->verdict) return cl1_store_bad(s, err, op, "no verdict");
  /* the queries rank passing evaluations by speedup: one without it would be invisible */
  if (!strcmp(e->verdict, "pass") && !(isfinite(e->speedup) && e->speedup > 0))
    return cl1_store_bad(s, err, op, "a pass with speedup %g", e->speedup);
  return 0;
}

/* Inserts e for solution sol_id of task_id; the caller holds a write transaction. */
int cl1_store_tx_eval(cl1_store *s, const char *op, const cl1_store_eval *e, int64_t sol_id,
                      const char *task_id, int64_t *eval_id, cl1_err *err) {
  assert(!sqlite3_get_autocommit(s->db));
  if (cl1_store_write(s, op, err,
                      "INSERT INTO evaluations(solution_id, task_id, device, driver, shapes,"
                      " protocol, verdict, message, speedup, reward_speedup, reward, ref_ms,"
                      " cand_ms, spread, flags, result_json, wall_s, created_at)"
                      " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
                      " coalesce(?15, '[]'), ?16, ?17, " CL1_STORE_NOW
                      " FROM solutions WHERE id = ?1 AND task_id = ?2",
                      "Itttttttrrrrrrttr", sol_id, task_id, e->device, e->driver, e->shapes,
                      e->protocol_json, e->verdict, e->message, e->speedup, e->reward_speedup,
                      e->reward, e->ref_ms, e->cand_ms, e->spread, e->flags_json, e->result_json,
                      e->wall_s))
    return -1;
  if (sqlite3_changes(s->db) == 0)
    return cl1_store_bad(s, err, op, "solution %" PRId64 " is not a solution of task %s", sol_id,
                         task_id);
  *eval_id = sqlite3_last_insert_rowid(s->db);
  assert(*eval_id > 0);
  return 0;
}

int cl1_store_eval_put(cl1_store *s, const cl1_store_eval *e, int64_t *eval_id, cl1_err *err) {
  char op[256];
  snprintf(op, sizeof op, "put evaluation of solution %" PRId64, e->solution_id);
  *eval_id = 0;
  if (!e->task_id || !*e->task_id) return cl1_store_bad(s, err, op, "no task id");
  if (cl1_store_check_eval(s, op, e, err)) return -1;
  int64_t id = 0;
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = cl1_store_tx_eval(s, op, e, e->solution_id, e->task_id, &id, err);
  if (cl1_store_end(s, rc, op, err)) return -1;
  *eval_id = id;
  return 0;
}

/* ---- samples ------------------------------------------------------------------------------ */

int cl1_store_sample_add(cl1_store *s, const cl1_store_sample *m, int64_t *sample_id,
                         cl1_err *err) {
  char op[256];
  snprintf(op, sizeof op, "add sample %d of round %" PRId64, m->idx, m->round_id);
  *sample_id = 0;
  if (m->idx < 0) return cl1_store_bad(s, err, op, "negative index");
  if (!m->prompt) return cl1_store_bad(s, err, op, "no prompt");
  if (!m->status || !*m->status) return cl1_store_bad(s, err, op, "no status");
  if (!strcmp(m->status, "evaluated"))
    return cl1_store_bad(s, err, op, "a new sample cannot be 'evaluated' (record its evaluation)");
  int64_t id = 0;
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = cl1_store_write(
      s, op, err,
      "INSERT INTO samples(run_id, round_id, task_id, idx, prompt, exemplar_ids, completion,"
      " reasoning, finish_reason, status, error, analysis, code, gen_s, policy, model, created_at)"
      " SELECT r.run_id, r.id, r.task_id, ?2, ?3, coalesce(?4, '[]'), ?5, ?6, ?7, ?8, ?9, ?10,"
      " ?11, ?12, ?13, ?14, " CL1_STORE_NOW " FROM rounds r WHERE r.id = ?1",
      "Iitttttttttrtt", m->round_id, m->idx, m->prompt, m->exemplar_ids_json, m->completion,
      m->reasoning, m->finish_reason, m->status, m->error, m->analysis, m->code, m->gen_s,
      m->policy, m->model);
  if (!rc && sqlite3_changes(s->db) == 0)
    rc = cl1_store_bad(s, err, op, "round %" PRId64 " is not in the store", m->round_id);
  if (!rc) id = sqlite3_last_insert_rowid(s->db);
  if (cl1_store_end(s, rc, op, err)) return -1;
  assert(id > 0);
  *sample_id = id;
  return 0;
}

static int set_sample(cl1_store *s, const char *op, int64_t sample_id, const char *status,
                      int64_t solution_id, int64_t eval_id, cl1_err *err) {
  if (cl1_store_write(s, op, err,
                      "UPDATE samples SET status = ?2, solution_id = ?3, evaluation_id = ?4"
                      " WHERE id = ?1",
                      "Itdd", sample_id, status, solution_id, eval_id))
    return -1;
  if (sqlite3_changes(s->db) == 0)
    return cl1_store_bad(s, err, op, "sample %" PRId64 " is not in the store", sample_id);
  return 0;
}

int cl1_store_sample_finish(cl1_store *s, int64_t sample_id, const char *status,
                            int64_t solution_id, int64_t eval_id, cl1_err *err) {
  char op[256];
  snprintf(op, sizeof op, "finish sample %" PRId64, sample_id);
  if (!status || !*status) return cl1_store_bad(s, err, op, "no status");
  /* an evaluated sample always names what was evaluated: the report and resume rely on it */
  if (!strcmp(status, "evaluated") && (!solution_id || !eval_id))
    return cl1_store_bad(s, err, op, "'evaluated' needs a solution and an evaluation");
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = set_sample(s, op, sample_id, status, solution_id, eval_id, err);
  return cl1_store_end(s, rc, op, err);
}

typedef struct {
  char *task_id, *status, *exemplars;
  int64_t run_id;
} sample_row;

static void sample_row_free(sample_row *r) {
  free(r->task_id);
  free(r->status);
  free(r->exemplars);
}

static int read_sample(cl1_store *s, const char *op, int64_t sample_id, sample_row *r,
                       cl1_err *err) {
  sqlite3_stmt *st;
  memset(r, 0, sizeof *r);
  if (cl1_store_query(s, &st, op, err,
                      "SELECT task_id, status, exemplar_ids, run_id FROM samples WHERE id = ?1",
                      "I", sample_id))
    return -1;
  int rc = cl1_store_row(s, st, op, err);
  if (rc == 0) rc = cl1_store_bad(s, err, op, "sample %" PRId64 " is not in the store", sample_id);
  if (rc == 1) {
    r->run_id = sqlite3_column_int64(st, 3);
    rc = cl1_store_col_dup(st, 0, &r->task_id) || cl1_store_col_dup(st, 1, &r->status) ||
                 cl1_store_col_dup(st, 2, &r->exemplars)
             ? cl1_store_bad(s, err, op, "out of memory")
             : 0;
  }
  cl1_store_done(s, st);
  if (rc) sample_row_free(r);
  return rc ? -1 : 0;
}

/* The body of record_eval; the caller holds the write transaction. */
static int record_eval(cl1_store *s, const char *op, int64_t sample_id, const char *backend,
                       const char *source, const char *origin, const cl1_store_eval *e,
                       int64_t *sol_id, int64_t *eval_id, cl1_err *err) {
  sample_row r;
  if (read_sample(s, op, sample_id, &r, err)) return -1;
  int rc = 0;
  if (strcmp(r.status, "generated"))
    rc = cl1_store_bad(s, err, op, "the sample is '%s', not 'generated'", r.status);
  else if (e->task_id && strcmp(e->task_id, r.task_id))
    rc = cl1_store_bad(s, err, op, "the evaluation is of task %s, the sample of %s", e->task_id,
                       r.task_id);
  bool existed;
  if (!rc)
    rc = cl1_store_tx_solution(s, op, r.task_id, backend, source, origin, r.exemplars, r.run_id,
                               sol_id, &existed, err);
  if (!rc) rc = cl1_store_tx_eval(s, op, e, *sol_id, r.task_id, eval_id, err);
  if (!rc) rc = set_sample(s, op, sample_id, "evaluated", *sol_id, *eval_id, err);
  sample_row_free(&r);
  return rc;
}

int cl1_store_sample_record_eval(cl1_store *s, int64_t sample_id, const char *backend,
                                 const char *source, const char *origin, const cl1_store_eval *e,
                                 int64_t *sol_id, int64_t *eval_id, cl1_err *err) {
  char op[256];
  snprintf(op, sizeof op, "record the evaluation of sample %" PRId64, sample_id);
  *sol_id = *eval_id = 0;
  if (cl1_store_check_solution(s, op, backend, source, origin, err) ||
      cl1_store_check_eval(s, op, e, err))
    return -1;
  int64_t sid = 0, eid = 0;
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = record_eval(s, op, sample_id, backend, source, origin, e, &sid, &eid, err);
  if (cl1_store_end(s, rc, op, err)) return -1;
  *sol_id = sid;
  *eval_id = eid;
  return 0;
}

int cl1_store_samples_count(cl1_store *s, int64_t round_id, int *n_total, int *n_pending,
                            cl1_err *err) {
  static const char op[] = "count samples";
  *n_total = *n_pending = 0;
  sqlite3_stmt *st;
  cl1_store_lock(s);
  int rc = cl1_store_query(s, &st, op, err,
                           "SELECT count(*), coalesce(sum(status = 'generated'), 0) FROM samples"
                           " WHERE round_id = ?1",
                           "I", round_id);
  if (!rc) {
    int r = cl1_store_row(s, st, op, err);
    assert(r != 0); /* an aggregate always has its row */
    if (r < 0) rc = -1;
    if (r == 1) {
      *n_total = sqlite3_column_int(st, 0);
      *n_pending = sqlite3_column_int(st, 1);
    }
    cl1_store_done(s, st);
  }
  cl1_store_unlock(s);
  return rc;
}

void cl1_store_pending_free(cl1_store_pending *rows, int n) {
  for (int i = 0; rows && i < n; i++) {
    free(rows[i].task_id);
    free(rows[i].code);
  }
  free(rows);
}

/* rows grown to hold n + 1 elements of size elem (or rows itself when it does); NULL when out
 * of memory, rows then untouched. */
static void *grow(void *rows, int n, int *cap, size_t elem) {
  if (n < *cap) return rows;
  int c = *cap ? 2 * *cap : 16;
  void *p = realloc(rows, (size_t)c * elem);
  if (p) *cap = c;
  return p;
}

int cl1_store_samples_pending(cl1_store *s, int64_t run_id, cl1_store_pending **rows, int *n,
                              cl1_err *err) {
  static const char op[] = "list pending samples";
  cl1_store_pending *v = NULL;
  int k = 0, cap = 0;
  *rows = NULL;
  *n = 0;
  sqlite3_stmt *st;
  cl1_store_lock(s);
  int rc = cl1_store_query(s, &st, op, err,
                           "SELECT id, round_id, idx, task_id, code FROM samples WHERE run_id = ?1"
                           " AND status = 'generated' AND code IS NOT NULL ORDER BY id",
                           "I", run_id);
  while (!rc) {
    int r = cl1_store_row(s, st, op, err);
    if (r == 0) break;
    void *g = r < 0 ? NULL : grow(v, k, &cap, sizeof *v);
    if (!g) {
      rc = r < 0 ? -1 : cl1_store_bad(s, err, op, "out of memory");
      break;
    }
    v = g;
    cl1_store_pending *p = &v[k++];
    memset(p, 0, sizeof *p);
    p->sample_id = sqlite3_column_int64(st, 0);
    p->round_id = sqlite3_column_int64(st, 1);
    p->idx = sqlite3_column_int(st, 2);
    if (cl1_store_col_dup(st, 3, &p->task_id) || cl1_store_col_dup(st, 4, &p->code))
      rc = cl1_store_bad(s, err, op, "out of memory");
  }
  cl1_store_done(s, st);
  cl1_store_unlock(s);
  if (rc) {
    cl1_store_pending_free(v, k);
    return -1;
  }
  *rows = v;
  *n = k;
  return 0;
}

/* ---- queries ------------------------------------------------------------------------------ */

int cl1_store_best(cl1_store *s, const char *task_id, const char *backend, const char *shapes,
                   int64_t run_id, int64_t *sol_id, double *speedup, cl1_err *err) {
  static const char op[] = "find the best solution";
  *sol_id = 0;
  *speedup = 0;
  if (!task_id || !backend || !shapes)
    return cl1_store_bad(s, err, op, "task, backend and shapes are required");
  sqlite3_stmt *st;
  cl1_store_lock(s);
  int rc = cl1_store_query(
      s, &st, op, err,
      "SELECT e.solution_id, e.speedup FROM evaluations e"
      " JOIN solutions so ON so.id = e.solution_id"
      " WHERE e.task_id = ?1 AND e.verdict = 'pass' AND so.backend = ?2 AND e.shapes = ?3"
      " AND e.speedup IS NOT NULL"
      " AND (?4 = 0 OR so.run_id = ?4 OR e.id IN (SELECT evaluation_id FROM samples"
      "      WHERE run_id = ?4 AND task_id = ?1 AND evaluation_id IS NOT NULL))"
      " ORDER BY e.speedup DESC, e.id LIMIT 1",
      "tttI", task_id, backend, shapes, run_id);
  if (!rc) {
    int r = cl1_store_row(s, st, op, err);
    if (r < 0) rc = -1;
    if (r == 1) {
      *sol_id = sqlite3_column_int64(st, 0);
      *speedup = sqlite3_column_double(st, 1);
    }
    cl1_store_done(s, st);
  }
  cl1_store_unlock(s);
  return rc;
}

void cl1_store_successes_free(cl1_store_success *rows, int n) {
  for (int i = 0; rows && i < n; i++) free(rows[i].source);
  free(rows);
}

int cl1_store_successes(cl1_store *s, const char *task_id, const char *backend,
                        const char *shapes, cl1_store_success **rows, int *n, cl1_err *err) {
  static const char op[] = "list successful solutions";
  cl1_store_success *v = NULL;
  int k = 0, cap = 0;
  *rows = NULL;
  *n = 0;
  if (!task_id || !backend || !shapes)
    return cl1_store_bad(s, err, op, "task, backend and shapes are required");
  sqlite3_stmt *st;
  cl1_store_lock(s);
  /* the latest passing evaluation: highest id, as ids grow with time */
  int rc = cl1_store_query(
      s, &st, op, err,
      "SELECT so.id, e.speedup, so.source FROM solutions so"
      " JOIN evaluations e ON e.id = (SELECT max(e2.id) FROM evaluations e2"
      "      WHERE e2.task_id = so.task_id AND e2.verdict = 'pass'"
      "      AND e2.solution_id = so.id AND e2.shapes = ?3)"
      " WHERE so.task_id = ?1 AND so.backend = ?2 ORDER BY so.id",
      "ttt", task_id, backend, shapes);
  while (!rc) {
    int r = cl1_store_row(s, st, op, err);
    if (r == 0) break;
    void *g = r < 0 ? NULL : grow(v, k, &cap, sizeof *v);
    if (!g) {
      rc = r < 0 ? -1 : cl1_store_bad(s, err, op, "out of memory");
      break;
    }
    v = g;
    cl1_store_success *p = &v[k++];
    p->solution_id = sqlite3_column_int64(st, 0);
    p->speedup = sqlite3_column_double(st, 1);
    if (cl1_store_col_dup(st, 2, &p->source)) rc = cl1_store_bad(s, err, op, "out of memory");
  }
  cl1_store_done(s, st);
  cl1_store_unlock(s);
  if (rc) {
    cl1_store_successes_free(v, k);
    return -1;
  }
  *rows = v;
  *n = k;
  return 0;
}

int cl1_store_policy_tally(cl1_store *s, int64_t run_id, const char *policy,
                           cl1_store_tally *out, cl1_err *err) {
  static const char op[] = "count a policy's samples";
  memset(out, 0, sizeof *out);
  if (!policy) return cl1_store_bad(s, err, op, "no policy name");
  sqlite3_stmt *st;
  cl1_store_lock(s);
  /* total(): 0.0, not NULL, over no rows or a LEFT JOIN's missing evaluations */
  int rc = cl1_store_query(
      s, &st, op, err,
      "SELECT count(*), total(sm.status = 'gen_error'), total(sm.code IS NOT NULL),"
      " total(sm.code IS NOT NULL AND sm.status = 'generated'), total(e.id IS NOT NULL),"
      " total(e.verdict IN ('pass', 'incorrect') OR e.verdict LIKE 'hack:%'),"
      " total(e.verdict = 'pass'), total(e.verdict = 'pass' AND e.speedup > 1.0)"
      " FROM samples sm LEFT JOIN evaluations e ON e.id = sm.evaluation_id"
      " WHERE sm.run_id = ?1 AND sm.policy = ?2",
      "It", run_id, policy);
  if (!rc) {
    int r = cl1_store_row(s, st, op, err);
    assert(r != 0); /* an aggregate always has its row */
    if (r < 0) rc = -1;
    if (r == 1) {
      int *f[] = {&out->asked,      &out->gen_errors, &out->with_code, &out->unjudged,
                  &out->evaluated,  &out->executable, &out->correct,   &out->faster};
      for (int i = 0; i < 8; i++) *f[i] = sqlite3_column_int(st, i);
    }
    cl1_store_done(s, st);
  }
  cl1_store_unlock(s);
  return rc;
}
