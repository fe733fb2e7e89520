/* report_db.c — reads the report's numbers from the store: opens the SQLite file read-only (the
 * report never migrates or writes), checks it is a cudal1 store, resolves --run, finds the
 * (backend, shape set) sections of the data, and per task the best passing evaluation, the
 * sample/evaluation/round counts, the baselines' times, and the per-round best speedups (the
 * training runs: report_train.c).
 * Queries follow the store's schema v1 (the contract in the design notes), not src/store's API. */
#include "report_int.h"
#include "../loop/baselines.h"
#include <assert.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What every query needs: the connection, and the run filter as SQL over solutions (alias s) and
 * runs (alias u). The run id is an integer we parsed, so printing it into SQL is safe. */
typedef struct {
  sqlite3 *db;
  const char *path;
  char sol_where[256]; /* solutions of the selected runs */
  char run_where[64];  /* the selected runs */
} rd;

static char *dup_or_null(const unsigned char *s) { return s ? strdup((const char *)s) : NULL; }

static int sql_fail(rd *c, const char *what, cl1_err *err) {
  return cl1_err_set(err, "%s: reading %s failed: %s", c->path, what, sqlite3_errmsg(c->db));
}

static int prepare(rd *c, const char *sql, sqlite3_stmt **st, const char *what, cl1_err *err) {
  if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK) return sql_fail(c, what, err);
  return 0;
}

/* ---- opening and checking the file ---- */

static int open_store(rd *c, cl1_err *err) {
  struct stat sb;
  if (stat(c->path, &sb))
    return cl1_err_set(err, "cannot open the store %s: %s (run `cudal1 optimize` first, or pass "
                       "--db PATH)", c->path, strerror(errno));
  if (!S_ISREG(sb.st_mode)) return cl1_err_set(err, "the store %s is not a regular file", c->path);
  if (sqlite3_open_v2(c->path, &c->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
    return cl1_err_set(err, "cannot open the store %s: %s", c->path,
                       c->db ? sqlite3_errmsg(c->db) : "out of memory");
  sqlite3_busy_timeout(c->db, 5000);
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(c->db, "SELECT value FROM meta WHERE key = 'schema_version'", -1,
                              &st, NULL);
  if (rc != SQLITE_OK) {
    if (strstr(sqlite3_errmsg(c->db), "no such table"))
      return cl1_err_set(err, "%s is not a cudal1 store: it has no meta table", c->path);
    return cl1_err_set(err, "%s is not a cudal1 store: %s", c->path, sqlite3_errmsg(c->db));
  }
  rc = sqlite3_step(st);
  long long version = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sql_fail(c, "the schema version", err);
  /* A newer version is accepted: the queries below name every column they need and fail with
     SQLite's message if one went away. */
  if (version < 1)
    return cl1_err_set(err, "%s is not a cudal1 store: its meta table has no positive "
                       "schema_version", c->path);
  static const char *need[] = {"tasks", "runs", "solutions", "evaluations", "rounds", "samples"};
  for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
    if (prepare(c, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", &st,
                "the table list", err))
      return -1;
    sqlite3_bind_text(st, 1, need[i], -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
      return cl1_err_set(err, "%s is not a cudal1 store: it has no %s table", c->path, need[i]);
    if (rc != SQLITE_ROW) return sql_fail(c, "the table list", err);
  }
  return 0;
}

static int run_list(rd *c, char *buf, size_t n, cl1_err *err) {
  sqlite3_stmt *st;
  if (prepare(c, "SELECT id FROM runs ORDER BY id", &st, "the runs", err)) return -1;
  size_t k = 0;
  buf[0] = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW && k + 32 < n)
    k += (size_t)snprintf(buf + k, n - k, "%s%lld", k ? ", " : "", sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sql_fail(c, "the runs", err);
  if (rc == SQLITE_ROW) snprintf(buf + k, n - k, ", ...");
  return 0;
}

/* --run: NULL -> 0 (every run), "latest" -> the newest id, else an id that must exist. */
static int resolve_run(rd *c, const char *arg, long long *run, cl1_err *err) {
  *run = 0;
  if (!arg) return 0;
  sqlite3_stmt *st;
  if (!strcmp(arg, "latest")) {
    if (prepare(c, "SELECT MAX(id) FROM runs", &st, "the runs", err)) return -1;
    int rc = sqlite3_step(st);
    *run = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return sql_fail(c, "the runs", err);
    if (*run <= 0) return cl1_err_set(err, "--run latest: %s has no runs yet", c->path);
    return 0;
  }
  char *end;
  errno = 0;
  long long id = strtoll(arg, &end, 10);
  if (errno || end == arg || *end || id <= 0)
    return cl1_err_set(err, "--run: expected a run id (a positive integer) or 'latest', got '%s'",
                       arg);
  if (prepare(c, "SELECT 1 FROM runs WHERE id = ?1", &st, "the runs", err)) return -1;
  sqlite3_bind_int64(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE) {
    char ids[256];
    if (run_list(c, ids, sizeof ids, err)) return -1;
    return cl1_err_set(err, "no run %lld in %s (%s%s)", id, c->path, *ids ? "its runs: " : "it has no runs",
                       ids);
  }
  if (rc != SQLITE_ROW) return sql_fail(c, "the runs", err);
  *run = id;
  return 0;
}

/* ---- sections ---- */

static int add_section(cl1_report *r, const char *backend, const char *shapes, cl1_err *err) {
  cl1_report_section *s = realloc(r->sec, sizeof *s * (size_t)(r->n_sec + 1));
  if (!s) return cl1_err_set(err, "report: out of memory");
  r->sec = s;
  s = &r->sec[r->n_sec];
  memset(s, 0, sizeof *s);
  s->backend = strdup(backend);
  s->shapes = strdup(shapes);
  s->col[0] = strdup("reference");
  s->n_cols = 1;
  r->n_sec++;
  if (!s->backend || !s->shapes || !s->col[0]) return cl1_err_set(err, "report: out of memory");
  return 0;
}

static int find_sections(rd *c, cl1_report *r, const cl1_report_opts *o, cl1_err *err) {
  char sql[1024];
  snprintf(sql, sizeof sql,
           "SELECT b, sh FROM (SELECT s.backend AS b, e.shapes AS sh FROM evaluations e "
           "JOIN solutions s ON s.id = e.solution_id WHERE %s "
           "UNION SELECT u.device, u.shapes FROM runs u WHERE %s AND "
           "EXISTS (SELECT 1 FROM rounds r WHERE r.run_id = u.id)) "
           "ORDER BY b, CASE sh WHEN 'test' THEN 0 WHEN 'small' THEN 1 WHEN 'large' THEN 2 "
           "ELSE 3 END, sh",
           c->sol_where, c->run_where);
  sqlite3_stmt *st;
  if (prepare(c, sql, &st, "the shape sets", err)) return -1;
  char have[512] = "";
  size_t k = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *b = (const char *)sqlite3_column_text(st, 0);
    const char *sh = (const char *)sqlite3_column_text(st, 1);
    if (!b || !sh) continue; /* NOT NULL columns in the schema */
    if (k + 64 < sizeof have)
      k += (size_t)snprintf(have + k, sizeof have - k, "%s%s/%s", k ? ", " : "", b, sh);
    if ((o->backend && strcmp(o->backend, b)) || (o->shapes && strcmp(o->shapes, sh))) continue;
    if (add_section(r, b, sh, err)) {
      sqlite3_finalize(st);
      return -1;
    }
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(c, "the shape sets", err);
  if (!k && r->n_train) return 0; /* the training view alone */
  if (!k) {
    if (r->run) return cl1_err_set(err, "run %lld in %s has no rounds or evaluations yet: nothing "
                                   "to report", r->run, c->path);
    return cl1_err_set(err, "%s holds no runs or evaluations yet (nor training runs): nothing "
                       "to report", c->path);
  }
  if (!r->n_sec)
    return cl1_err_set(err, "no results for%s%s%s%s in %s%s (results exist for device/shapes: %s)",
                       o->backend ? " --device " : "", o->backend ? o->backend : "",
                       o->shapes ? " --shapes " : "", o->shapes ? o->shapes : "", c->path,
                       r->run ? " for this run" : "", have);
  return 0;
}

/* The runs covered: the selected ones whose (device, shapes) is a section's. */
static int load_runs(rd *c, cl1_report *r, cl1_err *err) {
  char sql[512];
  snprintf(sql, sizeof sql, "SELECT id, policy, model, device, shapes, status, started_at, "
           "finished_at FROM runs u WHERE %s ORDER BY id", c->run_where);
  sqlite3_stmt *st;
  if (prepare(c, sql, &st, "the runs", err)) return -1;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *dev = (const char *)sqlite3_column_text(st, 3);
    const char *sh = (const char *)sqlite3_column_text(st, 4);
    bool keep = false;
    for (int i = 0; i < r->n_sec && dev && sh; i++)
      keep |= !strcmp(r->sec[i].backend, dev) && !strcmp(r->sec[i].shapes, sh);
    if (!keep) continue;
    cl1_report_run *u = realloc(r->runs, sizeof *u * (size_t)(r->n_runs + 1));
    if (!u) break;
    r->runs = u;
    u = &r->runs[r->n_runs++];
    u->id = sqlite3_column_int64(st, 0);
    u->policy = dup_or_null(sqlite3_column_text(st, 1));
    u->model = dup_or_null(sqlite3_column_text(st, 2));
    u->device = strdup(dev);
    u->shapes = strdup(sh);
    u->status = dup_or_null(sqlite3_column_text(st, 5));
    u->started_at = dup_or_null(sqlite3_column_text(st, 6));
    u->finished_at = dup_or_null(sqlite3_column_text(st, 7));
    if (!u->policy) u->policy = strdup("");
    if (!u->status) u->status = strdup("");
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_ROW) return cl1_err_set(err, "report: out of memory");
  if (rc != SQLITE_DONE) return sql_fail(c, "the runs", err);
  return 0;
}

/* ---- one section's tasks ---- */

static int load_task_list(rd *c, cl1_report_section *s, cl1_err *err) {
  char sql[1200];
  snprintf(sql, sizeof sql,
           "SELECT t.id, t.name, t.level, t.degenerate FROM tasks t WHERE t.id IN ("
           "SELECT e.task_id FROM evaluations e JOIN solutions s ON s.id = e.solution_id "
           "WHERE s.backend = ?1 AND e.shapes = ?2 AND %s "
           "UNION SELECT r.task_id FROM rounds r JOIN runs u ON u.id = r.run_id "
           "WHERE u.device = ?1 AND u.shapes = ?2 AND %s) "
           "ORDER BY t.level, CAST(substr(t.id, instr(t.id, '/') + 1) AS INTEGER), t.id",
           c->sol_where, c->run_where);
  sqlite3_stmt *st;
  if (prepare(c, sql, &st, "the tasks", err)) return -1;
  sqlite3_bind_text(st, 1, s->backend, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, s->shapes, -1, SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    cl1_report_task *t = realloc(s->tasks, sizeof *t * (size_t)(s->n_tasks + 1));
    if (!t) break;
    s->tasks = t;
    t = &s->tasks[s->n_tasks++];
    memset(t, 0, sizeof *t);
    t->id = dup_or_null(sqlite3_column_text(st, 0));
    t->name = dup_or_null(sqlite3_column_text(st, 1));
    t->level = sqlite3_column_int(st, 2);
    t->degenerate = sqlite3_column_int(st, 3) != 0;
    t->has[0] = true;
    t->cand_ms = t->ref_ms = t->spread = NAN;
    for (int k = 0; k < CL1_REPORT_MAX_COLS; k++) t->speedup[k] = NAN;
    t->flags = strdup("");
    if (!t->id || !t->name || !t->flags) {
      rc = SQLITE_NOMEM;
      break;
    }
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_ROW || rc == SQLITE_NOMEM) return cl1_err_set(err, "report: out of memory");
  if (rc != SQLITE_DONE) return sql_fail(c, "the tasks", err);
  return 0;
}

/* The evaluation's flags (a JSON array of strings) as "a, b". */
static int flags_text(rd *c, long long eval, const char *json, char **out, cl1_err *err) {
  cJSON *a = cJSON_Parse(json ? json : "[]");
  if (!a || !cJSON_IsArray(a)) {
    cJSON_Delete(a);
    return cl1_err_set(err, "%s: evaluation %lld: flags is not a JSON array", c->path, eval);
  }
  cl1_rep_buf b = {0};
  const cJSON *f;
  cJSON_ArrayForEach(f, a) {
    if (!cJSON_IsString(f)) {
      cJSON_Delete(a);
      free(b.p);
      return cl1_err_set(err, "%s: evaluation %lld: flags holds a non-string", c->path, eval);
    }
    cl1_rep_printf(&b, "%s%s", b.n ? ", " : "", f->valuestring);
  }
  cJSON_Delete(a);
  free(*out);
  *out = NULL;
  return cl1_rep_take(&b, "flags", out, err);
}

static double col_or_nan(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Steps a one-row aggregate or lookup; SQLITE_ROW or SQLITE_DONE, else fails. */
static int step_row(rd *c, sqlite3_stmt *st, const char *what, cl1_err *err) {
  int rc = sqlite3_step(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sql_fail(c, what, err);
  return rc;
}

static void bind3(sqlite3_stmt *st, const cl1_report_task *t, const cl1_report_section *s) {
  sqlite3_reset(st);
  sqlite3_bind_text(st, 1, t->id, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, s->backend, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, s->shapes, -1, SQLITE_STATIC);
}

enum { Q_BEST, Q_EVALS, Q_SAMPLES, Q_ROUNDS, Q_N };

static int prepare_task_queries(rd *c, sqlite3_stmt **q, cl1_err *err) {
  char sql[Q_N][1024];
  const char *evals = "FROM evaluations e JOIN solutions s ON s.id = e.solution_id WHERE "
                      "e.task_id = ?1 AND s.backend = ?2 AND e.shapes = ?3 AND";
  snprintf(sql[Q_BEST], sizeof sql[0], "SELECT e.id, e.speedup, e.cand_ms, e.ref_ms, e.spread, "
           "e.flags %s e.verdict = 'pass' AND %s ORDER BY e.speedup DESC, e.id LIMIT 1", evals,
           c->sol_where);
  /* A pass without a positive speedup breaks the store's contract: found, never skipped. */
  snprintf(sql[Q_EVALS], sizeof sql[0], "SELECT COUNT(*), COALESCE(SUM(e.verdict = 'pass'), 0), "
           "MIN(CASE WHEN e.verdict = 'pass' AND NOT COALESCE(e.speedup > 0, 0) THEN e.id END) "
           "%s %s", evals, c->sol_where);
  snprintf(sql[Q_SAMPLES], sizeof sql[0], "SELECT COUNT(*), COUNT(sa.evaluation_id), "
           "COALESCE(SUM(e.verdict = 'pass'), 0) FROM samples sa JOIN runs u ON u.id = sa.run_id "
           "LEFT JOIN evaluations e ON e.id = sa.evaluation_id WHERE sa.task_id = ?1 AND "
           "u.device = ?2 AND u.shapes = ?3 AND %s", c->run_where);
  snprintf(sql[Q_ROUNDS], sizeof sql[0], "SELECT COUNT(*) FROM rounds r JOIN runs u ON "
           "u.id = r.run_id WHERE r.task_id = ?1 AND u.device = ?2 AND u.shapes = ?3 AND %s",
           c->run_where);
  for (int i = 0; i < Q_N; i++)
    if (prepare(c, sql[i], &q[i], "a task's evaluations", err)) return -1;
  return 0;
}

static int load_task(rd *c, sqlite3_stmt **q, const cl1_report_section *s, cl1_report_task *t,
                     cl1_err *err) {
  bind3(q[Q_EVALS], t, s);
  if (step_row(c, q[Q_EVALS], "a task's evaluations", err) < 0) return -1;
  t->n_evals = sqlite3_column_int(q[Q_EVALS], 0);
  t->n_evals_passed = sqlite3_column_int(q[Q_EVALS], 1);
  if (sqlite3_column_type(q[Q_EVALS], 2) != SQLITE_NULL)
    return cl1_err_set(err, "%s: evaluation %lld of task %s is a pass without a positive speedup "
                       "(the store is inconsistent)", c->path,
                       (long long)sqlite3_column_int64(q[Q_EVALS], 2), t->id);
  bind3(q[Q_BEST], t, s);
  int rc = step_row(c, q[Q_BEST], "a task's best evaluation", err);
  if (rc < 0) return -1;
  if (rc == SQLITE_ROW) {
    t->correct = true;
    t->best_eval = sqlite3_column_int64(q[Q_BEST], 0);
    t->speedup[0] = sqlite3_column_double(q[Q_BEST], 1);
    t->cand_ms = col_or_nan(q[Q_BEST], 2);
    t->ref_ms = col_or_nan(q[Q_BEST], 3);
    t->spread = col_or_nan(q[Q_BEST], 4);
    if (flags_text(c, t->best_eval, (const char *)sqlite3_column_text(q[Q_BEST], 5), &t->flags,
                   err))
      return -1;
  }
  bind3(q[Q_SAMPLES], t, s);
  if (step_row(c, q[Q_SAMPLES], "a task's samples", err) < 0) return -1;
  t->n_samples = sqlite3_column_int(q[Q_SAMPLES], 0);
  t->n_evaluated = sqlite3_column_int(q[Q_SAMPLES], 1);
  t->n_passed = sqlite3_column_int(q[Q_SAMPLES], 2);
  bind3(q[Q_ROUNDS], t, s);
  if (step_row(c, q[Q_ROUNDS], "a task's rounds", err) < 0) return -1;
  t->n_rounds = sqlite3_column_int(q[Q_ROUNDS], 0);
  return 0;
}

/* ---- baselines ---- */

/* CUDA-L1's column order: eager, torch.compile, its reduce-overhead mode, CUDA Graph; other
 * names after them, alphabetically. */
static int baseline_rank(const char *name) {
  if (strstr(name, "eager")) return 0;
  if (strstr(name, "reduce")) return 2;
  if (strstr(name, "compile")) return 1;
  if (strstr(name, "graph")) return 3;
  return 4;
}

static int baseline_names(rd *c, cl1_report_section *s, cl1_err *err) {
  sqlite3_stmt *st;
  if (prepare(c, "SELECT DISTINCT name FROM baselines WHERE shapes = ?1 AND name IS NOT NULL "
              "ORDER BY name", &st, "the baselines", err))
    return -1;
  sqlite3_bind_text(st, 1, s->shapes, -1, SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    if (s->n_cols == CL1_REPORT_MAX_COLS) {
      sqlite3_finalize(st);
      return cl1_err_set(err, "%s: more than %d baselines for shapes %s; the report shows at most "
                         "%d", c->path, CL1_REPORT_MAX_COLS - 1, s->shapes, CL1_REPORT_MAX_COLS - 1);
    }
    int at = s->n_cols++;
    s->col[at] = strdup(name);
    if (!s->col[at]) {
      sqlite3_finalize(st);
      return cl1_err_set(err, "report: out of memory");
    }
    while (at > 1 && baseline_rank(s->col[at - 1]) > baseline_rank(s->col[at])) {
      char *x = s->col[at - 1];
      s->col[at - 1] = s->col[at];
      s->col[at] = x;
      at--;
    }
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return sql_fail(c, "the baselines", err);
  return 0;
}

/* One baseline's time for one task: has[col] and speedup[col], or note[col] saying why not. */
static int baseline_cell(rd *c, sqlite3_stmt *st, const cl1_report_section *s, int col,
                         cl1_report_task *t, cl1_err *err) {
  sqlite3_reset(st);
  sqlite3_bind_text(st, 1, t->id, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, s->shapes, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 3, s->col[col], -1, SQLITE_STATIC);
  int rc = step_row(c, st, "the baselines", err);
  if (rc < 0) return -1;
  const char *why = NULL;
  double ms = NAN;
  if (rc == SQLITE_DONE) why = "not measured";
  else {
    if (sqlite3_column_int(st, 2) > 1)
      return cl1_err_set(err, "%s: baselines holds %d rows for task %s, shapes %s, name %s",
                         c->path, sqlite3_column_int(st, 2), t->id, s->shapes, s->col[col]);
    const char *status = (const char *)sqlite3_column_text(st, 1);
    ms = col_or_nan(st, 0);
    if (!status || strcmp(status, "ok")) why = status ? status : "no status";
    else if (!(ms > 0)) why = "no time";
  }
  /* through the reference when the baseline file timed it beside the mode (schema v2's ref_ms):
     two side-by-side ratios instead of absolute times from different runs */
  double ref_ms = sqlite3_column_count(st) > 3 ? col_or_nan(st, 3) : NAN;
  if (!why && t->correct && ref_ms > 0 && t->speedup[0] > 0) {
    t->speedup[col] = cl1_baselines_through_ref(t->speedup[0], ms, ref_ms);
  } else if (!why && t->correct) {
    t->speedup[col] = cl1_report_vs_baseline(ms, t->cand_ms);
    if (isnan(t->speedup[col])) why = "the best evaluation has no candidate time";
  }
  t->has[col] = !why;
  if (why && !(t->note[col] = strdup(why))) return cl1_err_set(err, "report: out of memory");
  return 0;
}

/* Where baselines plug in: every name in the store's `baselines` table (issue 6: task_id, shapes,
 * name, median_ms, status) for the section's shape set becomes a column; a task's speedup against
 * it is the baseline's median over the candidate time of the task's best evaluation. Tasks whose
 * baseline failed or was not measured leave that column's task set (note says why). Baselines are
 * PyTorch on the GPU, so only cuda sections get them. */
static int attach_baselines(rd *c, cl1_report_section *s, cl1_err *err) {
  if (strcmp(s->backend, "cuda")) return 0;
  sqlite3_stmt *st;
  if (prepare(c, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'baselines'", &st,
              "the table list", err))
    return -1;
  int rc = step_row(c, st, "the table list", err);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return rc < 0 ? -1 : 0;
  if (baseline_names(c, s, err)) return -1;
  if (s->n_cols == 1) return 0;
  sqlite3_stmt *probe = NULL;
  bool has_ref = sqlite3_prepare_v2(c->db, "SELECT ref_ms FROM baselines LIMIT 0", -1, &probe, NULL) == SQLITE_OK;
  sqlite3_finalize(probe);
  if (prepare(c, has_ref ? "SELECT median_ms, status, COUNT(*) OVER (), ref_ms FROM baselines "
                           "WHERE task_id = ?1 AND shapes = ?2 AND name = ?3"
                         : "SELECT median_ms, status, COUNT(*) OVER () FROM baselines WHERE "
                           "task_id = ?1 AND shapes = ?2 AND name = ?3", &st, "the baselines", err))
    return -1;
  for (int i = 0; i < s->n_tasks; i++)
    for (int col = 1; col < s->n_cols; col++)
      if (baseline_cell(c, st, s, col, &s->tasks[i], err)) {
        sqlite3_finalize(st);
        return -1;
      }
  sqlite3_finalize(st);
  return 0;
}

/* ---- the rest of a section ---- */

static int load_gpus(rd *c, cl1_report_section *s, cl1_err *err) {
  char sql[700];
  snprintf(sql, sizeof sql, "SELECT DISTINCT e.device FROM evaluations e JOIN solutions s ON "
           "s.id = e.solution_id WHERE s.backend = ?1 AND e.shapes = ?2 AND %s ORDER BY 1",
           c->sol_where);
  sqlite3_stmt *st;
  if (prepare(c, sql, &st, "the devices", err)) return -1;
  sqlite3_bind_text(st, 1, s->backend, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, s->shapes, -1, SQLITE_STATIC);
  cl1_rep_buf b = {0};
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    if (sqlite3_column_text(st, 0))
      cl1_rep_printf(&b, "%s%s", b.n ? ", " : "", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    free(b.p);
    return sql_fail(c, "the devices", err);
  }
  return cl1_rep_take(&b, "device list", &s->gpus, err);
}

static int cmp_round(const void *a, const void *b) {
  const cl1_report_round *x = a, *y = b;
  if (x->run != y->run) return x->run < y->run ? -1 : 1;
  if (x->task != y->task) return x->task - y->task;
  return x->round - y->round;
}

/* Sorted by run, then the section's task order (level, task number), then round. */
static int load_rounds(rd *c, cl1_report_section *s, cl1_err *err) {
  char sql[600];
  snprintf(sql, sizeof sql, "SELECT r.run_id, r.task_id, r.round, r.best_speedup FROM rounds r "
           "JOIN runs u ON u.id = r.run_id WHERE u.device = ?1 AND u.shapes = ?2 AND %s "
           "ORDER BY r.run_id, r.task_id, r.round", c->run_where);
  sqlite3_stmt *st;
  if (prepare(c, sql, &st, "the rounds", err)) return -1;
  sqlite3_bind_text(st, 1, s->backend, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, s->shapes, -1, SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *task = (const char *)sqlite3_column_text(st, 1);
    int ti = 0;
    while (ti < s->n_tasks && task && strcmp(s->tasks[ti].id, task)) ti++;
    assert(ti < s->n_tasks); /* the task list holds every task with a round */
    cl1_report_round *x = realloc(s->rounds, sizeof *x * (size_t)(s->n_rounds + 1));
    if (!x) break;
    s->rounds = x;
    x = &s->rounds[s->n_rounds++];
    x->run = sqlite3_column_int64(st, 0);
    x->task = ti;
    x->round = sqlite3_column_int(st, 2);
    x->best = col_or_nan(st, 3);
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_ROW) return cl1_err_set(err, "report: out of memory");
  if (rc != SQLITE_DONE) return sql_fail(c, "the rounds", err);
  if (s->n_rounds) qsort(s->rounds, (size_t)s->n_rounds, sizeof *s->rounds, cmp_round);
  return 0;
}

static int load_section(rd *c, cl1_report_section *s, cl1_err *err) {
  if (load_task_list(c, s, err)) return -1;
  sqlite3_stmt *q[Q_N] = {0};
  int rc = prepare_task_queries(c, q, err);
  for (int i = 0; !rc && i < s->n_tasks; i++) rc = load_task(c, q, s, &s->tasks[i], err);
  for (int i = 0; i < Q_N; i++) sqlite3_finalize(q[i]);
  if (rc) return -1;
  if (attach_baselines(c, s, err) || load_gpus(c, s, err) || load_rounds(c, s, err)) return -1;
  return 0;
}

int cl1_report_load(const cl1_report_opts *o, cl1_report **out, cl1_err *err) {
  assert(o && o->db_path && out);
  *out = NULL;
  rd c = {.path = o->db_path};
  cl1_report *r = calloc(1, sizeof *r);
  if (!r || !(r->db_path = strdup(o->db_path))) {
    free(r);
    return cl1_err_set(err, "report: out of memory");
  }
  int rc = open_store(&c, err) || resolve_run(&c, o->run, &r->run, err) ? -1 : 0;
  if (!rc) {
    if (r->run) {
      snprintf(c.sol_where, sizeof c.sol_where, "(s.run_id = %lld OR s.id IN (SELECT solution_id "
               "FROM samples WHERE run_id = %lld AND solution_id IS NOT NULL))", r->run, r->run);
      snprintf(c.run_where, sizeof c.run_where, "u.id = %lld", r->run);
    } else {
      snprintf(c.sol_where, sizeof c.sol_where, "1");
      snprintf(c.run_where, sizeof c.run_where, "1");
    }
    rc = cl1_rep_train_load(c.db, c.path, r, err) || find_sections(&c, r, o, err) ||
                 load_runs(&c, r, err) ? -1 : 0;
  }
  for (int i = 0; !rc && i < r->n_sec; i++) rc = load_section(&c, &r->sec[i], err);
  sqlite3_close(c.db);
  if (rc) {
    cl1_report_free(r);
    return -1;
  }
  *out = r;
  return 0;
}
