/* pybuild.h — Python solutions and references (KernelBench's format: a `Model` / `ModelNew`
 * module) on the evaluator's path: the python3 the workers embed, and the build step.
 *
 * A worker runs Python through libcl1py (src/pysol/), which needs the judge's python3 described
 * in its environment: $CUDAL1_LIBPYTHON (the shared libpython), $CUDAL1_PYHOME (its prefix) and
 * $CUDAL1_PYPATH (its sys.path plus cudal1's python/ folder). cl1_pyenv_ensure asks python3
 * ($CUDAL1_PYTHON, else python3 on PATH) once and sets them; a variable already set is kept.
 *
 * The build step imports the module once, confined (`cudal1-worker --confine-build`: writes to
 * its own folder only, no network, memory and time limits), so every load_inline is compiled
 * there and the sandboxed worker, which may not exec, only loads what was built. Results are
 * cached by content: <cache>/py/<sha256>/{module.py, ext/}. */
#ifndef CL1_PYBUILD_H
#define CL1_PYBUILD_H
#include "compile.h"

int cl1_pyenv_ensure(cl1_err *err);
/* The python3 executable found (its sys.executable), after cl1_pyenv_ensure. */
const char *cl1_pyenv_python(void);

/* True when path names a Python source (".py"). */
bool cl1_pybuild_is_python(const char *path);

/* Builds the Python source src (n bytes) as compile.h's functions do: 0 built or cached
 * (res->so_path = libcl1py.so, res->py_module = the cached module), 1 the module did not import
 * (res->diag: a syntax error, a missing package, a load_inline that did not compile), 2 the build
 * ran past its time limit, -1 the harness's failure (err). Which class it defines is the
 * worker's to check (a candidate's failure there, not a build's). */
int cl1_pybuild_source(const char *src, size_t n, const cl1_compile_opts *o,
                       cl1_compile_result *res, cl1_err *err);

/* Whether the source imports Triton (a line `import triton...` or `from triton...`). */
bool cl1_pybuild_uses_triton(const char *src, size_t n);

/* The build's cache key (64 hex): format, backend, arch, the source, cudal1's Python runtime,
 * torch's version, and for a Triton module on CUDA the warm-up call at o->task's o->shapes.
 * After cl1_pyenv_ensure. */
void cl1_pybuild_key(const char *src, size_t n, const cl1_compile_opts *o, char hash[65]);

/* A Python module run confined (`cudal1-worker --confine-build`): `python3 -m module ARGS...` in
 * dir, writing beneath it only, TMPDIR and HOME in dir/.tmp (removed after), cudal1's package
 * importable, python3's bin first on PATH, CUDA_HOME and LD_LIBRARY_PATH passed, env added; the
 * build step and the task importer (pytask.h) both run this way. */
typedef struct {
  const char *dir, *module;
  int limit_s, cpu_s, mem_mb;    /* wall clock, CPU seconds, address space */
  const char *const *env;        /* extra NAME=VALUE entries, NULL-terminated (at most 8) */
} cl1_pyrun;
/* cl1_proc_run_lim's return: 0 (*status: the exit status), CL1_PROC_TIMEOUT, -1 (err). */
int cl1_pybuild_run(const cl1_pyrun *r, char *const *args, char *out, size_t cap, size_t *len,
                    int *status, cl1_err *err);

/* libcl1py.so beside the op libraries, or -1 (err names where it was looked for). */
int cl1_pybuild_runtime(const cl1_compile_opts *o, char *out, size_t n, cl1_err *err);
#endif
