/* store_import.c — solutions imported from others' files (schema v6, `cudal1 import`): a row's
 * task, solution and its publisher's claims written together, so an import stopped at any moment
 * leaves each row either wholly in the store or not at all. */
#include "store_int.h"
#include <stdio.h>
#include <string.h>

static int check_import(cl1_store *s, const char *op, const cl1_store_import *im, cl1_err *err) {
  if (!im->task_id || !*im->task_id) return cl1_store_bad(s, err, op, "no task id");
  if (!im->task_name || !*im->task_name)
    return cl1_store_bad(s, err, op, "task %s has no name", im->task_id);
  if (cl1_store_check_solution(s, op, im->backend, im->source, "import", err)) return -1;
  if (!cl1_store_one_of(im->kind, "cuda-l1|jsonl"))
    return cl1_store_bad(s, err, op, "kind '%s' is not cuda-l1 or jsonl", im->kind ? im->kind : "");
  if (!cl1_store_one_of(im->format, "kernelbench|cabi"))
    return cl1_store_bad(s, err, op, "format '%s' is not kernelbench or cabi",
                         im->format ? im->format : "");
  if (!im->source_file || !*im->source_file) return cl1_store_bad(s, err, op, "no source file");
  if (im->line < 1) return cl1_store_bad(s, err, op, "line %d: lines count from 1", im->line);
  if (!im->task || !*im->task) return cl1_store_bad(s, err, op, "no task as the row named it");
  if (!im->claims_json || im->claims_json[0] != '{')
    return cl1_store_bad(s, err, op, "the claims are not a JSON object");
  return 0;
}

int cl1_store_import_put(cl1_store *s, const cl1_store_import *im, int64_t *sol_id,
                         bool *existed, cl1_err *err) {
  char op[600];
  snprintf(op, sizeof op, "import %s:%d", im->source_file ? im->source_file : "?", im->line);
  *sol_id = 0;
  *existed = false;
  if (check_import(s, op, im, err)) return -1;
  if (cl1_store_begin(s, op, err)) return -1;
  /* DO NOTHING: a suite task keeps its level, name and degenerate note */
  int rc = cl1_store_write(s, op, err,
                           "INSERT INTO tasks(id, level, name, degenerate) VALUES(?1, ?2, ?3, 0)"
                           " ON CONFLICT(id) DO NOTHING",
                           "tit", im->task_id, im->level, im->task_name);
  int64_t id = 0;
  bool had = false;
  if (!rc)
    rc = cl1_store_tx_solution(s, op, im->task_id, im->backend, im->source, "import", "[]", 0,
                               &id, &had, err);
  if (!rc)
    rc = cl1_store_write(s, op, err,
                         "INSERT INTO import_claims(solution_id, kind, source_file, line, level,"
                         " task, format, claims, imported_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7,"
                         " ?8, " CL1_STORE_NOW ") ON CONFLICT(solution_id, source_file, line)"
                         " DO UPDATE SET kind = excluded.kind, level = excluded.level,"
                         " task = excluded.task, format = excluded.format,"
                         " claims = excluded.claims",
                         "Ittidttt", id, im->kind, im->source_file, im->line,
                         (int64_t)im->claim_level, im->task, im->format, im->claims_json);
  if (cl1_store_end(s, rc, op, err)) return -1;
  *sol_id = id;
  *existed = had;
  return 0;
}
