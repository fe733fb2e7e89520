/* pybuild.c — Python solutions on the evaluator's path (pybuild.h): the python3 the workers embed
 * and the confined, cached build step. */
#include "pybuild.h"
#include "eval.h"
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../base/file.h"
#include "../base/hash.h"
#include "../base/proc.h"

#define PY_FORMAT "cudal1-pybuild-v1"
#define OUT_CAP (64 << 10)
#define BUILD_MEM_MB (64 << 10)   /* address space: torch with CUDA maps tens of GiB of it */
#define BUILD_MIN_S 300           /* a cold load_inline takes about a minute per extension */

bool cl1_pybuild_is_python(const char *path) {
  size_t k = path ? strlen(path) : 0;
  return k > 3 && !strcmp(path + k - 3, ".py");
}

static char g_exe[PATH_MAX];  /* sys.executable: not a launcher (pyenv's shims need $HOME) */

static const char *python3(void) {
  const char *p = getenv("CUDAL1_PYTHON");
  return g_exe[0] ? g_exe : p && p[0] ? p : "python3";
}

/* What python3 says of itself, as JSON: its shared libpython, prefix, sys.path, torch's folder. */
static const char *ENV_QUERY =
    "import sys, os, json, sysconfig as s, importlib.util as u\n"
    "lib = ''\n"
    "for d in (s.get_config_var('LIBDIR') or '', os.path.join(s.get_config_var('LIBDIR') or '',"
    " s.get_config_var('MULTIARCH') or '')):\n"
    "  for n in (s.get_config_var('INSTSONAME'), s.get_config_var('LDLIBRARY')):\n"
    "    if not lib and n and '.so' in n and os.path.exists(os.path.join(d, n)):"
    " lib = os.path.join(d, n)\n"
    "t = u.find_spec('torch')\n"
    "print(json.dumps({'lib': lib, 'home': sys.base_prefix, 'path': [p for p in sys.path if p],"
    " 'torch': os.path.dirname(t.origin) if t and t.origin else '',"
    " 'exe': sys.executable, 'version': sys.version.split()[0]}))\n";

static pthread_mutex_t g_env_mu = PTHREAD_MUTEX_INITIALIZER;
static char g_torch_dir[PATH_MAX];
/* Set once the environment is known: from then on cl1_pyenv_ensure takes no lock, so a compile
 * pool's child forked while another thread held g_env_mu (cl1_compile_many forks without exec)
 * never waits on a lock no thread of its own will give back. */
static atomic_int g_env_ready;

static int env_from_query(const char *json, cl1_err *err) {
  cJSON *o = cJSON_Parse(json);
  const cJSON *lib = cJSON_GetObjectItemCaseSensitive(o, "lib");
  const cJSON *home = cJSON_GetObjectItemCaseSensitive(o, "home");
  const cJSON *path = cJSON_GetObjectItemCaseSensitive(o, "path");
  const cJSON *torch = cJSON_GetObjectItemCaseSensitive(o, "torch");
  int rc = 0;
  if (!cJSON_IsString(lib) || !cJSON_IsString(home) || !cJSON_IsArray(path)) {
    rc = cl1_err_set(err, "%s did not describe itself (got: %.200s)", python3(), json);
  } else if (!lib->valuestring[0]) {
    rc = cl1_err_set(err, "%s has no shared libpython (built without --enable-shared): Python "
                     "solutions need one (set CUDAL1_PYTHON to another python3)", python3());
  } else if (!cJSON_IsString(torch) || !torch->valuestring[0]) {
    rc = cl1_err_set(err, "%s cannot import torch: Python solutions need PyTorch "
                     "(scripts/deps --python installs it)", python3());
  } else {
    char share[PATH_MAX], *pp = NULL;
    cl1_proc_share_dir("CUDAL1_PYTHON_DIR", "python", share, sizeof share);
    char *real = realpath(share, NULL);
    size_t cap = strlen(real ? real : share) + 2;
    const cJSON *e;
    cJSON_ArrayForEach(e, path) if (cJSON_IsString(e)) cap += strlen(e->valuestring) + 1;
    pp = malloc(cap);
    if (!pp) {
      free(real);
      cJSON_Delete(o);
      return cl1_err_set(err, "out of memory");
    }
    strcpy(pp, real ? real : share);
    cJSON_ArrayForEach(e, path) if (cJSON_IsString(e)) strcat(strcat(pp, ":"), e->valuestring);
    free(real);
    if (!getenv("CUDAL1_LIBPYTHON")) setenv("CUDAL1_LIBPYTHON", lib->valuestring, 1);
    if (!getenv("CUDAL1_PYHOME")) setenv("CUDAL1_PYHOME", home->valuestring, 1);
    if (!getenv("CUDAL1_PYPATH")) setenv("CUDAL1_PYPATH", pp, 1);
    const cJSON *exe = cJSON_GetObjectItemCaseSensitive(o, "exe");
    if (cJSON_IsString(exe)) snprintf(g_exe, sizeof g_exe, "%s", exe->valuestring);
    snprintf(g_torch_dir, sizeof g_torch_dir, "%s", torch->valuestring);
    free(pp);
  }
  cJSON_Delete(o);
  return rc;
}

const char *cl1_pyenv_python(void) { return python3(); }

int cl1_pyenv_ensure(cl1_err *err) {
  if (atomic_load(&g_env_ready)) return 0;
  pthread_mutex_lock(&g_env_mu);
  int rc = 0;
  if (!atomic_load(&g_env_ready)) {
    char *argv[] = {(char *)python3(), "-c", (char *)ENV_QUERY, NULL};
    char out[16384];
    size_t len = 0;
    int st = 0;
    rc = cl1_proc_run(argv, NULL, 60000, out, sizeof out, &len, &st, err);
    if (rc < 0) rc = cl1_err_wrap(err, "Python solutions need python3");
    else if (rc || st) rc = cl1_err_set(err, "%s could not describe itself (exit %d): %.300s",
                                        python3(), st, out);
    else rc = env_from_query(out, err);
    if (rc == 0) atomic_store(&g_env_ready, 1);
  }
  pthread_mutex_unlock(&g_env_mu);
  return rc;
}

int cl1_pybuild_runtime(const cl1_compile_opts *o, char *out, size_t n, cl1_err *err) {
  char ops[PATH_MAX], inc[PATH_MAX];
  cl1_compile_opts ho = *o;
  ho.backend = CL1_BACKEND_HOST; /* libcl1py sits beside the host op library (one build folder) */
  if (cl1_compile_find_dirs(&ho, NULL, ops, sizeof ops, inc, sizeof inc, err)) return -1;
  if ((size_t)snprintf(out, n, "%s/libcl1py.so", ops) >= n) return cl1_err_set(err, "path too long");
  char rt[PATH_MAX + 32];
  snprintf(rt, sizeof rt, "%s/libcl1py_rt.so", ops);
  if (access(out, R_OK) || access(rt, R_OK))
    return cl1_err_set(err, "the Python runtime (libcl1py.so, libcl1py_rt.so) is not in %s: "
                       "`make` builds it (it needs python3's headers)", ops);
  return 0;
}

/* Adds a file's content to the key (absent files add their name only). */
static void hash_file(cl1_sha *h, const char *path) {
  char *b = NULL;
  size_t n = 0;
  cl1_err ignore;
  cl1_sha_add_str(h, path);
  if (!cl1_file_read(path, 16 << 20, &b, &n, &ignore)) cl1_sha_add(h, b, n);
  free(b);
}

bool cl1_pybuild_uses_triton(const char *src, size_t n) {
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && (src[j] == ' ' || src[j] == '\t')) j++;
    size_t left = n - j;
    if ((left > 13 && !strncmp(src + j, "import triton", 13) &&
         strchr(" \t\n\r.,;", src[j + 13])) ||
        (left > 11 && !strncmp(src + j, "from triton", 11) && strchr(" \t\n\r.", src[j + 11])))
      return true;
    const char *nl = memchr(src + i, '\n', n - i);
    i = nl ? (size_t)(nl - src) + 1 : n;
  }
  return false;
}

/* The call a module's build makes at the evaluation's shapes (compile.h: task, shapes): a
 * Triton module's on CUDA, and a load_inline module's forward probe when it has no get_inputs()
 * (pybuild.py probe_calls). Malloc'd JSON (part of the key), or NULL: neither, or no task. */
static char *warm_spec(const char *src, size_t n, const cl1_compile_opts *o) {
  if (!o->task) return NULL;
  bool triton = o->backend == CL1_BACKEND_CUDA && cl1_pybuild_uses_triton(src, n);
  if (!triton && !memmem(src, n, "load_inline", strlen("load_inline"))) return NULL;
  return cl1_eval_py_warm(o->task, o->shapes);
}

static void key_of(const char *src, size_t n, const cl1_compile_opts *o, const char *warm,
                   char hash[65]) {
  cl1_sha *h = cl1_sha_new();
  cl1_sha_add_str(h, PY_FORMAT);
  cl1_sha_add_str(h, cl1_backend_name(o->backend));
  cl1_sha_add_str(h, o->arch ? o->arch : cl1_compile_build_arch());
  char len[32], p[PATH_MAX + 64], share[PATH_MAX];
  snprintf(len, sizeof len, "%zu", n);
  cl1_sha_add_str(h, len);
  cl1_sha_add(h, src, n);
  cl1_proc_share_dir("CUDAL1_PYTHON_DIR", "python", share, sizeof share);
  snprintf(p, sizeof p, "%s/cudal1/pysol.py", share);
  hash_file(h, p);
  snprintf(p, sizeof p, "%s/cudal1/pybuild.py", share);
  hash_file(h, p);
  snprintf(p, sizeof p, "%s/version.py", g_torch_dir);
  hash_file(h, p);
  if (warm) cl1_sha_add_str(h, warm);
  cl1_sha_hex(h, hash);
}

void cl1_pybuild_key(const char *src, size_t n, const cl1_compile_opts *o, char hash[65]) {
  char *warm = warm_spec(src, n, o);
  key_of(src, n, o, warm, hash);
  free(warm);
}

/* The last lines of the build's output: where Python says what went wrong. */
static void tail_diag(char *diag, size_t cap, const char *out, size_t len) {
  size_t keep = cap - 1 < 1500 ? cap - 1 : 1500;
  const char *s = len > keep ? out + len - keep : out;
  if (len > keep) {
    const char *nl = strchr(s, '\n');
    if (nl) s = nl + 1;
  }
  snprintf(diag, cap, "%s", s);
}

int cl1_pybuild_run(const cl1_pyrun *r, char *const *args, char *out, size_t cap, size_t *len,
                    int *status, cl1_err *err) {
  char worker[PATH_MAX], tmp[PATH_MAX + 16], mem[32], cpu[32];
  if (cl1_proc_find_program("CUDAL1_WORKER", "cudal1-worker", worker, sizeof worker, err))
    return -1;
  snprintf(tmp, sizeof tmp, "%s/.tmp", r->dir);
  if (cl1_file_mkdirs(tmp, err)) return -1;
  snprintf(mem, sizeof mem, "%d", r->mem_mb);
  snprintf(cpu, sizeof cpu, "%d", r->cpu_s);
  char *argv[80] = {worker, "--confine-build", (char *)r->dir, mem, cpu, "--", (char *)python3(),
                    "-m", (char *)r->module};
  int n = 9;
  for (int i = 0; args[i] && n < 79; i++) argv[n++] = args[i];
  argv[n] = NULL;
  /* a small environment: intermediates and caches (TMPDIR, HOME) in the folder, cudal1's package
     importable, python3's own bin first (ninja, a PyPI package, is installed beside it) */
  char vars[6][PATH_MAX * 3], *envp[16], bin[PATH_MAX];
  int k = 0;
  snprintf(vars[k], sizeof vars[k], "TMPDIR=%s", tmp), envp[k] = vars[k], k++;
  snprintf(vars[k], sizeof vars[k], "HOME=%s", tmp), envp[k] = vars[k], k++;
  snprintf(vars[k], sizeof vars[k], "PYTHONPATH=%s", getenv("CUDAL1_PYPATH")), envp[k] = vars[k], k++;
  snprintf(bin, sizeof bin, "%s", python3());
  char *slash = strrchr(bin, '/');
  if (slash) *slash = 0;
  snprintf(vars[k], sizeof vars[k], "PATH=%s%s%s", slash ? bin : "", slash ? ":" : "",
           getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
  envp[k] = vars[k], k++;
  static const char *const pass[] = {"CUDA_HOME", "LD_LIBRARY_PATH"};
  for (int i = 0; i < 2; i++)
    if (getenv(pass[i]))
      snprintf(vars[k], sizeof vars[k], "%s=%s", pass[i], getenv(pass[i])), envp[k] = vars[k], k++;
  envp[k++] = "PYTHONDONTWRITEBYTECODE=1";
  for (int i = 0; r->env && r->env[i] && k < 15; i++) envp[k++] = (char *)r->env[i];
  envp[k] = NULL;
  cl1_proc_limits lim = {256LL << 20, envp};
  int rc = cl1_proc_run_lim(argv, r->dir, r->limit_s * 1000, &lim, out, cap, len, status, err);
  cl1_file_rm_tree(tmp);
  return rc;
}

/* Runs the build confined in dir (python3 -m cudal1.pybuild dir/module.py dir/ext -). */
static int run_build(const char *dir, const cl1_compile_opts *o, const char *warm,
                     cl1_compile_result *res, cl1_err *err) {
  char mod[PATH_MAX + 256], ext[PATH_MAX + 256], archv[64];
  int limit_s = o->timeout_s > BUILD_MIN_S ? o->timeout_s : BUILD_MIN_S;
  snprintf(mod, sizeof mod, "%s/module.py", dir);
  snprintf(ext, sizeof ext, "%s/ext", dir);
  /* torch builds for the GPU it finds unless told: the evaluator's architecture ("90" -> 9.0) */
  const char *arch = o->arch ? o->arch : cl1_compile_build_arch();
  snprintf(archv, sizeof archv, "TORCH_CUDA_ARCH_LIST=%.*s.%s", (int)strlen(arch) - 1, arch,
           arch + strlen(arch) - 1);
  /* the backend (a Triton module is called once on the GPU: pybuild.py) and Triton's cache in
     the folder, where the worker is pointed at it (judge_py.c: "triton_dir") */
  char backendv[64], tritonv[PATH_MAX + 256];
  snprintf(backendv, sizeof backendv, "CUDAL1_BUILD_BACKEND=%s", cl1_backend_name(o->backend));
  snprintf(tritonv, sizeof tritonv, "TRITON_CACHE_DIR=%s/triton", dir);
  char *warmv = NULL;
  if (warm && asprintf(&warmv, "CUDAL1_WARM=%s", warm) < 0) return cl1_err_set(err, "out of memory");
  const char *env[] = {archv, backendv, tritonv, warmv, NULL};
  cl1_pyrun r = {.dir = dir, .module = "cudal1.pybuild", .limit_s = limit_s,
                 .cpu_s = 2 * limit_s, .mem_mb = BUILD_MEM_MB, .env = env};
  char *args[] = {mod, ext, "-", NULL};
  char *out = malloc(OUT_CAP);
  if (!out) {
    free(warmv);
    return cl1_err_set(err, "out of memory");
  }
  size_t len = 0;
  int st = 0;
  int rc = cl1_pybuild_run(&r, args, out, OUT_CAP, &len, &st, err);
  if (rc < 0) rc = cl1_err_wrap(err, "the Python build step");
  else if (rc == CL1_PROC_TIMEOUT) {
    snprintf(res->diag, sizeof res->diag, "the build (load_inline) ran past %d s", limit_s);
    rc = 2;
  } else if (st == 1) {
    tail_diag(res->diag, sizeof res->diag, out, len);
    rc = 1;
  } else if (st) {
    rc = cl1_err_set(err, "the Python build step failed (exit %d): %.600s", st,
                     len > 600 ? out + len - 600 : out);
  }
  free(out);
  free(warmv);
  return rc;
}

/* Builds src in a fresh folder beneath root/py/tmp, then renames it to dir: a finished folder
 * appears whole, or not at all; a concurrent twin wins. rc as cl1_pybuild_source. */
static int build_into(const char *root, const char *dir, const char *src, size_t n,
                      const cl1_compile_opts *o, const char *warm, cl1_compile_result *res,
                      cl1_err *err) {
  char tmpl[PATH_MAX + 64], tmod[PATH_MAX + 96], mod[PATH_MAX + 160];
  snprintf(tmpl, sizeof tmpl, "%s/py/tmp", root);
  if (cl1_file_mkdirs(tmpl, err)) return -1;
  snprintf(tmpl, sizeof tmpl, "%s/py/tmp/build.XXXXXX", root);
  if (!mkdtemp(tmpl)) return cl1_err_set(err, "%s: cannot create a build folder: %s", root,
                                          strerror(errno));
  snprintf(tmod, sizeof tmod, "%s/module.py", tmpl);
  int rc = 0;
  FILE *f = fopen(tmod, "wb");
  if (!f || fwrite(src, 1, n, f) != n) rc = cl1_err_set(err, "%s: cannot write", tmod);
  if (f && fclose(f) && !rc) rc = cl1_err_set(err, "%s: cannot write", tmod);
  if (!rc) rc = run_build(tmpl, o, warm, res, err);
  snprintf(mod, sizeof mod, "%s/module.py", dir);
  struct stat st;
  if (!rc && rename(tmpl, dir) && stat(mod, &st))
    rc = cl1_err_set(err, "%s: cannot store the build: %s", dir, strerror(errno));
  cl1_file_rm_tree(tmpl);
  return rc;
}

int cl1_pybuild_source(const char *src, size_t n, const cl1_compile_opts *o,
                       cl1_compile_result *res, cl1_err *err) {
  double t0 = cl1_now();
  memset(res, 0, sizeof *res);
  if (cl1_pyenv_ensure(err) || cl1_pybuild_runtime(o, res->so_path, sizeof res->so_path, err))
    return -1;
  char root[PATH_MAX], dir[PATH_MAX + 128], mod[PATH_MAX + 160];
  if (cl1_cache_root(o->cache_dir, root, sizeof root, err)) return -1;
  char *warm = warm_spec(src, n, o);
  key_of(src, n, o, warm, res->hash);
  snprintf(dir, sizeof dir, "%s/py/%s", root, res->hash);
  snprintf(mod, sizeof mod, "%s/module.py", dir);
  struct stat st;
  res->cached = !o->no_cache && stat(mod, &st) == 0;
  int rc = 0;
  if (!res->cached) rc = build_into(root, dir, src, n, o, warm, res, err);
  free(warm);
  if (!rc && (size_t)snprintf(res->py_module, sizeof res->py_module, "%s", mod) >= sizeof res->py_module)
    rc = cl1_err_set(err, "%s: path too long", mod);
  res->seconds = cl1_now() - t0;
  return rc;
}
