/* report_json.c — the report's numbers as JSON (the same ones the Markdown and HTML show):
 * runs, and per section the summary of every column per level (all tasks and without the
 * degenerate ones), the per-task rows and the per-round best speedups; "training": the training
 * view's runs, rounds, evaluations and every step. Undefined numbers are null. */
#include "report_int.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void num(cJSON *o, const char *k, double v) {
  if (isnan(v) || isinf(v)) cJSON_AddNullToObject(o, k);
  else cJSON_AddNumberToObject(o, k, v);
}

static void str(cJSON *o, const char *k, const char *v) {
  if (v) cJSON_AddStringToObject(o, k, v);
  else cJSON_AddNullToObject(o, k);
}

static cJSON *stats_json(const cl1_report_stats *a) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "tasks", a->n_tasks);
  cJSON_AddNumberToObject(o, "correct", a->n_correct);
  num(o, "success", a->success);
  num(o, "mean", a->mean);
  num(o, "geomean", a->geomean);
  num(o, "median", a->median);
  num(o, "max", a->max);
  num(o, "over_1_01", a->over_1_01);
  cJSON *f = cJSON_AddObjectToObject(o, "fast");
  for (int p = 0; p < CL1_REPORT_N_FAST; p++) {
    char k[16];
    snprintf(k, sizeof k, "%g", cl1_report_fast_p[p]);
    num(f, k, a->fast[p]);
  }
  return o;
}

static int summary_json(cJSON *sec, const cl1_report_section *s, cl1_err *err) {
  cJSON *sum = cJSON_AddObjectToObject(sec, "summary");
  int lv[CL1_REP_MAX_LEVELS];
  int nl = cl1_report_levels(s, lv, CL1_REP_MAX_LEVELS);
  for (int c = 0; c < s->n_cols; c++) {
    cJSON *rows = cJSON_AddArrayToObject(sum, s->col[c]);
    for (int k = 0; k <= nl; k++) {
      int level = k < nl ? lv[k] : 0;
      cl1_report_stats a, x;
      if (cl1_rep_level_stats(s, c, level, &a, &x, err)) return -1;
      cJSON *row = cJSON_CreateObject();
      if (level) cJSON_AddNumberToObject(row, "level", level);
      else cJSON_AddStringToObject(row, "level", "all");
      cJSON_AddItemToObject(row, "all_tasks", stats_json(&a));
      cJSON_AddItemToObject(row, "excl_degenerate", stats_json(&x));
      cJSON_AddItemToArray(rows, row);
    }
  }
  return 0;
}

static cJSON *task_json(const cl1_report_section *s, const cl1_report_task *t) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "id", t->id);
  cJSON_AddStringToObject(o, "name", t->name);
  cJSON_AddNumberToObject(o, "level", t->level);
  cJSON_AddBoolToObject(o, "degenerate", t->degenerate);
  cJSON_AddBoolToObject(o, "correct", t->correct);
  cJSON *sp = cJSON_AddObjectToObject(o, "speedup");
  cJSON *na = cJSON_AddObjectToObject(o, "unavailable");
  for (int c = 0; c < s->n_cols; c++) {
    num(sp, s->col[c], t->correct && t->has[c] ? t->speedup[c] : NAN);
    if (!t->has[c]) str(na, s->col[c], t->note[c]);
  }
  if (t->best_eval) cJSON_AddNumberToObject(o, "best_evaluation", (double)t->best_eval);
  else cJSON_AddNullToObject(o, "best_evaluation");
  num(o, "cand_ms", t->cand_ms);
  num(o, "ref_ms", t->ref_ms);
  num(o, "spread", t->spread);
  /* flags was ", "-joined from a JSON array of identifiers; split back */
  cJSON *fl = cJSON_AddArrayToObject(o, "flags");
  for (const char *p = t->flags; *p;) {
    const char *e = strstr(p, ", ");
    size_t k = e ? (size_t)(e - p) : strlen(p);
    char *one = strndup(p, k);
    if (one) cJSON_AddItemToArray(fl, cJSON_CreateString(one));
    free(one);
    p += k + (e ? 2 : 0);
  }
  cJSON *sa = cJSON_AddObjectToObject(o, "samples");
  cJSON_AddNumberToObject(sa, "all", t->n_samples);
  cJSON_AddNumberToObject(sa, "evaluated", t->n_evaluated);
  cJSON_AddNumberToObject(sa, "passed", t->n_passed);
  cJSON *ev = cJSON_AddObjectToObject(o, "evaluations");
  cJSON_AddNumberToObject(ev, "all", t->n_evals);
  cJSON_AddNumberToObject(ev, "passed", t->n_evals_passed);
  cJSON_AddNumberToObject(o, "rounds", t->n_rounds);
  return o;
}

static int section_json(cJSON *arr, const cl1_report_section *s, cl1_err *err) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToArray(arr, o);
  cJSON_AddStringToObject(o, "backend", s->backend);
  cJSON_AddStringToObject(o, "shapes", s->shapes);
  cJSON_AddStringToObject(o, "devices", s->gpus);
  cJSON *cols = cJSON_AddArrayToObject(o, "columns");
  for (int c = 0; c < s->n_cols; c++) cJSON_AddItemToArray(cols, cJSON_CreateString(s->col[c]));
  if (summary_json(o, s, err)) return -1;
  cJSON *tasks = cJSON_AddArrayToObject(o, "tasks");
  for (int i = 0; i < s->n_tasks; i++) cJSON_AddItemToArray(tasks, task_json(s, &s->tasks[i]));
  cJSON *rounds = cJSON_AddArrayToObject(o, "rounds");
  for (int i = 0; i < s->n_rounds; i++) {
    const cl1_report_round *x = &s->rounds[i];
    cJSON *ro = cJSON_CreateObject();
    cJSON_AddNumberToObject(ro, "run", (double)x->run);
    cJSON_AddStringToObject(ro, "task", s->tasks[x->task].id);
    cJSON_AddNumberToObject(ro, "round", x->round);
    num(ro, "best_speedup", x->best);
    cJSON_AddItemToArray(rounds, ro);
  }
  return 0;
}

int cl1_report_json(const cl1_report *r, char **out, cl1_err *err) {
  cJSON *doc = cJSON_CreateObject();
  if (!doc) return cl1_err_set(err, "report: out of memory rendering the JSON report");
  char title[512];
  cl1_report_title(r, title, sizeof title);
  cJSON_AddStringToObject(doc, "title", title);
  cJSON_AddStringToObject(doc, "db", r->db_path);
  if (r->run) cJSON_AddNumberToObject(doc, "run", (double)r->run);
  else cJSON_AddNullToObject(doc, "run");
  cJSON_AddBoolToObject(doc, "replayed", cl1_rep_replayed(r, NULL));
  cJSON *fp = cJSON_AddArrayToObject(doc, "fast_p");
  for (int p = 0; p < CL1_REPORT_N_FAST; p++)
    cJSON_AddItemToArray(fp, cJSON_CreateNumber(cl1_report_fast_p[p]));
  cJSON *runs = cJSON_AddArrayToObject(doc, "runs");
  for (int i = 0; i < r->n_runs; i++) {
    const cl1_report_run *u = &r->runs[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)u->id);
    str(o, "policy", u->policy);
    cJSON_AddBoolToObject(o, "replayed", !strcmp(u->policy, "replay"));
    str(o, "model", u->model);
    str(o, "device", u->device);
    str(o, "shapes", u->shapes);
    str(o, "status", u->status);
    str(o, "started_at", u->started_at);
    str(o, "finished_at", u->finished_at);
    cJSON_AddItemToArray(runs, o);
  }
  cJSON *secs = cJSON_AddArrayToObject(doc, "sections");
  for (int i = 0; i < r->n_sec; i++)
    if (section_json(secs, &r->sec[i], err)) {
      cJSON_Delete(doc);
      return -1;
    }
  cl1_rep_train_json(doc, r);
  *out = cJSON_Print(doc);
  cJSON_Delete(doc);
  if (!*out) return cl1_err_set(err, "report: out of memory rendering the JSON report");
  return 0;
}
