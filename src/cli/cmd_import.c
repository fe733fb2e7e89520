/* cmd_import.c — `cudal1 import cuda-l1|jsonl FILE`: others' published kernels into the store as
 * tasks and solutions of origin 'import' with their claims (src/data/import.h); `--list` shows
 * a CUDA-L1 file's rows without touching anything. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "base/proc.h"
#include "data/import.h"
#include "store/store.h"

static const char usage[] =
    "usage: cudal1 import cuda-l1 FILE [--db PATH] [--tasks-dir DIR] [--list]\n"
    "       cudal1 import jsonl FILE [--db PATH] [--tasks-dir DIR]\n"
    "\n"
    "cuda-l1: CUDA-L1's released kernels (optimized_cuda_code/<gpu>.json, one JSON object a line:\n"
    "level_id, task_id, ref_code — the KernelBench problem —, custom_code — CUDA-L1's ModelNew, or\n"
    "null / \"None\" — and the speedups it claims, score_*). Each row's problem becomes a task\n"
    "folder DIR/cuda-l1/level<L>/<task_id>_<hash of ref_code> (made once by `cudal1 task import`;\n"
    "the same problem again reuses it), its custom_code a solution (origin import) with the\n"
    "claimed scores, file and line beside it (table import_claims).\n"
    "  --list           one JSON line a row (level, task_id, line, has_custom_code, the claimed\n"
    "                   score_default); nothing is written and no task is imported\n"
    "\n"
    "jsonl: generic rows {\"task\": T, \"code\": SOURCE, \"format\"?: \"cabi\"|\"kernelbench\",\n"
    "\"backend\"?: \"cuda\"|\"host\", \"meta\"?: {...}}. T is a suite id (level1/19_ReLU), a task\n"
    "folder (or its task.json), or a KernelBench problem .py (imported into DIR/jsonl/<stem>_<hash>\n"
    "by `cudal1 task import`); paths are relative to the working folder. The format defaults to\n"
    "kernelbench when the code has a class ModelNew, else cabi; the backend to cuda; meta is\n"
    "stored as the row's claims.\n"
    "\n"
    "  --db PATH        the store (default ./cudal1.db; created when absent)\n"
    "  --tasks-dir DIR  where task folders go (default: imported/ beside the store)\n"
    "\n"
    "Each row's task, solution and claims are written in one transaction; importing a file again\n"
    "adds nothing. A bad row (not JSON, a field missing or of the wrong type, a problem the task\n"
    "importer refuses) is named as FILE:LINE: reason on stderr and skipped. The last line says\n"
    "\"imported N, skipped M (malformed K, no custom code J, task refused R)\".\n"
    "$CUDAL1_TASK_IMPORTER: a program run as PROGRAM PROBLEM.py DIR instead of `cudal1 task\n"
    "import PROBLEM.py DIR` (the tests' stand-in).\n"
    "Exit status: 0 when a row was imported or none was bad, 2 on a usage error, an unreadable\n"
    "file or only bad rows, 3 when the store or the task importer failed.\n";

typedef struct {
  cl1_import_kind kind;
  const char *file, *db, *tasks_dir;
  bool list;
} args;

static int parse(int argc, char **argv, args *a) {
  if (argc < 2) return cl1_cli_verb("import", NULL, "cuda-l1 or jsonl");
  if (!strcmp(argv[1], "cuda-l1")) a->kind = CL1_IMPORT_CUDA_L1;
  else if (!strcmp(argv[1], "jsonl")) a->kind = CL1_IMPORT_JSONL;
  else return cl1_cli_verb("import", argv[1], "cuda-l1 or jsonl");
  const char *cmd = a->kind == CL1_IMPORT_CUDA_L1 ? "import cuda-l1" : "import jsonl";
  for (int i = 2; i < argc; i++) {
    const char **val = !strcmp(argv[i], "--db")          ? &a->db
                       : !strcmp(argv[i], "--tasks-dir") ? &a->tasks_dir
                                                         : NULL;
    if (val) {
      if (i + 1 >= argc || !argv[i + 1][0]) {
        fprintf(stderr, "cudal1 %s: %s needs a path\n", cmd, argv[i]);
        return 2;
      }
      *val = argv[++i];
    } else if (!strcmp(argv[i], "--list") && a->kind == CL1_IMPORT_CUDA_L1) {
      a->list = true;
    } else if (argv[i][0] == '-' || a->file) {
      return cl1_cli_unknown(cmd, argv[i]);
    } else {
      a->file = argv[i];
    }
  }
  if (!a->file) {
    fprintf(stderr, "cudal1 %s: no FILE given (see cudal1 %s --help)\n", cmd, cmd);
    return 2;
  }
  return 0;
}

/* imported/ in the store's folder. */
static void default_tasks_dir(const char *db, char *out, size_t n) {
  const char *slash = strrchr(db, '/');
  if (!slash) snprintf(out, n, "imported");
  else snprintf(out, n, "%.*s/imported", (int)(slash - db), db);
}

/* The task importer: $CUDAL1_TASK_IMPORTER, else `cudal1 task import` of this build. */
static int importer(const char **argv, int *n, char *prog, size_t cap) {
  const char *e = getenv("CUDAL1_TASK_IMPORTER");
  if (e && *e) {
    argv[0] = e;
    *n = 1;
    return 0;
  }
  cl1_err err = {{0}};
  if (cl1_proc_find_program(NULL, "cudal1", prog, cap, &err)) {
    fprintf(stderr, "cudal1 import: %s\n", err.msg);
    return 3;
  }
  argv[0] = prog, argv[1] = "task", argv[2] = "import";
  *n = 3;
  return 0;
}

static int finish(const args *a, const cl1_import_stats *st, int rc, const cl1_err *err) {
  char line[200];
  if (rc) fprintf(stderr, "cudal1 import: %s\n", err->msg);
  if (!a->list && (rc != -1 || st->rows)) {
    cl1_import_summary(st, line, sizeof line);
    printf("%s\n", line);
  }
  if (rc == -1) return 2;
  if (rc) return 3;
  return st->imported > 0 || st->malformed + st->refused == 0 ? 0 : 2;
}

int cl1_cmd_import(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage)) return 0;
  args a = {.db = "cudal1.db"};
  int rc = parse(argc, argv, &a);
  if (rc) return rc;
  char tasks_dir[PATH_MAX], prog[PATH_MAX];
  if (a.tasks_dir) snprintf(tasks_dir, sizeof tasks_dir, "%s", a.tasks_dir);
  else default_tasks_dir(a.db, tasks_dir, sizeof tasks_dir);
  const char *imp[4];
  cl1_import_opts o = {.kind = a.kind, .file = a.file, .tasks_dir = tasks_dir, .importer = imp,
                       .list = a.list, .out = stdout, .diag = stderr};
  if (!a.list && (rc = importer(imp, &o.n_importer, prog, sizeof prog))) return rc;
  cl1_err err = {{0}};
  struct stat sb;
  /* before the store is opened: a mistyped FILE never leaves a new, empty store behind */
  bool folder = stat(a.file, &sb) == 0 && S_ISDIR(sb.st_mode);
  if (folder || access(a.file, R_OK)) {
    fprintf(stderr, "cudal1 import: %s: cannot read: %s\n", a.file,
            folder ? "it is a folder" : strerror(errno));
    return 2;
  }
  cl1_store *s = NULL;
  if (!a.list && cl1_store_open(a.db, &s, &err)) {
    fprintf(stderr, "cudal1 import: %s\n", err.msg);
    return 3;
  }
  o.store = s;
  cl1_import_stats st;
  rc = cl1_import_file(&o, &st, &err);
  fflush(stdout);
  cl1_store_close(s);
  return finish(&a, &st, rc, &err);
}
