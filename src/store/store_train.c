/* store_train.c — training runs (schema v5, `cudal1 train`): one row per run with the config
 * its engine was given, and the events the engine printed, each in its own transaction, so a
 * run stopped at any moment keeps every event recorded before it. */
#include "store_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STAGES "sft|selfsup|grpo|all"
#define ENGINES "trl|verl"
#define STATUSES "running|done|failed|stopped"

int cl1_store_train_run_create(cl1_store *s, const char *stage, const char *engine,
                               const char *model, const char *out, const char *config,
                               int64_t *run_id, cl1_err *err) {
  static const char op[] = "create training run";
  *run_id = 0;
  if (!cl1_store_one_of(stage, STAGES))
    return cl1_store_bad(s, err, op, "stage '%s' is not sft, selfsup, grpo or all",
                         stage ? stage : "");
  if (!cl1_store_one_of(engine, ENGINES))
    return cl1_store_bad(s, err, op, "engine '%s' is not trl or verl", engine ? engine : "");
  if (!out || !*out) return cl1_store_bad(s, err, op, "no output folder");
  if (!config || !*config) return cl1_store_bad(s, err, op, "no config");
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = cl1_store_write(s, op, err,
                           "INSERT INTO train_runs(created, stage, engine, model, out, config,"
                           " status) VALUES(" CL1_STORE_NOW ", ?1, ?2, ?3, ?4, ?5, 'running')",
                           "ttttt", stage, engine, model, out, config);
  int64_t id = rc ? 0 : sqlite3_last_insert_rowid(s->db);
  if (cl1_store_end(s, rc, op, err)) return -1;
  *run_id = id;
  return 0;
}

void cl1_store_train_run_free(cl1_store_train_run *r) {
  if (!r) return;
  char **f[] = {&r->created, &r->stage, &r->engine, &r->model, &r->out, &r->config, &r->status};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
    free(*f[i]);
    *f[i] = NULL;
  }
}

int cl1_store_train_run_get(cl1_store *s, int64_t run_id, cl1_store_train_run *out,
                            cl1_err *err) {
  static const char op[] = "read training run";
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st;
  cl1_store_lock(s);
  int rc = cl1_store_query(s, &st, op, err,
                           "SELECT created, stage, engine, model, out, config, status"
                           " FROM train_runs WHERE id = ?1", "I", run_id);
  if (!rc) {
    int r = cl1_store_row(s, st, op, err);
    if (r == 0)
      rc = cl1_store_bad(s, err, op, "training run %lld is not in the store", (long long)run_id);
    if (r < 0) rc = -1;
    char **f[] = {&out->created, &out->stage, &out->engine, &out->model, &out->out, &out->config,
                  &out->status};
    for (int i = 0; r == 1 && i < 7 && !rc; i++)
      if (cl1_store_col_dup(st, i, f[i])) rc = cl1_store_bad(s, err, op, "out of memory");
    out->id = run_id;
    cl1_store_done(s, st);
  }
  cl1_store_unlock(s);
  if (rc) cl1_store_train_run_free(out);
  return rc;
}

int cl1_store_train_run_update(cl1_store *s, int64_t run_id, const char *status,
                               const char *config, cl1_err *err) {
  static const char op[] = "update training run";
  if (!cl1_store_one_of(status, STATUSES))
    return cl1_store_bad(s, err, op, "status '%s' is not running, done, failed or stopped",
                         status ? status : "");
  if (cl1_store_begin(s, op, err)) return -1;
  int rc = cl1_store_write(s, op, err,
                           "UPDATE train_runs SET status = ?2, config = COALESCE(?3, config)"
                           " WHERE id = ?1", "Itt", run_id, status, config);
  if (!rc && sqlite3_changes(s->db) == 0)
    rc = cl1_store_bad(s, err, op, "training run %lld is not in the store", (long long)run_id);
  return cl1_store_end(s, rc, op, err);
}

int cl1_store_train_event_add(cl1_store *s, int64_t run_id, const char *event, const char *stage,
                              int round, int step, const char *data, cl1_err *err) {
  static const char op[] = "record training event";
  if (!event || !*event) return cl1_store_bad(s, err, op, "no event name");
  if (!data || !*data) return cl1_store_bad(s, err, op, "no event data");
  if (cl1_store_begin(s, op, err)) return -1;
  /* a round or step of -1 is absent: bound as text NULL */
  int rc = cl1_store_write(s, op, err,
                           "INSERT INTO train_events(run_id, t, event, stage, round, step, data)"
                           " VALUES(?1, " CL1_STORE_NOW ", ?2, ?3, CASE WHEN ?4 < 0 THEN NULL"
                           " ELSE ?4 END, CASE WHEN ?5 < 0 THEN NULL ELSE ?5 END, ?6)",
                           "Ittiit", run_id, event, stage, round, step, data);
  return cl1_store_end(s, rc, op, err);
}
