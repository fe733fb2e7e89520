/* store.c — the store's connection (WAL, foreign keys, busy timeout, a mutex for threads), its
 * schema and migrations, the SQLite helpers store_sample.c shares, and the tasks, runs and rounds
 * tables. */
#include "store_int.h"
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- schema ------------------------------------------------------------------------------- */

static const char SCHEMA_V1[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE tasks(id TEXT PRIMARY KEY, level INTEGER NOT NULL, name TEXT NOT NULL,"
    " degenerate INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, config TEXT NOT NULL, status TEXT NOT NULL,"
    " policy TEXT NOT NULL, model TEXT, device TEXT NOT NULL, shapes TEXT NOT NULL,"
    " started_at TEXT NOT NULL, finished_at TEXT);"
    "CREATE TABLE solutions(id INTEGER PRIMARY KEY,"
    " task_id TEXT NOT NULL REFERENCES tasks(id), backend TEXT NOT NULL, hash TEXT NOT NULL,"
    " source TEXT NOT NULL, origin TEXT NOT NULL, parent_ids TEXT NOT NULL DEFAULT '[]',"
    " run_id INTEGER REFERENCES runs(id), created_at TEXT NOT NULL,"
    " UNIQUE(task_id, backend, hash));"
    "CREATE TABLE evaluations(id INTEGER PRIMARY KEY,"
    " solution_id INTEGER NOT NULL REFERENCES solutions(id),"
    " task_id TEXT NOT NULL REFERENCES tasks(id), device TEXT NOT NULL, driver TEXT,"
    " shapes TEXT NOT NULL, protocol TEXT NOT NULL, verdict TEXT NOT NULL, message TEXT,"
    " speedup REAL, reward_speedup REAL, reward REAL, ref_ms REAL, cand_ms REAL, spread REAL,"
    " flags TEXT NOT NULL DEFAULT '[]', result_json TEXT, wall_s REAL,"
    " created_at TEXT NOT NULL);"
    "CREATE TABLE rounds(id INTEGER PRIMARY KEY,"
    " run_id INTEGER NOT NULL REFERENCES runs(id), task_id TEXT NOT NULL REFERENCES tasks(id),"
    " round INTEGER NOT NULL, status TEXT NOT NULL, best_speedup REAL,"
    " started_at TEXT NOT NULL, finished_at TEXT, UNIQUE(run_id, task_id, round));"
    "CREATE TABLE samples(id INTEGER PRIMARY KEY,"
    " run_id INTEGER NOT NULL REFERENCES runs(id),"
    " round_id INTEGER NOT NULL REFERENCES rounds(id), task_id TEXT NOT NULL,"
    " idx INTEGER NOT NULL, prompt TEXT NOT NULL, exemplar_ids TEXT NOT NULL DEFAULT '[]',"
    " completion TEXT, reasoning TEXT, finish_reason TEXT, status TEXT NOT NULL, error TEXT,"
    " analysis TEXT, code TEXT, solution_id INTEGER REFERENCES solutions(id),"
    " evaluation_id INTEGER REFERENCES evaluations(id), gen_s REAL, created_at TEXT NOT NULL,"
    " UNIQUE(round_id, idx));"
    "CREATE INDEX evaluations_task_verdict ON evaluations(task_id, verdict);"
    "CREATE INDEX solutions_task ON solutions(task_id);"
    "CREATE INDEX samples_run_task ON samples(run_id, task_id);";

/* v2 (issue 6): PyTorch baselines per task, shape set and mode (eager, compile, ...), imported
 * from tools/baselines.py's files; ref_ms is the C reference timed beside it in the same run,
 * so speedups against a baseline are ratios measured side by side. */
static const char SCHEMA_V2[] =
    "CREATE TABLE baselines(id INTEGER PRIMARY KEY, task_id TEXT NOT NULL REFERENCES tasks(id),"
    " shapes TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, median_ms REAL,"
    " ref_ms REAL, ci_rel REAL, torch TEXT, gpu TEXT, source TEXT, imported_at TEXT NOT NULL,"
    " UNIQUE(task_id, shapes, name));";

/* v3 (issue 20): the reward service's scored items (`cudal1 serve`): one row per item answered,
 * with the caller's metadata and the result it was given; a re-served (cached) answer is a row
 * of its own pointing at the same evaluation. The index on evaluations(solution_id) serves the
 * service's lookup of an earlier evaluation of the same code. */
static const char SCHEMA_V3[] =
    "CREATE TABLE scores(id INTEGER PRIMARY KEY, item_id TEXT,"
    " task_id TEXT NOT NULL REFERENCES tasks(id), backend TEXT NOT NULL, shapes TEXT NOT NULL,"
    " solution_id INTEGER REFERENCES solutions(id),"
    " evaluation_id INTEGER REFERENCES evaluations(id), completion TEXT, status TEXT NOT NULL,"
    " verdict TEXT NOT NULL, reward REAL, score01 REAL, cached INTEGER NOT NULL DEFAULT 0,"
    " meta TEXT, result TEXT NOT NULL, created_at TEXT NOT NULL);"
    "CREATE INDEX evaluations_solution ON evaluations(solution_id);"
    "CREATE INDEX scores_evaluation ON scores(evaluation_id);";

/* v4 (`cudal1 collect`): who gave each sample: collect's policy NAME and its model, or
 * optimize's backend (openai|replay) and model; rows from before take their run's. */
static const char SCHEMA_V4[] =
    "ALTER TABLE samples ADD COLUMN policy TEXT;"
    "ALTER TABLE samples ADD COLUMN model TEXT;"
    "UPDATE samples SET policy = (SELECT policy FROM runs WHERE runs.id = samples.run_id),"
    " model = (SELECT model FROM runs WHERE runs.id = samples.run_id);";

/* v5 (issue 21, `cudal1 train`): a training run (stage, engine, model, output folder, the
 * engine's config) and the events its engine printed (start, step, round, eval, checkpoint,
 * done, error) with their stage, round and step pulled out of the event's JSON for the report. */
static const char SCHEMA_V5[] =
    "CREATE TABLE train_runs(id INTEGER PRIMARY KEY, created TEXT NOT NULL, stage TEXT NOT NULL,"
    " engine TEXT NOT NULL, model TEXT, out TEXT NOT NULL, config TEXT NOT NULL,"
    " status TEXT NOT NULL);"
    "CREATE TABLE train_events(id INTEGER PRIMARY KEY,"
    " run_id INTEGER NOT NULL REFERENCES train_runs(id), t TEXT NOT NULL, event TEXT NOT NULL,"
    " stage TEXT, round INTEGER, step INTEGER, data TEXT NOT NULL);"
    "CREATE INDEX train_events_run ON train_events(run_id, id);";

/* v6 (issue 22, `cudal1 import`): what an imported solution's publisher claimed for it (CUDA-L1's
 * score_* speedups, a JSONL row's meta) and where it came from (file, line, level, task), kept
 * apart from our own evaluations so that an audit compares the two and never mistakes one for
 * the other. One row per solution and source line, so a repeated import adds nothing. */
static const char SCHEMA_V6[] =
    "CREATE TABLE import_claims(id INTEGER PRIMARY KEY,"
    " solution_id INTEGER NOT NULL REFERENCES solutions(id), kind TEXT NOT NULL,"
    " source_file TEXT NOT NULL, line INTEGER NOT NULL, level INTEGER, task TEXT NOT NULL,"
    " format TEXT NOT NULL, claims TEXT NOT NULL, imported_at TEXT NOT NULL,"
    " UNIQUE(solution_id, source_file, line));";

/* Step N takes a file from version N - 1 to N; add a step, never edit one that has shipped. */
static const cl1_store_step STEPS[] = {{1, SCHEMA_V1}, {2, SCHEMA_V2}, {3, SCHEMA_V3},
                                       {4, SCHEMA_V4}, {5, SCHEMA_V5}, {6, SCHEMA_V6}};
_Static_assert(sizeof STEPS / sizeof STEPS[0] == CL1_STORE_SCHEMA_VERSION,
               "one migration step per schema version");

/* ---- helpers ------------------------------------------------------------------------------ */

int cl1_store_fail(cl1_store *s, cl1_err *err, const char *op) {
  return cl1_err_set(err, "store %s: %s: %s", s->path, op, sqlite3_errmsg(s->db));
}

int cl1_store_bad(cl1_store *s, cl1_err *err, const char *op, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return cl1_err_set(err, "store %s: %s: %s", s->path, op, what);
}

/* The kept statement for sql, marked busy; NULL when none is free (caller holds cache_mu). */
static sqlite3_stmt *cache_take(cl1_store *s, const char *sql) {
  for (int i = 0; i < s->n_cached; i++) {
    cl1_store_cached *c = &s->cache[i];
    if (!c->busy && !strcmp(c->sql, sql)) {
      c->busy = true;
      return c->st;
    }
  }
  return NULL;
}

/* Keeps a new statement when there is room; a text already kept (busy: a nested use) is not
 * kept twice. */
static void cache_keep(cl1_store *s, const char *sql, sqlite3_stmt *st) {
  if (s->n_cached == CL1_STORE_CACHE_CAP) return;
  for (int i = 0; i < s->n_cached; i++)
    if (!strcmp(s->cache[i].sql, sql)) return;
  char *copy = strdup(sql);
  if (!copy) return;
  s->cache[s->n_cached++] = (cl1_store_cached){.sql = copy, .st = st, .busy = true};
}

int cl1_store_prep(cl1_store *s, const char *sql, sqlite3_stmt **st, const char *op,
                   cl1_err *err) {
  pthread_mutex_lock(&s->cache_mu);
  *st = cache_take(s, sql);
  pthread_mutex_unlock(&s->cache_mu);
  if (*st) return 0;
  if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
    cl1_store_fail(s, err, op);
    sqlite3_finalize(*st);
    *st = NULL;
    return -1;
  }
  assert(*st);
  pthread_mutex_lock(&s->cache_mu);
  cache_keep(s, sql, *st);
  pthread_mutex_unlock(&s->cache_mu);
  return 0;
}

void cl1_store_done(cl1_store *s, sqlite3_stmt *st) {
  if (!st) return;
  pthread_mutex_lock(&s->cache_mu);
  for (int i = 0; i < s->n_cached; i++) {
    cl1_store_cached *c = &s->cache[i];
    if (c->st == st) {
      assert(c->busy && "a kept statement done twice");
      /* reset ends its read: a kept statement must not hold a snapshot or a lock */
      sqlite3_reset(st);
      sqlite3_clear_bindings(st);
      c->busy = false;
      pthread_mutex_unlock(&s->cache_mu);
      return;
    }
  }
  pthread_mutex_unlock(&s->cache_mu);
  sqlite3_finalize(st);
}

int cl1_store_row(cl1_store *s, sqlite3_stmt *st, const char *op, cl1_err *err) {
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) return 1;
  if (rc == SQLITE_DONE) return 0;
  return cl1_store_fail(s, err, op);
}

static int bind_args(sqlite3_stmt *st, const char *types, va_list ap) {
  int rc = SQLITE_OK;
  for (int i = 1; types[i - 1] && rc == SQLITE_OK; i++) {
    switch (types[i - 1]) {
    case 't': {
      const char *v = va_arg(ap, const char *);
      rc = v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
      break;
    }
    case 'i': rc = sqlite3_bind_int(st, i, va_arg(ap, int)); break;
    case 'I': rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t)); break;
    case 'd': {
      int64_t v = va_arg(ap, int64_t);
      rc = v ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
      break;
    }
    case 'r': {
      double v = va_arg(ap, double);
      rc = isnan(v) ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, v);
      break;
    }
    default: assert(!"unknown bind type"); rc = SQLITE_MISUSE;
    }
  }
  assert(rc != SQLITE_OK || sqlite3_bind_parameter_count(st) == (int)strlen(types));
  return rc;
}

static int query_v(cl1_store *s, sqlite3_stmt **st, const char *op, cl1_err *err,
                   const char *sql, const char *types, va_list ap) {
  if (cl1_store_prep(s, sql, st, op, err)) return -1;
  if (bind_args(*st, types, ap) != SQLITE_OK) {
    cl1_store_fail(s, err, op);
    cl1_store_done(s, *st);
    *st = NULL;
    return -1;
  }
  return 0;
}

int cl1_store_query(cl1_store *s, sqlite3_stmt **st, const char *op, cl1_err *err,
                    const char *sql, const char *types, ...) {
  va_list ap;
  va_start(ap, types);
  int rc = query_v(s, st, op, err, sql, types, ap);
  va_end(ap);
  return rc;
}

int cl1_store_write(cl1_store *s, const char *op, cl1_err *err, const char *sql,
                    const char *types, ...) {
  sqlite3_stmt *st;
  va_list ap;
  va_start(ap, types);
  int rc = query_v(s, &st, op, err, sql, types, ap);
  va_end(ap);
  if (rc) return -1;
  rc = cl1_store_row(s, st, op, err);
  cl1_store_done(s, st);
  assert(rc != 1 && "a write statement returned a row");
  return rc ? -1 : 0;
}

int cl1_store_one_id(cl1_store *s, sqlite3_stmt *st, const char *op, int64_t *v, cl1_err *err) {
  int r = cl1_store_row(s, st, op, err);
  *v = r == 1 ? sqlite3_column_int64(st, 0) : 0;
  cl1_store_done(s, st);
  return r < 0 ? -1 : 0;
}

int cl1_store_exec(cl1_store *s, const char *sql, const char *op, cl1_err *err) {
  char *msg = NULL;
  if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    cl1_err_set(err, "store %s: %s: %s", s->path, op, msg ? msg : sqlite3_errmsg(s->db));
    sqlite3_free(msg);
    return -1;
  }
  return 0;
}

int cl1_store_begin(cl1_store *s, const char *op, cl1_err *err) {
  pthread_mutex_lock(&s->mu);
  assert(sqlite3_get_autocommit(s->db) && "a transaction left open");
  if (cl1_store_exec(s, "BEGIN IMMEDIATE", op, err)) {
    pthread_mutex_unlock(&s->mu);
    return -1;
  }
  return 0;
}

int cl1_store_end(cl1_store *s, int rc, const char *op, cl1_err *err) {
  if (rc == 0 && cl1_store_exec(s, "COMMIT", op, err)) rc = -1;
  /* SQLite rolls some failures back by itself; ROLLBACK then has nothing to undo */
  if (rc != 0 && !sqlite3_get_autocommit(s->db)) {
    cl1_err keep = {{0}};
    if (err) keep = *err;
    if (sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK)
      cl1_err_set(err, "%s (and the rollback failed: %s)", keep.msg, sqlite3_errmsg(s->db));
  }
  assert(sqlite3_get_autocommit(s->db));
  pthread_mutex_unlock(&s->mu);
  return rc ? -1 : 0;
}

int cl1_store_col_dup(sqlite3_stmt *st, int i, char **out) {
  const unsigned char *t = sqlite3_column_text(st, i);
  *out = NULL;
  if (!t) return sqlite3_column_type(st, i) == SQLITE_NULL ? 0 : -1;
  *out = strdup((const char *)t);
  return *out ? 0 : -1;
}

/* ---- open, migrate, close ------------------------------------------------------------------ */

static int parse_version(cl1_store *s, const char *text, int *version, cl1_err *err) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < 0 || v > INT_MAX)
    return cl1_err_set(err, "store %s: meta.schema_version is '%s', not a version number",
                       s->path, text);
  *version = (int)v;
  return 0;
}

int cl1_store_version(cl1_store *s, int *version, cl1_err *err) {
  static const char op[] = "read the schema version";
  sqlite3_stmt *st;
  *version = 0;
  if (cl1_store_prep(s, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'",
                     &st, op, err))
    return -1;
  int r = cl1_store_row(s, st, op, err);
  int has_meta = r == 1 && sqlite3_column_int(st, 0) > 0;
  cl1_store_done(s, st);
  if (r != 1) return r < 0 ? -1 : cl1_store_bad(s, err, op, "no count");
  if (!has_meta) return 0;
  if (cl1_store_prep(s, "SELECT value FROM meta WHERE key='schema_version'", &st, op, err))
    return -1;
  r = cl1_store_row(s, st, op, err);
  int rc = r < 0 ? -1 : 0;
  if (r == 0) rc = cl1_store_bad(s, err, op, "the meta table has no schema_version");
  if (r == 1) rc = parse_version(s, (const char *)sqlite3_column_text(st, 0), version, err);
  cl1_store_done(s, st);
  return rc;
}

/* A file without a meta table must be empty: a SQLite file of something else is not ours. */
static int check_empty(cl1_store *s, cl1_err *err) {
  static const char op[] = "inspect the file";
  sqlite3_stmt *st;
  if (cl1_store_prep(s, "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'", &st,
                     op, err))
    return -1;
  int r = cl1_store_row(s, st, op, err);
  int n = r == 1 ? sqlite3_column_int(st, 0) : 0;
  cl1_store_done(s, st);
  if (r < 0) return -1;
  if (n > 0)
    return cl1_err_set(err,
                       "store %s: this SQLite file is not a cudal1 store (it has %d tables or "
                       "indexes but no meta table)",
                       s->path, n);
  return 0;
}

static int newer_error(cl1_store *s, int have, int known, cl1_err *err) {
  return cl1_err_set(err,
                     "store %s has schema version %d, but this cudal1 knows versions up to %d: "
                     "use a newer cudal1 (or another --db)",
                     s->path, have, known);
}

/* Applies the step after the file's current version, inside one transaction that re-reads the
 * version (another process may have migrated meanwhile). *at gets the version now in the file. */
static int migrate_one(cl1_store *s, const cl1_store_step *steps, int n, int *at, cl1_err *err) {
  char op[64];
  snprintf(op, sizeof op, "migrate");
  if (cl1_store_begin(s, op, err)) return -1;
  int v, rc = cl1_store_version(s, &v, err);
  if (!rc && v > n) rc = newer_error(s, v, n, err);
  if (!rc && v == 0) rc = check_empty(s, err);
  if (!rc && v < n) {
    const cl1_store_step *step = &steps[v];
    assert(step->version == v + 1);
    snprintf(op, sizeof op, "migrate to schema version %d", step->version);
    rc = cl1_store_exec(s, step->sql, op, err);
    char set[128];
    snprintf(set, sizeof set,
             "INSERT INTO meta(key, value) VALUES('schema_version', '%d')"
             " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
             step->version);
    if (!rc) rc = cl1_store_exec(s, set, op, err);
    if (!rc) v = step->version;
  }
  if (cl1_store_end(s, rc, op, err)) return -1;
  *at = v;
  return 0;
}

int cl1_store_migrate(cl1_store *s, const cl1_store_step *steps, int n, cl1_err *err) {
  assert(n >= 1);
  for (int i = 0; i < n; i++) assert(steps[i].version == i + 1 && steps[i].sql);
  int v;
  if (cl1_store_version(s, &v, err)) return -1;
  if (v > n) return newer_error(s, v, n, err);
  while (v < n) {
    int before = v;
    if (migrate_one(s, steps, n, &v, err)) return -1;
    assert(v > before || v == n);
    (void)before;
  }
  return 0;
}

/* The failure of the first statement: where SQLite notices a file that is not a database. */
static int first_failure(cl1_store *s, cl1_err *err) {
  if (sqlite3_errcode(s->db) == SQLITE_NOTADB)
    return cl1_err_set(err, "%s is not a SQLite database (%s)", s->path, sqlite3_errmsg(s->db));
  return cl1_store_fail(s, err, "set WAL mode");
}

/* Settings that every connection needs. */
static int configure(cl1_store *s, cl1_err *err) {
  if (sqlite3_busy_timeout(s->db, 5000) != SQLITE_OK) return cl1_store_fail(s, err, "busy_timeout");
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode=WAL", -1, &st, NULL) != SQLITE_OK) {
    first_failure(s, err);
    cl1_store_done(s, st);
    return -1;
  }
  if (sqlite3_step(st) != SQLITE_ROW) {
    first_failure(s, err);
    cl1_store_done(s, st);
    return -1;
  }
  const char *mode = (const char *)sqlite3_column_text(st, 0);
  bool ok = mode && (!strcmp(mode, "wal") ||
                     (!strcmp(mode, "memory") && !strcmp(s->path, ":memory:")));
  if (!ok)
    cl1_err_set(err, "store %s: journal mode is '%s', not WAL (a file system without shared "
                     "memory?)", s->path, mode ? mode : "?");
  cl1_store_done(s, st);
  if (!ok) return -1;
  if (cl1_store_exec(s, "PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL", "set pragmas", err))
    return -1;
  int fk = 0;
  if (sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_FKEY, -1, &fk) != SQLITE_OK || fk != 1)
    return cl1_err_set(err, "store %s: this SQLite does not enforce foreign keys", s->path);
  return 0;
}

int cl1_store_open(const char *path, cl1_store **out, cl1_err *err) {
  *out = NULL;
  if (!path || !*path) return cl1_err_set(err, "store: no database path given");
  /* the loop's threads share one connection: SQLite must have been built to allow it */
  if (!sqlite3_threadsafe())
    return cl1_err_set(err, "store %s: this SQLite library is built without thread support",
                       path);
  cl1_store *s = calloc(1, sizeof *s);
  if (!s) return cl1_err_set(err, "store %s: out of memory", path);
  if (strlen(path) >= sizeof s->path) {
    free(s);
    return cl1_err_set(err, "store: database path is too long (%zu bytes)", strlen(path));
  }
  cl1_strcpy(s->path, sizeof s->path, path);
  if (pthread_mutex_init(&s->mu, NULL)) {
    free(s);
    return cl1_err_set(err, "store %s: cannot create its mutex", path);
  }
  if (pthread_mutex_init(&s->cache_mu, NULL)) {
    pthread_mutex_destroy(&s->mu);
    free(s);
    return cl1_err_set(err, "store %s: cannot create its mutex", path);
  }
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  int rc = sqlite3_open_v2(path, &s->db, flags, NULL);
  if (rc != SQLITE_OK) {
    cl1_err_set(err, "cannot open store %s: %s", path,
                s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
    cl1_store_close(s);
    return -1;
  }
  if (configure(s, err) || cl1_store_migrate(s, STEPS, CL1_STORE_SCHEMA_VERSION, err)) {
    cl1_store_close(s);
    return -1;
  }
  *out = s;
  return 0;
}

void cl1_store_close(cl1_store *s) {
  if (!s) return;
  for (int i = 0; i < s->n_cached; i++) {
    assert(!s->cache[i].busy && "a statement still in use at close");
    sqlite3_finalize(s->cache[i].st);
    free(s->cache[i].sql);
  }
  /* _v2: a statement a report query left unfinalized delays the close instead of failing it */
  int rc = sqlite3_close_v2(s->db);
  assert(rc == SQLITE_OK);
  (void)rc;
  pthread_mutex_destroy(&s->mu);
  pthread_mutex_destroy(&s->cache_mu);
  free(s);
}

const char *cl1_store_path(const cl1_store *s) { return s->path; }
sqlite3 *cl1_store_db(cl1_store *s) { return s->db; }
void cl1_store_lock(cl1_store *s) { pthread_mutex_lock(&s->mu); }
void cl1_store_unlock(cl1_store *s) { pthread_mutex_unlock(&s->mu); }

/* ---- tasks -------------------------------------------------------------------------------- */

int cl1_store_task_put(cl1_store *s, const char *task_id, int level, const char *name,
                       bool degenerate, cl1_err *err) {
  static const char op[] = "put task";
  if (!task_id || !*task_id) return cl1_store_bad(s, err, op, "no task id");
  if (!name || !*name) return cl1_store_bad(s, err, op, "task %s has no name", task_id);
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = cl1_store_write(s, op, err,
                           "INSERT INTO tasks(id, level, name, degenerate) VALUES(?1, ?2, ?3, ?4)"
                           " ON CONFLICT(id) DO UPDATE SET level = excluded.level,"
                           " name = excluded.name, degenerate = excluded.degenerate",
                           "titi", task_id, level, name, degenerate ? 1 : 0);
  return cl1_store_end(s, rc, op, err);
}

/* ---- runs --------------------------------------------------------------------------------- */

bool cl1_store_one_of(const char *v, const char *set) {
  if (!v || !*v) return false;
  size_t n = strlen(v);
  for (const char *p = set;; p++) {
    if (!strncmp(p, v, n) && (p[n] == '|' || p[n] == 0)) return true;
    if (!(p = strchr(p, '|'))) return false;
  }
}

int cl1_store_run_create(cl1_store *s, const char *config_json, const char *policy,
                         const char *model, const char *device, const char *shapes,
                         int64_t *run_id, cl1_err *err) {
  static const char op[] = "create run";
  *run_id = 0;
  if (!config_json || !*config_json) return cl1_store_bad(s, err, op, "no config");
  if (!policy || !*policy) return cl1_store_bad(s, err, op, "no policy");
  if (!cl1_store_one_of(device, CL1_STORE_DEVICES))
    return cl1_store_bad(s, err, op, "device '%s' is not cuda or host", device ? device : "");
  if (!cl1_store_one_of(shapes, CL1_STORE_SHAPES))
    return cl1_store_bad(s, err, op, "shapes '%s' is not test, small or large",
                         shapes ? shapes : "");
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = cl1_store_write(s, op, err,
                           "INSERT INTO runs(config, status, policy, model, device, shapes,"
                           " started_at) VALUES(?1, 'running', ?2, ?3, ?4, ?5, " CL1_STORE_NOW ")",
                           "ttttt", config_json, policy, model, device, shapes);
  int64_t id = rc ? 0 : sqlite3_last_insert_rowid(s->db);
  if (cl1_store_end(s, rc, op, err)) return -1;
  assert(id > 0);
  *run_id = id;
  return 0;
}

void cl1_store_run_free(cl1_store_run *r) {
  if (!r) return;
  char **f[] = {&r->config, &r->status,  &r->policy,     &r->model,
                &r->device, &r->shapes, &r->started_at, &r->finished_at};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    free(*f[i]);
    *f[i] = NULL;
  }
}

int cl1_store_run_get(cl1_store *s, int64_t run_id, cl1_store_run *out, cl1_err *err) {
  static const char op[] = "read run";
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st;
  cl1_store_lock(s);
  int rc = cl1_store_query(s, &st, op, err,
                           "SELECT config, status, policy, model, device, shapes, started_at,"
                           " finished_at FROM runs WHERE id = ?1",
                           "I", run_id);
  if (!rc) {
    int r = cl1_store_row(s, st, op, err);
    if (r == 0) rc = cl1_store_bad(s, err, op, "run %lld is not in the store", (long long)run_id);
    if (r < 0) rc = -1;
    if (r == 1) {
      char **f[] = {&out->config, &out->status,  &out->policy,     &out->model,
                    &out->device, &out->shapes, &out->started_at, &out->finished_at};
      for (int i = 0; i < 8 && !rc; i++)
        if (cl1_store_col_dup(st, i, f[i])) rc = cl1_store_bad(s, err, op, "out of memory");
      out->id = run_id;
    }
    cl1_store_done(s, st);
  }
  cl1_store_unlock(s);
  if (rc) cl1_store_run_free(out);
  return rc;
}

int cl1_store_run_set_status(cl1_store *s, int64_t run_id, const char *status, cl1_err *err) {
  static const char op[] = "set run status";
  if (!cl1_store_one_of(status, "running|done|interrupted|failed"))
    return cl1_store_bad(s, err, op, "status '%s' is not running, done, interrupted or failed",
                         status ? status : "");
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = cl1_store_write(s, op, err,
                           "UPDATE runs SET status = ?2, finished_at = CASE WHEN ?2 = 'running'"
                           " THEN NULL ELSE " CL1_STORE_NOW " END WHERE id = ?1",
                           "It", run_id, status);
  if (!rc && sqlite3_changes(s->db) == 0)
    rc = cl1_store_bad(s, err, op, "run %lld is not in the store", (long long)run_id);
  return cl1_store_end(s, rc, op, err);
}

int cl1_store_run_latest(cl1_store *s, int64_t *run_id, cl1_err *err) {
  static const char op[] = "find the latest run";
  sqlite3_stmt *st;
  *run_id = 0;
  cl1_store_lock(s);
  int rc = cl1_store_query(s, &st, op, err, "SELECT max(id) FROM runs", "");
  if (!rc) rc = cl1_store_one_id(s, st, op, run_id, err);
  cl1_store_unlock(s);
  return rc;
}

/* ---- rounds ------------------------------------------------------------------------------- */

int cl1_store_round_open(cl1_store *s, int64_t run_id, const char *task_id, int round,
                         int64_t *round_id, cl1_err *err) {
  char op[256];
  snprintf(op, sizeof op, "open round %d of %s in run %lld", round, task_id ? task_id : "?",
           (long long)run_id);
  *round_id = 0;
  if (!task_id || !*task_id) return cl1_store_bad(s, err, op, "no task id");
  if (round < 1) return cl1_store_bad(s, err, op, "rounds count from 1");
  if (cl1_store_begin(s, op, err)) return -1;
  int64_t id = 0;
  sqlite3_stmt *st = NULL;
  int rc = cl1_store_write(s, op, err,
                           "INSERT INTO rounds(run_id, task_id, round, status, started_at)"
                           " VALUES(?1, ?2, ?3, 'open', " CL1_STORE_NOW ")"
                           " ON CONFLICT(run_id, task_id, round) DO NOTHING",
                           "Iti", run_id, task_id, round);
  if (!rc)
    rc = cl1_store_query(s, &st, op, err,
                         "SELECT id FROM rounds WHERE run_id = ?1 AND task_id = ?2 AND round = ?3",
                         "Iti", run_id, task_id, round);
  if (!rc) rc = cl1_store_one_id(s, st, op, &id, err);
  if (cl1_store_end(s, rc, op, err)) return -1;
  assert(id > 0);
  *round_id = id;
  return 0;
}

int cl1_store_round_close(cl1_store *s, int64_t round_id, double best_speedup, cl1_err *err) {
  static const char op[] = "close round";
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = cl1_store_write(s, op, err,
                           "UPDATE rounds SET status = 'done', best_speedup = ?2,"
                           " finished_at = " CL1_STORE_NOW " WHERE id = ?1",
                           "Ir", round_id, best_speedup < 0 ? NAN : best_speedup);
  if (!rc && sqlite3_changes(s->db) == 0)
    rc = cl1_store_bad(s, err, op, "round %lld is not in the store", (long long)round_id);
  return cl1_store_end(s, rc, op, err);
}

int cl1_store_round_status(cl1_store *s, int64_t run_id, const char *task_id, int round,
                           char status[16], int64_t *round_id, cl1_err *err) {
  static const char op[] = "read round status";
  status[0] = 0;
  *round_id = 0;
  if (!task_id) return cl1_store_bad(s, err, op, "no task id");
  sqlite3_stmt *st;
  cl1_store_lock(s);
  int rc = cl1_store_query(s, &st, op, err,
                           "SELECT id, status FROM rounds WHERE run_id = ?1 AND task_id = ?2"
                           " AND round = ?3",
                           "Iti", run_id, task_id, round);
  if (!rc) {
    int r = cl1_store_row(s, st, op, err);
    if (r < 0) rc = -1;
    if (r == 1) {
      *round_id = sqlite3_column_int64(st, 0);
      const char *t = (const char *)sqlite3_column_text(st, 1);
      cl1_strcpy(status, 16, t ? t : "");
    }
    cl1_store_done(s, st);
  }
  cl1_store_unlock(s);
  return rc;
}

/* ---- baselines ---------------------------------------------------------------------------- */

int cl1_store_baselines_put(cl1_store *s, const cl1_store_baseline *rows, int n, cl1_err *err) {
  static const char op[] = "put baseline";
  assert(n >= 0 && (n == 0 || rows));
  for (int i = 0; i < n; i++) {
    const cl1_store_baseline *b = &rows[i];
    if (!b->task_id || !b->shapes || !b->name || !b->status)
      return cl1_store_bad(s, err, op, "task, shapes, name and status are required");
    if (!strcmp(b->status, "ok") && !(b->median_ms > 0))
      return cl1_store_bad(s, err, op, "%s %s %s: status ok needs a positive median", b->task_id,
                           b->shapes, b->name);
  }
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    const cl1_store_baseline *b = &rows[i];
    rc = cl1_store_write(s, op, err,
        "INSERT INTO baselines(task_id, shapes, name, status, median_ms, ref_ms, ci_rel, torch, gpu,"
        " source, imported_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
        " " CL1_STORE_NOW ")"
        " ON CONFLICT(task_id, shapes, name) DO UPDATE SET status = excluded.status,"
        " median_ms = excluded.median_ms, ref_ms = excluded.ref_ms, ci_rel = excluded.ci_rel,"
        " torch = excluded.torch, gpu = excluded.gpu, source = excluded.source,"
        " imported_at = excluded.imported_at",
        "ttttrrrttt", b->task_id, b->shapes, b->name, b->status, b->median_ms, b->ref_ms, b->ci_rel,
        b->torch, b->gpu, b->source);
  }
  return cl1_store_end(s, rc, op, err);
}

int cl1_store_baseline_put(cl1_store *s, const cl1_store_baseline *b, cl1_err *err) {
  return cl1_store_baselines_put(s, b, 1, err);
}

int cl1_store_baseline_get(cl1_store *s, const char *task_id, const char *shapes, const char *name,
                           cl1_store_baseline_row *out, cl1_err *err) {
  static const char op[] = "get baseline";
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st;
  cl1_store_lock(s);
  if (cl1_store_query(s, &st, op, err, "SELECT status, median_ms, ref_ms, gpu FROM baselines"
                      " WHERE task_id = ?1 AND shapes = ?2 AND name = ?3", "ttt", task_id, shapes, name)) {
    cl1_store_unlock(s);
    return -1;
  }
  int r = cl1_store_row(s, st, op, err);
  if (r == 1) {
    out->found = true;
    snprintf(out->status, sizeof out->status, "%s", (const char *)sqlite3_column_text(st, 0));
    out->median_ms = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 1);
    out->ref_ms = sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 2);
    const unsigned char *g = sqlite3_column_text(st, 3);
    snprintf(out->gpu, sizeof out->gpu, "%s", g ? (const char *)g : "");
  }
  cl1_store_done(s, st);
  cl1_store_unlock(s);
  return r < 0 ? -1 : 0;
}
