/* baselines.c — importing tools/baselines.py's files into the store and speedups against them
 * (baselines.h). The whole file is checked, and its tasks loaded, before anything is written; its
 * rows are written in one transaction. */
#include "baselines.h"
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "../base/file.h"
#include "../task/task.h"

static const char *str_field(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One mode of one task: status text, and for "ok" a positive median. */
static int check_mode(const char *path, int i, const cJSON *m, cl1_err *err) {
  if (!cJSON_IsObject(m))
    return cl1_err_set(err, "%s: results[%d].modes.%s: expected an object", path, i, m->string);
  const char *st = str_field(m, "status");
  if (!st || !*st)
    return cl1_err_set(err, "%s: results[%d].modes.%s.status: expected \"ok\" or the reason it "
                            "failed", path, i, m->string);
  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(m, "median_ms");
  if (!strcmp(st, "ok") && !(cJSON_IsNumber(ms) && ms->valuedouble > 0 && isfinite(ms->valuedouble)))
    return cl1_err_set(err, "%s: results[%d].modes.%s.median_ms: expected a positive number", path,
                       i, m->string);
  return 0;
}

/* The document's shape: tool, shapes, results[] of {task, ref_ms?, modes{name: {...}}}. Each
 * row's task is found and loaded here, once (tasks[i], the caller frees them); *n_modes counts
 * every row's modes. */
static int check_doc(const char *path, const cJSON *d, cl1_task **tasks, int *n_modes,
                     cl1_err *err) {
  const char *sh = str_field(d, "shapes");
  if (!sh || (strcmp(sh, "small") && strcmp(sh, "large") && strcmp(sh, "test")))
    return cl1_err_set(err, "%s: shapes: expected \"small\", \"large\" or \"test\"", path);
  const cJSON *r;
  int i = 0;
  *n_modes = 0;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d, "results")) {
    const char *t = str_field(r, "task");
    if (!t) return cl1_err_set(err, "%s: results[%d].task: expected a task id", path, i);
    char dir[4096];
    cl1_err e2 = {{0}};
    if (cl1_task_find(cl1_suite_root(), t, dir, sizeof dir, &e2) ||
        cl1_task_load(dir, &tasks[i], &e2))
      return cl1_err_set(err, "%s: results[%d].task: %s", path, i, e2.msg);
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(r, "ref_ms");
    if (ref && !cJSON_IsNull(ref) && !(cJSON_IsNumber(ref) && ref->valuedouble > 0))
      return cl1_err_set(err, "%s: results[%d].ref_ms: expected a positive number or null", path, i);
    const cJSON *modes = cJSON_GetObjectItemCaseSensitive(r, "modes"), *m;
    if (!cJSON_IsObject(modes))
      return cl1_err_set(err, "%s: results[%d].modes: expected an object of modes", path, i);
    cJSON_ArrayForEach(m, modes) {
      if (check_mode(path, i, m, err)) return -1;
      (*n_modes)++;
    }
    i++;
  }
  return 0;
}

/* One mode of a checked row as a store row; its reference time is the one timed beside it when
 * the file has that, else the row's. */
static cl1_store_baseline mode_row(const cJSON *d, const cJSON *r, const cJSON *m, const char *id,
                                   const char *path) {
  const char *tool = str_field(d, "tool");
  const cJSON *ref = cJSON_GetObjectItemCaseSensitive(r, "ref_ms"),
              *ms = cJSON_GetObjectItemCaseSensitive(m, "median_ms"),
              *ci = cJSON_GetObjectItemCaseSensitive(m, "ci_rel"),
              *mref = cJSON_GetObjectItemCaseSensitive(m, "ref_ms");
  if (cJSON_IsNumber(mref) && mref->valuedouble > 0) ref = mref;
  return (cl1_store_baseline){
      .task_id = id, .shapes = str_field(d, "shapes"), .name = m->string,
      .status = str_field(m, "status"), .torch = str_field(d, "torch"), .gpu = str_field(d, "gpu"),
      .source = tool ? tool : path,
      .median_ms = cJSON_IsNumber(ms) ? ms->valuedouble : NAN,
      .ref_ms = cJSON_IsNumber(ref) ? ref->valuedouble : NAN,
      .ci_rel = cJSON_IsNumber(ci) ? ci->valuedouble : NAN};
}

/* Writes a checked document: its tasks, then all its rows in one transaction. */
static int put_doc(cl1_store *s, const char *path, const cJSON *d, cl1_task **tasks, int n_modes,
                   int *n_ok, int *n_failed, cl1_err *err) {
  const int set = cl1_shapes_parse(str_field(d, "shapes"));
  cl1_store_baseline *rows = calloc(n_modes ? (size_t)n_modes : 1, sizeof *rows);
  if (!rows) return cl1_err_set(err, "%s: out of memory", path);
  const cJSON *r, *m;
  int i = 0, k = 0, rc = 0;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(d, "results")) {
    const cl1_task *t = tasks[i++];
    if ((rc = cl1_store_task_put(s, t->id, t->level, t->name, cl1_task_degenerate_at(t, set), err)))
      break;
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(r, "modes"))
      rows[k++] = mode_row(d, r, m, t->id, path);
  }
  assert(rc || k == n_modes);
  if (!rc) rc = cl1_store_baselines_put(s, rows, n_modes, err);
  for (int j = 0; !rc && j < n_modes; j++) (*(strcmp(rows[j].status, "ok") ? n_failed : n_ok))++;
  free(rows);
  return rc;
}

int cl1_baselines_import(cl1_store *s, const char *path, int *n_ok, int *n_failed, cl1_err *err) {
  *n_ok = *n_failed = 0;
  char *text;
  size_t n;
  if (cl1_file_read(path, 256LL << 20, &text, &n, err)) return cl1_err_wrap(err, "baseline file");
  cJSON *d = cJSON_Parse(text);
  free(text);
  if (!d) return cl1_err_set(err, "%s: not JSON", path);
  const cJSON *res = cJSON_GetObjectItemCaseSensitive(d, "results");
  int rc = 0, n_rows = cJSON_IsArray(res) ? cJSON_GetArraySize(res) : 0, n_modes = 0;
  cl1_task **tasks = calloc(n_rows ? (size_t)n_rows : 1, sizeof *tasks);
  if (!tasks) rc = cl1_err_set(err, "%s: out of memory", path);
  else if (!cJSON_IsObject(d)) rc = cl1_err_set(err, "%s: not a JSON object", path);
  else if (!cJSON_IsArray(res)) rc = cl1_err_set(err, "%s: results: expected an array", path);
  else rc = check_doc(path, d, tasks, &n_modes, err);
  if (!rc) rc = put_doc(s, path, d, tasks, n_modes, n_ok, n_failed, err);
  for (int i = 0; tasks && i < n_rows; i++) cl1_task_free(tasks[i]);
  free(tasks);
  cJSON_Delete(d);
  return rc ? -1 : 0;
}

int cl1_baselines_vs(cl1_store *s, const char *task_id, const char *shapes, const char *name,
                     double speedup_vs_ref, double *out, char *why, size_t why_n, cl1_err *err) {
  cl1_store_baseline_row b;
  *out = NAN;
  if (cl1_store_baseline_get(s, task_id, shapes, name, &b, err)) return -1;
  if (!b.found) snprintf(why, why_n, "baseline '%s' not measured for %s at %s", name, task_id, shapes);
  else if (strcmp(b.status, "ok")) snprintf(why, why_n, "baseline '%s' failed: %s", name, b.status);
  else if (!(b.ref_ms > 0)) snprintf(why, why_n, "baseline '%s' has no reference time beside it", name);
  else if (!(speedup_vs_ref > 0)) snprintf(why, why_n, "no speedup over the reference");
  else {
    *out = cl1_baselines_through_ref(speedup_vs_ref, b.median_ms, b.ref_ms);
    return 0;
  }
  return 1;
}
