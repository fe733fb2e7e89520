/* import.h — solutions others published, brought into the store: `cudal1 import cuda-l1` reads
 * CUDA-L1's released JSON-lines files (one KernelBench problem a row, `ref_code`, with CUDA-L1's
 * solution, `custom_code`, and the speedups it claims, `score_*`), `cudal1 import jsonl` generic
 * rows ({"task", "code", "format"?, "backend"?, "meta"?}). A row's problem becomes a task folder
 * through the task importer (`cudal1 task import PROBLEM.py DIR`), content-addressed so that the
 * same problem is imported once; its code becomes a solution of origin 'import' with the claims
 * and the row's provenance beside it (cl1_store_import_put: all in one transaction). A bad row
 * is named on the diagnostics stream as `FILE:LINE: reason` and skipped; the rest go on. */
#ifndef CL1_IMPORT_H
#define CL1_IMPORT_H
#include <stdbool.h>
#include <stdio.h>
#include "../base/err.h"
#include "../store/store.h"

/* How long the task importer may run on one problem (it runs the PyTorch problem once, on the
 * CPU: a level-3 network at KernelBench's sizes takes minutes). */
#define CL1_IMPORT_TASK_TIMEOUT_S 900

typedef enum { CL1_IMPORT_CUDA_L1, CL1_IMPORT_JSONL } cl1_import_kind;

typedef struct {
  cl1_import_kind kind;
  const char *file;          /* the JSON-lines file, as the user named it (messages use it) */
  cl1_store *store;          /* NULL when listing */
  const char *tasks_dir;     /* where task folders are made: DIR/cuda-l1/levelL/..., DIR/jsonl/... */
  /* The task importer's arguments before PROBLEM.py and DIR: {".../cudal1", "task", "import"},
   * or a stand-in with the same interface ($CUDAL1_TASK_IMPORTER, for tests). */
  const char *const *importer;
  int n_importer;
  int task_timeout_s;        /* <= 0: CL1_IMPORT_TASK_TIMEOUT_S */
  bool list;                 /* cuda-l1 only: one JSON line a valid row on out; no store, no
                                task importer */
  FILE *out, *diag;          /* the listing; each bad row's line */
} cl1_import_opts;

typedef struct {
  int rows;                  /* non-blank lines */
  int imported;              /* rows whose solution is in the store now (listed, with list) */
  int malformed, no_code, refused;
} cl1_import_stats;

/* Imports (or lists) o->file row by row. 0 when the file was read to its end (bad rows are in
 * *st, each named on o->diag); -1 when it cannot be read at all (err names it and the cause);
 * -2 when the import had to stop part way (the store failed, a task folder could not be made,
 * the task importer could not be started: err says which; the rows before it stay imported). */
int cl1_import_file(const cl1_import_opts *o, cl1_import_stats *st, cl1_err *err);

/* "imported N, skipped M (malformed K, no custom code J, task refused R)". */
void cl1_import_summary(const cl1_import_stats *st, char *out, size_t n);

/* Whether source defines `class ModelNew` (a KernelBench solution rather than C-ABI code). */
bool cl1_import_is_kernelbench(const char *source);

#endif
