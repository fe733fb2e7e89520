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
  char abs_problem[PATH_MAX], abs_dir[PATH_MAX], worker[PATH_MAX], tmp[PATH_MAX + 8];
  if (!realpath(problem, abs_problem)) return cl1_err_set(err, "%s: %s", problem, strerror(errno)), 1;
  if (cl1_file_mkdirs(dir, err) || !realpath(dir, abs_dir)) return cl1_err_wrap(err, "task folder");
  if (cl1_pyenv_ensure(err)) return -1;
  if (cl1_proc_find_program("CUDAL1_WORKER", "cudal1-worker", worker, sizeof worker, err))
    return -1;
  snprintf(tmp, sizeof tmp, "%s/.tmp", abs_dir);
  if (cl1_file_mkdirs(tmp, err)) return -1;
  char *argv[64] = {worker, "--confine-build", abs_dir, "65536", "1200", "--",
                    (char *)cl1_pyenv_python(), "-m", "cudal1.kbtask", abs_problem, abs_dir};
  int k = 11;
  for (int i = 0; i < n_extra && k < 63; i++) argv[k++] = extra[i];
  argv[k] = NULL;
  char e_tmp[PATH_MAX + 16], e_home[PATH_MAX + 16], e_pp[16384], e_path[8192];
  snprintf(e_tmp, sizeof e_tmp, "TMPDIR=%s", tmp);
  snprintf(e_home, sizeof e_home, "HOME=%s", tmp);
  snprintf(e_pp, sizeof e_pp, "PYTHONPATH=%s", getenv("CUDAL1_PYPATH"));
  snprintf(e_path, sizeof e_path, "PATH=%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
  char *envp[] = {e_tmp, e_home, e_pp, e_path, "PYTHONDONTWRITEBYTECODE=1",
                  "CUDA_VISIBLE_DEVICES=", NULL};
  cl1_proc_limits lim = {64LL << 20, envp};
  char *out = malloc(OUT_CAP);
  if (!out) return cl1_err_set(err, "out of memory");
  size_t len = 0;
  int st = 0, rc = cl1_proc_run_lim(argv, abs_dir, IMPORT_LIMIT_S * 1000, &lim, out, OUT_CAP,
                                    &len, &st, err);
  cl1_file_rm_tree(tmp);
  if (rc < 0) rc = cl1_err_wrap(err, "task import");
  else if (rc == CL1_PROC_TIMEOUT) {
    cl1_err_set(err, "%s: running the problem took over %d s", problem, IMPORT_LIMIT_S);
    rc = 1;
  } else if (st == 1 || st == 2) {
    cl1_err_set(err, "%s", last_line(out, len));
    rc = 1;
  }
  else if (st) rc = cl1_err_set(err, "task import failed (exit %d): %.500s", st, last_line(out, len));
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
