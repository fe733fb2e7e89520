/* pytask.c — KernelBench-format problems as task folders (pytask.h). */
#include "pytask.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "compile.h"
#include "pybuild.h"
#include "../base/file.h"
#include "../base/hash.h"
#include "../base/proc.h"
#include "../task/task.h"

#define IMPORT_LIMIT_S 600
#define OUT_CAP (32 << 10)

/* The last line of the importer's output: its reason. */
static const char *last_line(char *out, size_t len) {
  while (len && (out[len - 1] == '\n' || out[len - 1] == '\r')) out[--len] = 0;
  char *nl = strrchr(out, '\n');
  return nl ? nl + 1 : out;
}

int cl1_pytask_import(const char *problem, const char *dir, char *const *extra, int n_extra,
                      cl1_err *err) {
  char abs_problem[PATH_MAX], abs_dir[PATH_MAX];
  if (!realpath(problem, abs_problem)) return cl1_err_set(err, "%s: %s", problem, strerror(errno)), 1;
  if (cl1_file_mkdirs(dir, err) || !realpath(dir, abs_dir)) return cl1_err_wrap(err, "task folder");
  if (cl1_pyenv_ensure(err)) return -1;
  char *args[64] = {abs_problem, abs_dir};
  int k = 2;
  for (int i = 0; i < n_extra && k < 63; i++) args[k++] = extra[i];
  args[k] = NULL;
  const char *env[] = {"CUDA_VISIBLE_DEVICES=", NULL};  /* the problem runs on the CPU */
  cl1_pyrun r = {.dir = abs_dir, .module = "cudal1.kbtask", .limit_s = IMPORT_LIMIT_S,
                 .cpu_s = 2 * IMPORT_LIMIT_S, .mem_mb = 65536, .env = env};
  char *out = malloc(OUT_CAP);
  if (!out) return cl1_err_set(err, "out of memory");
  size_t len = 0;
  int st = 0, rc = cl1_pybuild_run(&r, args, out, OUT_CAP, &len, &st, err);
  if (rc < 0) rc = cl1_err_wrap(err, "task import");
  else if (rc == CL1_PROC_TIMEOUT) {
    cl1_err_set(err, "%s: running the problem took over %d s", problem, IMPORT_LIMIT_S);
    rc = 1;
  } else if (st == 1 || st == 2) {
    cl1_err_set(err, "%s", last_line(out, len));
    rc = 1;
  } else if (st) {
    rc = cl1_err_set(err, "task import failed (exit %d): %.500s", st, last_line(out, len));
  }
  free(out);
  if (rc) return rc;
  cl1_task *t = NULL;
  if (cl1_task_load(abs_dir, &t, err)) return cl1_err_wrap(err, "the imported task"), -1;
  cl1_task_free(t);
  return 0;
}

int cl1_pytask_cached(const char *problem, const char *cache_dir, char *out, size_t n,
                      cl1_err *err) {
  char *b;
  size_t len;
  if (cl1_file_read(problem, 16 << 20, &b, &len, err)) return 1;
  cl1_sha *h = cl1_sha_new();
  cl1_sha_add_str(h, "cudal1-kbtask-v1");
  cl1_sha_add(h, b, len);
  free(b);
  char hash[65], root[PATH_MAX];
  cl1_sha_hex(h, hash);
  if (cl1_cache_root(cache_dir, root, sizeof root, err)) return -1;
  if ((size_t)snprintf(out, n, "%s/kbtasks/%.32s", root, hash) >= n)
    return cl1_err_set(err, "path too long");
  char js[PATH_MAX + 64];
  snprintf(js, sizeof js, "%s/task.json", out);
  struct stat st;
  if (!stat(js, &st)) return 0;
  /* imported beside, then renamed: a half-written folder is never found */
  char tmp[PATH_MAX + 64];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)getpid());
  int rc = cl1_pytask_import(problem, tmp, NULL, 0, err);
  if (!rc && rename(tmp, out) && stat(js, &st))
    rc = cl1_err_set(err, "%s: cannot store the import: %s", out, strerror(errno));
  cl1_file_rm_tree(tmp);
  return rc;
}
