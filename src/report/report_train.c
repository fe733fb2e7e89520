/* report_train.c — the training view's numbers, read from the store's train_runs and
 * train_events (schema v5, `cudal1 train`; a store without them has no training view): per run
 * its step and eval events, and per stage and round one row, from the engine's round event or,
 * when it gave none (stage 1 has no sampling rounds), from the round's step events. Events carry
 * the engine's JSON (the contract's keys); a number it left out stays NAN. */
#include "report_int.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_col(sqlite3_stmt *st, int i) {
  const unsigned char *t = sqlite3_column_text(st, i);
  return t ? strdup((const char *)t) : NULL;
}

static double jnum(const cJSON *o, const char *k) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(x) && isfinite(x->valuedouble) ? x->valuedouble : NAN;
}

/* The event's numbers; stage, round and step from the store's columns. */
static void point_of(sqlite3_stmt *st, const cJSON *o, cl1_report_train_point *p) {
  memset(p, 0, sizeof *p);
  const unsigned char *stage = sqlite3_column_text(st, 1);
  snprintf(p->stage, sizeof p->stage, "%s", stage ? (const char *)stage : "");
  p->round = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 2);
  p->step = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 3);
  double n = jnum(o, "n_samples");
  p->n_samples = isnan(n) || n < 0 ? -1 : (int)n;
  p->loss = jnum(o, "loss");
  p->reward_mean = jnum(o, "reward_mean");
  p->reward_std = jnum(o, "reward_std");
  p->success = jnum(o, "success_rate");
  p->speedup_mean = jnum(o, "speedup_mean");
  p->speedup_best = jnum(o, "speedup_best");
  p->t_generate = jnum(o, "t_generate");
  p->t_reward = jnum(o, "t_reward");
  p->t_update = jnum(o, "t_update");
  p->t_step = jnum(o, "t_step");
  p->gpu_busy = jnum(o, "gpu_busy");
}

static int push(void **arr, int *n, size_t size, const void *item) {
  void *g = realloc(*arr, size * (size_t)(*n + 1));
  if (!g) return -1;
  *arr = g;
  memcpy((char *)g + size * (size_t)*n, item, size);
  (*n)++;
  return 0;
}

/* A step reported again (a round re-run after --resume) replaces the earlier report. */
static int add_step(cl1_report_train_run *u, const cl1_report_train_point *p) {
  for (int i = 0; i < u->n_steps; i++) {
    cl1_report_train_point *q = &u->steps[i];
    if (!strcmp(q->stage, p->stage) && q->round == p->round && q->step == p->step) {
      memmove(q, q + 1, sizeof *q * (size_t)(u->n_steps - i - 1));
      u->steps[u->n_steps - 1] = *p;
      return 0;
    }
  }
  return push((void **)&u->steps, &u->n_steps, sizeof *p, p);
}

static int stage_rank(const char *s) {
  return !strcmp(s, "sft") ? 0 : !strcmp(s, "selfsup") ? 1 : !strcmp(s, "grpo") ? 2 : 3;
}

static int cmp_round(const void *a, const void *b) {
  const cl1_report_train_round *x = a, *y = b;
  int d = stage_rank(x->stage) - stage_rank(y->stage);
  if (!d) d = strcmp(x->stage, y->stage);
  return d ? d : x->round - y->round;
}

/* The row of (stage, round), made when new; NULL when out of memory. */
static cl1_report_train_round *round_row(cl1_report_train_run *u, const char *stage, int round) {
  for (int i = 0; i < u->n_rounds; i++)
    if (!strcmp(u->rounds[i].stage, stage) && u->rounds[i].round == round) return &u->rounds[i];
  cl1_report_train_round x = {.round = round, .n_samples = -1, .success = NAN,
                              .reward_mean = NAN, .speedup_mean = NAN, .speedup_best = NAN,
                              .from_steps = true};
  snprintf(x.stage, sizeof x.stage, "%s", stage);
  if (push((void **)&u->rounds, &u->n_rounds, sizeof x, &x)) return NULL;
  return &u->rounds[u->n_rounds - 1];
}

/* Mean of the present values (NAN when none) and the max of best. */
typedef struct {
  double sum[3], best;
  int n[3];
} acc;

static void acc_add(acc *a, int k, double v) {
  if (!isnan(v)) a->sum[k] += v, a->n[k]++;
}

static double acc_mean(const acc *a, int k) { return a->n[k] ? a->sum[k] / a->n[k] : NAN; }

/* Fills the rows: round events as given; the steps' means where a round has none. */
static int aggregate(cl1_report_train_run *u, const cl1_report_train_point *rounds, int n_rounds) {
  for (int i = 0; i < u->n_steps; i++) {
    const cl1_report_train_point *p = &u->steps[i];
    if (p->round < 0) continue;
    cl1_report_train_round *r = round_row(u, p->stage, p->round);
    if (!r) return -1;
    r->steps++;
  }
  for (int i = 0; i < n_rounds; i++) { /* the last round event of a round is its row */
    const cl1_report_train_point *p = &rounds[i];
    cl1_report_train_round *r = round_row(u, p->stage, p->round < 0 ? 0 : p->round);
    if (!r) return -1;
    r->from_steps = false;
    r->n_samples = p->n_samples, r->success = p->success, r->reward_mean = p->reward_mean;
    r->speedup_mean = p->speedup_mean, r->speedup_best = p->speedup_best;
  }
  for (int k = 0; k < u->n_rounds; k++) {
    cl1_report_train_round *r = &u->rounds[k];
    if (!r->from_steps) continue;
    acc a = {.best = NAN};
    for (int i = 0; i < u->n_steps; i++) {
      const cl1_report_train_point *p = &u->steps[i];
      if (strcmp(p->stage, r->stage) || p->round != r->round) continue;
      acc_add(&a, 0, p->success), acc_add(&a, 1, p->reward_mean), acc_add(&a, 2, p->speedup_mean);
      if (!isnan(p->speedup_best) && !(p->speedup_best <= a.best)) a.best = p->speedup_best;
    }
    r->success = acc_mean(&a, 0), r->reward_mean = acc_mean(&a, 1);
    r->speedup_mean = acc_mean(&a, 2), r->speedup_best = a.best;
  }
  if (u->n_rounds) qsort(u->rounds, (size_t)u->n_rounds, sizeof *u->rounds, cmp_round);
  return 0;
}

/* One event row into the run: step, round (kept aside for aggregate), eval, error. */
static int take_event(sqlite3_stmt *st, cl1_report_train_run *u, cl1_report_train_point **rounds,
                      int *n_rounds) {
  const char *ev = (const char *)sqlite3_column_text(st, 0);
  const char *data = (const char *)sqlite3_column_text(st, 4);
  if (!ev) return 0;
  bool step = !strcmp(ev, "step"), round = !strcmp(ev, "round"), eval = !strcmp(ev, "eval");
  if (!step && !round && !eval && strcmp(ev, "error")) return 0;
  cJSON *o = cJSON_Parse(data ? data : "");
  if (!cJSON_IsObject(o)) {
    cJSON_Delete(o);
    return 0; /* the recorder wrote only objects; anything else has nothing to show */
  }
  int rc = 0;
  cl1_report_train_point p;
  point_of(st, o, &p);
  if (step) rc = add_step(u, &p);
  else if (round) rc = push((void **)rounds, n_rounds, sizeof p, &p);
  else if (eval) rc = push((void **)&u->evals, &u->n_evals, sizeof p, &p);
  else {
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "message");
    free(u->error);
    u->error = strdup(cJSON_IsString(m) ? m->valuestring : "(no message)");
    rc = u->error ? 0 : -1;
  }
  cJSON_Delete(o);
  return rc;
}

static int load_events(sqlite3 *db, const char *path, cl1_report_train_run *u, cl1_err *err) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT event, stage, round, step, data FROM train_events "
                         "WHERE run_id = ?1 ORDER BY id", -1, &st, NULL) != SQLITE_OK)
    return cl1_err_set(err, "%s: reading the training events failed: %s", path, sqlite3_errmsg(db));
  sqlite3_bind_int64(st, 1, u->id);
  cl1_report_train_point *rounds = NULL;
  int n_rounds = 0, rc, bad = 0;
  while (!bad && (rc = sqlite3_step(st)) == SQLITE_ROW) bad = take_event(st, u, &rounds, &n_rounds);
  sqlite3_finalize(st);
  if (!bad && rc != SQLITE_DONE) {
    free(rounds);
    return cl1_err_set(err, "%s: reading the training events failed: %s", path, sqlite3_errmsg(db));
  }
  if (!bad) bad = aggregate(u, rounds, n_rounds);
  free(rounds);
  return bad ? cl1_err_set(err, "report: out of memory") : 0;
}

static bool has_tables(sqlite3 *db) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name "
                         "IN ('train_runs', 'train_events')", -1, &st, NULL) != SQLITE_OK)
    return false;
  bool yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 2;
  sqlite3_finalize(st);
  return yes;
}

int cl1_rep_train_load(void *sqlite_db, const char *path, cl1_report *r, cl1_err *err) {
  sqlite3 *db = sqlite_db;
  if (r->run || !has_tables(db)) return 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT id, created, stage, engine, model, out, status FROM "
                         "train_runs ORDER BY id", -1, &st, NULL) != SQLITE_OK)
    return cl1_err_set(err, "%s: reading the training runs failed: %s", path, sqlite3_errmsg(db));
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    cl1_report_train_run u = {.id = sqlite3_column_int64(st, 0), .created = dup_col(st, 1),
                              .stage = dup_col(st, 2), .engine = dup_col(st, 3),
                              .model = dup_col(st, 4), .out = dup_col(st, 5),
                              .status = dup_col(st, 6)};
    if (push((void **)&r->train, &r->n_train, sizeof u, &u)) {
      free(u.created), free(u.stage), free(u.engine), free(u.model), free(u.out), free(u.status);
      rc = SQLITE_NOMEM;
      break;
    }
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_NOMEM) return cl1_err_set(err, "report: out of memory");
  if (rc != SQLITE_DONE)
    return cl1_err_set(err, "%s: reading the training runs failed: %s", path, sqlite3_errmsg(db));
  for (int i = 0; i < r->n_train; i++)
    if (load_events(db, path, &r->train[i], err)) return -1;
  return 0;
}

void cl1_rep_train_free(cl1_report *r) {
  for (int i = 0; i < r->n_train; i++) {
    cl1_report_train_run *u = &r->train[i];
    free(u->created), free(u->stage), free(u->engine), free(u->model), free(u->out);
    free(u->status), free(u->error), free(u->rounds), free(u->evals), free(u->steps);
  }
  free(r->train);
  r->train = NULL;
  r->n_train = 0;
}
