/* compile.h — a solution source to a shared object (evaluation.md, stage 2): cc for the host
 * backend, nvcc for CUDA (sm_XX + compute_XX PTX, default arch 90), linked against the op library
 * of the same backend; a time limit and an output-size limit; a content-addressed cache keyed by
 * SHA-256 of (source, flags, compiler version, arch) under $XDG_CACHE_HOME/cudal1 (default
 * ~/.cache/cudal1); and a pool that compiles many sources in parallel processes. nvcc is
 * $CUDA_HOME/bin/nvcc, else the build's CL1_CUDA_HOME. Only successes are cached. */
#ifndef CL1_COMPILE_H
#define CL1_COMPILE_H
#include <stdbool.h>
#include <stddef.h>
#include "../worker/backend.h"
#include "../base/err.h"

/* The solution's language; AUTO = by file extension for files (.c C, .cu CUDA, .py Python: a
 * KernelBench module, built by src/eval/pybuild.h), by backend for
 * sources given as text. C on the cuda backend is how task references are built: cc, linked to
 * the CUDA op library. */
typedef enum { CL1_LANG_AUTO = 0, CL1_LANG_C, CL1_LANG_CUDA, CL1_LANG_PYTHON } cl1_lang;

typedef struct {
  cl1_backend backend;
  cl1_lang lang;
  const char *arch;          /* "90" etc.; NULL = $CUDAL1_CUDA_ARCH or the build default */
  int timeout_s;             /* 0 = 60 */
  const char *cache_dir;     /* NULL = default */
  const char *ops_dir;       /* folder with libcl1ops_{host,cuda}.so; NULL = next to the binary */
  const char *include_dir;   /* folder holding cudal1/solution.h; NULL = derived from ops_dir */
  bool no_cache;             /* compile even if cached (still stores) */
  /* The evaluation's task (id or folder) and shape set (CL1_SHAPES_*): a Triton module's build
     (CUDA) also calls it as the worker will, with the task's inputs at those shapes, so its JIT
     compiles for them, and a load_inline module without get_inputs() is probed with them
     (cl1_eval_py_warm); its cache key holds them; task NULL: only the module's get_inputs(). */
  const char *task;
  int shapes;
} cl1_compile_opts;

typedef struct {
  char so_path[4096];        /* the cached .so */
  char hash[65];
  bool cached;               /* found in the cache, no compiler run */
  double seconds;            /* wall time of this call */
  char diag[4096];           /* first diagnostics when the compiler failed */
  char py_module[4096];      /* a Python source: the cached module the worker imports, else "" */
} cl1_compile_result;

/* 0: built (or cached); 1: compile_error (res->diag); 2: timeout; -1: infrastructure (err). */
/* The cache folder: override if given, else $XDG_CACHE_HOME/cudal1, else ~/.cache/cudal1. */
int cl1_cache_root(const char *override, char *out, size_t n, cl1_err *err);
int cl1_compile_file(const char *src_path, const cl1_compile_opts *o, cl1_compile_result *res,
                     cl1_err *err);
int cl1_compile_source(const char *src, size_t n, const cl1_compile_opts *o,
                       cl1_compile_result *res, cl1_err *err);

/* Compiles n files with up to `jobs` compilers at once (jobs <= 0: one per CPU), each in its own
 * worker process; rc[i] as cl1_compile_file's return, errs[i] its error (errs may be NULL).
 * Returns how many sources did not build (rc[i] != 0). */
int cl1_compile_many(int n, const char *const *src_paths, const cl1_compile_opts *o, int jobs,
                     cl1_compile_result *res, int *rc, cl1_err *errs);

/* Resolves the op-library folder and the include folder (absolute paths) the way a compile does:
 * o->ops_dir, else the first of exe_dir and up to 3 of its ancestors holding the backend's
 * libcl1ops_<backend>.so (exe_dir NULL = the running binary's folder); o->include_dir, else the
 * first <ops_dir or an ancestor up to 3 levels>/include holding cudal1/solution.h, else
 * $CUDAL1_INCLUDE. The error names every folder tried. */
int cl1_compile_find_dirs(const cl1_compile_opts *o, const char *exe_dir, char *ops_dir,
                          size_t ops_n, char *include_dir, size_t include_n, cl1_err *err);
/* The CUDA toolkit candidates are built with: $CUDA_HOME, else the build's CUDA_HOME. */
const char *cl1_compile_cuda_home(void);
/* The architecture the build was made for ("90": the Makefile's CUDA_ARCH). */
const char *cl1_compile_build_arch(void);
#endif
