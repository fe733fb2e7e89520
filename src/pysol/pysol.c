/* pysol.c — libcl1py.so: the "solution" a worker loads to run a PyTorch module (a KernelBench
 * `Model` reference or a `ModelNew` candidate) through the C ABI (python/cudal1/pysol.py says
 * how). This loader holds no Python symbol: the worker dlopens its libraries RTLD_LOCAL, but
 * CPython's extension modules (torch._C, a load_inline build) resolve the interpreter's symbols
 * from the global scope, so libpython must be opened RTLD_GLOBAL first — $CUDAL1_LIBPYTHON, which
 * the judge sets (src/eval/pybuild.h) — and only then the part that calls it, libcl1py_rt.so,
 * found beside this file. cl1_ops_preload runs before the sandbox (worker.c: preload_ops): the
 * interpreter and torch start there, outside the candidate's limits and threads budget. */
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cudal1/solution.h"

typedef int (*init_fn)(void);
typedef int (*load_fn)(const char *, char *, size_t);
typedef int (*setup_fn)(const cl1_call *, void **);
typedef int (*fwd_fn)(const cl1_call *);
typedef void (*down_fn)(void *);
typedef const char *(*report_fn)(void);
typedef int (*params_fn)(uint64_t, const char *);

static struct {
  load_fn load, prepare;
  params_fn params;
  setup_fn setup;
  fwd_fn forward;
  down_fn teardown;
  report_fn report;
} g_rt;

static void *sym(void *lib, const char *name, int *missing) {
  void *p = dlsym(lib, name);
  if (!p) {
    fprintf(stderr, "libcl1py: libcl1py_rt.so has no %s\n", name);
    *missing = 1;
  }
  return p;
}

CL1_EXPORT int cl1_ops_preload(void) {
  if (g_rt.forward) return 0;
  const char *py = getenv("CUDAL1_LIBPYTHON");
  if (!py || !py[0]) {
    fprintf(stderr, "libcl1py: CUDAL1_LIBPYTHON is not set (the judge sets it from python3)\n");
    return -1;
  }
  if (!dlopen(py, RTLD_NOW | RTLD_GLOBAL)) {
    fprintf(stderr, "libcl1py: cannot load %s: %s\n", py, dlerror());
    return -1;
  }
  Dl_info self;
  char rt[PATH_MAX];
  if (!dladdr((void *)(uintptr_t)cl1_ops_preload, &self) || !self.dli_fname) return -1;
  snprintf(rt, sizeof rt, "%s", self.dli_fname);
  char *slash = strrchr(rt, '/');
  snprintf(slash ? slash + 1 : rt, sizeof rt - (size_t)(slash ? slash + 1 - rt : 0),
           "libcl1py_rt.so");
  void *lib = dlopen(rt, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "libcl1py: cannot load %s: %s\n", rt, dlerror());
    return -1;
  }
  int missing = 0;
  init_fn init = (init_fn)(uintptr_t)sym(lib, "cl1_pyrt_init", &missing);
  g_rt.load = (load_fn)(uintptr_t)sym(lib, "cl1_pyrt_load", &missing);
  g_rt.prepare = (load_fn)(uintptr_t)sym(lib, "cl1_pyrt_prepare", &missing);
  g_rt.params = (params_fn)(uintptr_t)sym(lib, "cl1_pyrt_params", &missing);
  g_rt.setup = (setup_fn)(uintptr_t)sym(lib, "cl1_pyrt_setup", &missing);
  g_rt.teardown = (down_fn)(uintptr_t)sym(lib, "cl1_pyrt_teardown", &missing);
  g_rt.report = (report_fn)(uintptr_t)sym(lib, "cl1_pyrt_report", &missing);
  fwd_fn fwd = (fwd_fn)(uintptr_t)sym(lib, "cl1_pyrt_forward", &missing);
  if (missing || init()) return -1;
  g_rt.forward = fwd;
  return 0;
}

/* Before the sandbox, for the module SETUP names: pysol.prepare (no candidate code runs). */
CL1_EXPORT int cl1_py_prepare(const char *spec, char *msg, size_t n) {
  if (!g_rt.prepare) {
    snprintf(msg, n, "the Python runtime was not preloaded");
    return -1;
  }
  return g_rt.prepare(spec, msg, n);
}

/* The module named by the worker's SETUP ("py": pysol.py's spec); its top-level code runs here. */
CL1_EXPORT int cl1_py_load(const char *spec, char *msg, size_t n) {
  if (!g_rt.load) {
    snprintf(msg, n, "the Python runtime was not preloaded");
    return -1;
  }
  return g_rt.load(spec, msg, n);
}

/* The params set's seed and variant, before cl1_setup: a KernelBench-format task's module is
 * constructed under them (python/cudal1/pyinit.py). */
CL1_EXPORT int cl1_py_params(uint64_t seed, const char *variant) {
  return g_rt.params ? g_rt.params(seed, variant) : -1;
}

CL1_EXPORT const char *cl1_py_report(void) { return g_rt.report ? g_rt.report() : NULL; }

CL1_EXPORT int cl1_setup(const cl1_call *call, void **state) {
  return g_rt.setup ? g_rt.setup(call, state) : -1;
}

CL1_EXPORT int cl1_forward(const cl1_call *call) {
  return g_rt.forward ? g_rt.forward(call) : -1;
}

CL1_EXPORT void cl1_teardown(void *state) {
  if (g_rt.teardown) g_rt.teardown(state);
}
