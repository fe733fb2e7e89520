/* compile.c — solution source to shared object (compile.h): cc or nvcc run through cl1_proc with
 * a time and size limit inside a private build folder, the result stored in a content-addressed
 * cache <cache>/so/<h[0:2]>/<h>.so. The build folder lives inside the cache so the final rename()
 * is atomic: parallel processes see either no .so or a complete one, never half of one. */
#include "compile.h"
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../base/file.h"
#include "../base/hash.h"
#include "../base/proc.h"
#include "pybuild.h"

/* Bump when anything about how a .so is produced changes outside the command line. */
#define CL1_COMPILE_FORMAT "cudal1-compile-v1"
#define MAX_SO_BYTES (64LL << 20)
#define MAX_FILE_BYTES (256LL << 20) /* RLIMIT_FSIZE for the compiler: intermediates included */
#define MAX_SRC_BYTES (64LL << 20)
#define OUT_CAP (64 * 1024)
#define DIAG_LINES 40

#ifndef CL1_CUDA_HOME
#define CL1_CUDA_HOME "/usr/local/cuda"
#endif
#ifndef CL1_CUDA_ARCH
#define CL1_CUDA_ARCH 90
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

extern char **environ;

static const char *ops_lib(cl1_backend b) {
  return b == CL1_BACKEND_CUDA ? "libcl1ops_cuda.so" : "libcl1ops_host.so";
}

static bool is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Appends to a bounded "tried" list for error messages. */
static void tried_add(char *list, size_t n, const char *what) {
  size_t k = strlen(list);
  if (k && k + 2 < n) memcpy(list + k, ", ", 3), k += 2;
  size_t w = strlen(what);
  if (k + w >= n) w = n - k - 1; /* the list is for a message: cutting it is fine */
  memcpy(list + k, what, w);
  list[k + w] = 0;
}

/* Strips the last path component in place ("/a/b" -> "/a", "/a" -> "/"). false at the root. */
static bool up(char *p) {
  char *s = strrchr(p, '/');
  if (!s || (s == p && p[1] == 0)) return false;
  if (s == p) s[1] = 0;
  else *s = 0;
  return true;
}

int cl1_compile_find_dirs(const cl1_compile_opts *o, const char *exe_dir, char *ops_dir,
                          size_t ops_n, char *include_dir, size_t include_n, cl1_err *err) {
  char d[PATH_MAX], p[PATH_MAX + 64], tried[700] = "";
  const char *lib = ops_lib(o->backend);
  if (o->ops_dir) {
    if (!realpath(o->ops_dir, d))
      return cl1_err_set(err, "ops_dir %s: %s", o->ops_dir, strerror(errno));
    snprintf(p, sizeof p, "%s/%s", d, lib);
    if (!is_file(p)) return cl1_err_set(err, "ops_dir %s has no %s", o->ops_dir, lib);
  } else {
    char start[PATH_MAX];
    if (exe_dir) snprintf(start, sizeof start, "%s", exe_dir);
    else if (cl1_proc_exe_dir(start, sizeof start) != 0)
      return cl1_err_set(err, "cannot find %s: /proc/self/exe unreadable (set ops_dir)", lib);
    if (!realpath(start, d)) return cl1_err_set(err, "cannot find %s: %s: %s", lib, start,
                                                strerror(errno));
    bool found = false;
    for (int lvl = 0; lvl <= 3 && !found; lvl++) {
      snprintf(p, sizeof p, "%s/%s", d, lib);
      tried_add(tried, sizeof tried, d);
      found = is_file(p);
      if (!found && !up(d)) break;
    }
    if (!found)
      return cl1_err_set(err, "cannot find the op library %s (tried %s); build it or set ops_dir",
                         lib, tried);
  }
  if (strlen(d) + 1 > ops_n) return cl1_err_set(err, "ops_dir path too long: %s", d);
  strcpy(ops_dir, d);

  char inc[PATH_MAX];
  if (o->include_dir) {
    if (!realpath(o->include_dir, inc))
      return cl1_err_set(err, "include_dir %s: %s", o->include_dir, strerror(errno));
    snprintf(p, sizeof p, "%s/cudal1/solution.h", inc);
    if (!is_file(p))
      return cl1_err_set(err, "include_dir %s has no cudal1/solution.h", o->include_dir);
  } else {
    bool found = false;
    tried[0] = 0;
    for (int lvl = 0; lvl <= 3 && !found; lvl++) {
      snprintf(p, sizeof p, "%s/include/cudal1/solution.h", d);
      snprintf(inc, sizeof inc, "%.*s/include", (int)(sizeof inc - 9), d);
      tried_add(tried, sizeof tried, inc);
      found = is_file(p);
      if (!found && !up(d)) break;
    }
    const char *env = getenv("CUDAL1_INCLUDE");
    if (!found && env && *env) {
      snprintf(p, sizeof p, "%s/cudal1/solution.h", env);
      tried_add(tried, sizeof tried, env);
      found = is_file(p) && realpath(env, inc);
    }
    if (!found)
      return cl1_err_set(err, "cannot find cudal1/solution.h (tried %s%s); set include_dir or "
                         "$CUDAL1_INCLUDE", tried, env && *env ? "" : "; $CUDAL1_INCLUDE unset");
  }
  if (strlen(inc) + 1 > include_n) return cl1_err_set(err, "include_dir path too long: %s", inc);
  strcpy(include_dir, inc);
  return 0;
}

const char *cl1_compile_cuda_home(void) {
  const char *e = getenv("CUDA_HOME");
  return e && *e ? e : CL1_CUDA_HOME;
}

const char *cl1_compile_build_arch(void) { return STR(CL1_CUDA_ARCH); }

/* "90", "90a", "100f": digits, then at most one letter. */
static int pick_arch(const cl1_compile_opts *o, char out[16], cl1_err *err) {
  const char *a = o->arch, *from = "arch";
  if (!a || !*a) a = getenv("CUDAL1_CUDA_ARCH"), from = "$CUDAL1_CUDA_ARCH";
  if (!a || !*a) a = STR(CL1_CUDA_ARCH), from = "CL1_CUDA_ARCH";
  size_t k = strspn(a, "0123456789");
  if (k == 0 || k > 4 || (a[k] && (a[k] < 'a' || a[k] > 'z' || a[k + 1])))
    return cl1_err_set(err, "%s '%s': expected a compute capability like 90 or 90a", from, a);
  snprintf(out, 16, "%s", a);
  return 0;
}

static int write_all(const char *path, const char *data, size_t n, cl1_err *err) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return cl1_err_set(err, "%s: %s", path, strerror(errno));
  while (n) {
    ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) {
      int e = errno;
      close(fd);
      return cl1_err_set(err, "%s: %s", path, strerror(e));
    }
    data += w, n -= (size_t)w;
  }
  if (close(fd) != 0) return cl1_err_set(err, "%s: %s", path, strerror(errno));
  return 0;
}


int cl1_cache_root(const char *override, char *out, size_t n, cl1_err *err) {
  const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  int k;
  if (override && *override) k = snprintf(out, n, "%s", override);
  else if (x && *x) k = snprintf(out, n, "%s/cudal1", x);
  else if (h && *h) k = snprintf(out, n, "%s/.cache/cudal1", h);
  else return cl1_err_set(err, "no cache folder: set cache_dir, $XDG_CACHE_HOME or $HOME");
  if (k < 0 || (size_t)k >= n) return cl1_err_set(err, "cache folder path too long");
  return 0;
}

static int cache_root(const cl1_compile_opts *o, char *out, size_t n, cl1_err *err) {
  return cl1_cache_root(o->cache_dir, out, n, err);
}

/* An argv with its strings in one pool. */
typedef struct {
  char *argv[40];
  int n;
  char pool[16384];
  size_t used;
} argvec;

static void arg(argvec *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void arg(argvec *a, const char *fmt, ...) {
  assert(a->n + 1 < (int)(sizeof a->argv / sizeof a->argv[0]));
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(a->pool + a->used, sizeof a->pool - a->used, fmt, ap);
  va_end(ap);
  assert(k >= 0 && a->used + (size_t)k + 1 <= sizeof a->pool); /* paths are < PATH_MAX */
  a->argv[a->n++] = a->pool + a->used;
  a->argv[a->n] = NULL;
  a->used += (size_t)k + 1;
}

/* The compiler's command line, run with cwd = the private build folder so that diagnostics and
 * the hash see "solution.c", not a temp path. */
static void command(argvec *a, cl1_backend b, cl1_lang lang, const char *arch, const char *inc,
                    const char *ops) {
  a->n = 0, a->used = 0;
  const char *cu = cl1_compile_cuda_home();
  if (lang == CL1_LANG_C) {
    arg(a, "cc"), arg(a, "-std=c11"), arg(a, "-O2"), arg(a, "-fPIC"), arg(a, "-shared");
    arg(a, "-Wall"), arg(a, "-I%s", inc), arg(a, "solution.c"), arg(a, "-o"), arg(a, "out.so");
    if (b == CL1_BACKEND_HOST) {
      arg(a, "-L%s", ops), arg(a, "-lcl1ops_host"), arg(a, "-Wl,-rpath,%s", ops), arg(a, "-lm");
    } else {
      arg(a, "-L%s", ops), arg(a, "-lcl1ops_cuda"), arg(a, "-Wl,-rpath,%s", ops);
      arg(a, "-L%s/lib64", cu), arg(a, "-Wl,-rpath,%s/lib64", cu), arg(a, "-lcudart"), arg(a, "-lm");
    }
  } else {
    arg(a, "%s/bin/nvcc", cu), arg(a, "-std=c++17"), arg(a, "-O3"), arg(a, "-gencode");
    arg(a, "arch=compute_%s,code=[sm_%s,compute_%s]", arch, arch, arch);
    arg(a, "-shared"), arg(a, "-Xcompiler"), arg(a, "-fPIC"), arg(a, "-I%s", inc);
    arg(a, "-cudart"), arg(a, "shared"), arg(a, "solution.cu"), arg(a, "-o"), arg(a, "out.so");
    /* nvcc rejects -Wl,...: rpaths go through -Xlinker */
    arg(a, "-L%s", ops), arg(a, "-lcl1ops_cuda"), arg(a, "-Xlinker"), arg(a, "-rpath,%s", ops);
    arg(a, "-L%s/lib64", cu), arg(a, "-Xlinker"), arg(a, "-rpath,%s/lib64", cu);
    arg(a, "-lcublas"), arg(a, "-lcublasLt"), arg(a, "-lcudnn");
  }
}

/* `cc --version` / `nvcc --version`, run once per process per backend. Lock-free once known, so
 * a process forked while another thread holds the lock (compile_many) never waits on it. */
static int compiler_version(cl1_backend b, const char **out, cl1_err *err) {
  static char ver[2][2048];
  static atomic_int ready[2];
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  int i = b == CL1_BACKEND_CUDA;
  if (atomic_load(&ready[i])) {
    *out = ver[i];
    return 0;
  }
  pthread_mutex_lock(&mu);
  int rc = 0;
  if (!atomic_load(&ready[i])) {
    char nvcc[PATH_MAX + 16];
    snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", cl1_compile_cuda_home());
    char *argv[] = {i ? nvcc : "cc", "--version", NULL};
    int st = 0;
    size_t len = 0;
    rc = cl1_proc_run(argv, NULL, 30000, ver[i], sizeof ver[i], &len, &st, err);
    if (rc == 0 && st != 0) rc = cl1_err_set(err, "%s --version exited with status %d", argv[0], st);
    else if (rc == CL1_PROC_TIMEOUT) rc = cl1_err_set(err, "%s --version timed out", argv[0]);
    if (rc == 0) atomic_store(&ready[i], 1);
    else cl1_err_wrap(err, "compiler version");
  }
  pthread_mutex_unlock(&mu);
  if (rc == 0) *out = ver[i];
  return rc;
}

/* Hashes a file's bytes (or a marker when it is absent) under a label. */
static int hash_file(cl1_sha *h, const char *label, const char *path, bool required,
                     cl1_err *err);

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every header under inc/cudal1 except solution.h, in name order: ops.h includes its group
 * headers, and a struct that gains a field there (cl1_convnd_desc.no_tf32) must not leave .so
 * files built against the old layout in the cache. */
static int hash_headers(cl1_sha *h, const char *inc, cl1_err *err) {
  char d[PATH_MAX + 16];
  snprintf(d, sizeof d, "%s/cudal1", inc);
  DIR *dir = opendir(d);
  if (!dir) return 0; /* only solution.h, checked by the caller */
  char *names[256];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir)) && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 2 && !strcmp(e->d_name + l - 2, ".h") && strcmp(e->d_name, "solution.h"))
      names[n++] = strdup(e->d_name);
  }
  closedir(dir);
  qsort(names, (size_t)n, sizeof *names, cmp_name);
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char p[PATH_MAX + 300];
    snprintf(p, sizeof p, "%s/%s", d, names[i]);
    if (!rc && names[i]) rc = hash_file(h, names[i], p, true, err);
    free(names[i]);
  }
  return rc;
}

static int hash_file(cl1_sha *h, const char *label, const char *path, bool required,
                     cl1_err *err) {
  char *b = NULL;
  size_t n = 0;
  cl1_sha_add_str(h, label);
  if (!is_file(path) && !required) {
    cl1_sha_add_str(h, "(absent)");
    return 0;
  }
  if (cl1_file_read(path, MAX_SRC_BYTES, &b, &n, err) != 0) return -1;
  char len[32];
  snprintf(len, sizeof len, "%zu", n);
  cl1_sha_add_str(h, len);
  cl1_sha_add(h, b, n);
  free(b);
  return 0;
}

/* Compiler output -> res->diag: the build folder's path removed, the first DIAG_LINES lines. */
static void set_diag(char *diag, size_t cap, const char *out, const char *build_dir) {
  size_t bl = strlen(build_dir), k = 0;
  int lines = 0;
  const char *s = out;
  while (*s && k + 1 < cap) {
    if (!strncmp(s, build_dir, bl)) {
      s += bl;
      if (*s == '/') s++;
      continue;
    }
    if (*s == '\n' && ++lines >= DIAG_LINES) {
      if (s[1] && k + 1 < cap) diag[k++] = '\n';
      break;
    }
    diag[k++] = *s++;
  }
  diag[k] = 0;
  const char *more = "[diagnostics cut]\n";
  if (*s && s[1] && k + strlen(more) + 1 < cap) strcat(diag, more);
}

/* The environment with TMPDIR pointing into the build folder: the compilers' intermediates are
 * removed with it, also when a timeout kills them. */
static char **env_with_tmpdir(const char *dir) {
  size_t n = 0;
  while (environ[n]) n++;
  char **e = calloc(n + 2, sizeof *e);
  char *t = malloc(strlen(dir) + 8);
  if (!e || !t) {
    free(e), free(t);
    return NULL;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "TMPDIR=", 7)) e[k++] = environ[i];
  sprintf(t, "TMPDIR=%s", dir);
  e[k++] = t;
  e[k] = NULL;
  return e;
}

static void env_free(char **e) {
  if (!e) return;
  for (size_t i = 0; e[i]; i++)
    if (!strncmp(e[i], "TMPDIR=", 7)) free(e[i]);
  free(e);
}

/* Runs the compiler in build_dir; rc as cl1_compile_source. */
static int run_compiler(const argvec *cmd, const char *build_dir, int timeout_s,
                        cl1_compile_result *res, cl1_err *err) {
  char *out = malloc(OUT_CAP);
  char **envp = env_with_tmpdir(build_dir);
  if (!out || !envp) {
    free(out), env_free(envp);
    return cl1_err_set(err, "compile: out of memory");
  }
  cl1_proc_limits lim = {MAX_FILE_BYTES, envp};
  size_t len = 0;
  int st = 0;
  int rc = cl1_proc_run_lim(cmd->argv, build_dir, timeout_s * 1000, &lim, out, OUT_CAP, &len,
                            &st, err);
  env_free(envp);
  if (rc < 0) {
    free(out);
    return cl1_err_wrap(err, "compile");
  }
  if (rc == CL1_PROC_TIMEOUT) {
    snprintf(res->diag, sizeof res->diag, "compile timed out after %d s", timeout_s);
    free(out);
    return 2;
  }
  if (st == 128 + SIGXFSZ) {
    snprintf(res->diag, sizeof res->diag, "output too large (a compiler file passed %lld MiB)",
             MAX_FILE_BYTES >> 20);
    free(out);
    return 1;
  }
  if (st != 0) {
    set_diag(res->diag, sizeof res->diag, out, build_dir);
    if (!res->diag[0])
      snprintf(res->diag, sizeof res->diag, "%s exited with status %d", cmd->argv[0], st);
    free(out);
    return 1;
  }
  free(out);
  return 0;
}

/* The cache key: format, backend, arch, the compile command, the compiler's version, the ABI and
 * op headers, and the source. 0, or -1 (err) when a header cannot be read. */
static int cache_key(const argvec *cmd, const cl1_compile_opts *o, const char *arch,
                     const char *ver, const char *inc, const char *src, size_t n, char hash[65],
                     cl1_err *err) {
  cl1_sha *h = cl1_sha_new();
  if (!h) return cl1_err_set(err, "compile: cannot start SHA-256");
  cl1_sha_add_str(h, CL1_COMPILE_FORMAT);
  cl1_sha_add_str(h, cl1_backend_name(o->backend));
  cl1_sha_add_str(h, arch);
  for (int i = 0; i < cmd->n; i++) cl1_sha_add_str(h, cmd->argv[i]);
  cl1_sha_add_str(h, ver);
  char p[PATH_MAX + 64];
  snprintf(p, sizeof p, "%s/cudal1/solution.h", inc);
  int hr = hash_file(h, "solution.h", p, true, err);
  if (hr == 0) hr = hash_headers(h, inc, err);
  char len[32];
  snprintf(len, sizeof len, "%zu", n);
  cl1_sha_add_str(h, "source");
  cl1_sha_add_str(h, len);
  cl1_sha_add(h, src, n);
  cl1_sha_hex(h, hash);
  return hr ? cl1_err_wrap(err, "compile") : 0;
}

/* Runs the compiler in a fresh build folder under <root>/tmp and moves its out.so to so (a
 * rename inside the cache folder: readers never see half a file). 0, 1 (res->diag), 2, -1. */
static int build_into(const argvec *cmd, cl1_lang lang, const char *root, const char *dir,
                      const char *so, const char *src, size_t n, const cl1_compile_opts *o,
                      cl1_compile_result *res, cl1_err *err) {
  char tmp[PATH_MAX + 64];
  snprintf(tmp, sizeof tmp, "%s/tmp", root);
  if ((cl1_file_mkdirs(dir, err) && cl1_err_wrap(err, "cache folder %s", dir)) ||
      (cl1_file_mkdirs(tmp, err) && cl1_err_wrap(err, "cache folder %s", tmp)))
    return -1;
  char build[PATH_MAX + 96];
  snprintf(build, sizeof build, "%s/build.XXXXXX", tmp);
  if (!mkdtemp(build))
    return cl1_err_set(err, "cache folder %s: cannot create a build folder: %s", tmp,
                       strerror(errno));
  char srcp[PATH_MAX + 128], outp[PATH_MAX + 128];
  snprintf(srcp, sizeof srcp, "%s/%s", build,
           lang == CL1_LANG_CUDA ? "solution.cu" : "solution.c");
  snprintf(outp, sizeof outp, "%s/out.so", build);
  int rc = write_all(srcp, src, n, err);
  if (rc == 0) rc = run_compiler(cmd, build, o->timeout_s > 0 ? o->timeout_s : 60, res, err);
  if (rc == 0) {
    struct stat st;
    if (stat(outp, &st) != 0 || !S_ISREG(st.st_mode)) {
      rc = cl1_err_set(err, "compile: the compiler succeeded but wrote no out.so");
    } else if (st.st_size > MAX_SO_BYTES) {
      snprintf(res->diag, sizeof res->diag, "output too large (%lld bytes, limit %lld MiB)",
               (long long)st.st_size, MAX_SO_BYTES >> 20);
      rc = 1;
    } else if (rename(outp, so) != 0) {
      rc = cl1_err_set(err, "cache folder %s: cannot store %s: %s", root, so, strerror(errno));
    }
  }
  cl1_file_rm_tree(build);
  return rc;
}

int cl1_compile_source(const char *src, size_t n, const cl1_compile_opts *o,
                       cl1_compile_result *res, cl1_err *err) {
  assert(src && o && res);
  double t0 = cl1_now();
  memset(res, 0, sizeof *res);
  char ops[PATH_MAX], inc[PATH_MAX], arch[16] = "-", root[PATH_MAX];
  if (cl1_compile_find_dirs(o, NULL, ops, sizeof ops, inc, sizeof inc, err) != 0) return -1;
  cl1_lang lang = o->lang != CL1_LANG_AUTO ? o->lang
                  : o->backend == CL1_BACKEND_CUDA ? CL1_LANG_CUDA : CL1_LANG_C;
  cl1_backend cb = lang == CL1_LANG_CUDA ? CL1_BACKEND_CUDA : CL1_BACKEND_HOST; /* the compiler */
  if (lang == CL1_LANG_CUDA && pick_arch(o, arch, err) != 0) return -1;
  if (cache_root(o, root, sizeof root, err) != 0) return -1;
  const char *ver;
  if (compiler_version(cb, &ver, err) != 0) return -1;
  argvec *cmd = malloc(sizeof *cmd); /* 17 KiB: off the stack */
  if (!cmd) return cl1_err_set(err, "compile: out of memory");
  command(cmd, o->backend, lang, arch, inc, ops);
  int rc = cache_key(cmd, o, arch, ver, inc, src, n, res->hash, err);
  char dir[PATH_MAX + 64], so[PATH_MAX + 192];
  snprintf(dir, sizeof dir, "%s/so/%.2s", root, res->hash);
  snprintf(so, sizeof so, "%s/%s.so", dir, res->hash);
  if (!rc && strlen(so) >= sizeof res->so_path)
    rc = cl1_err_set(err, "cache folder %s: path too long", root);
  if (!rc) {
    strcpy(res->so_path, so);
    res->cached = !o->no_cache && is_file(so);
    if (!res->cached) rc = build_into(cmd, lang, root, dir, so, src, n, o, res, err);
  }
  free(cmd);
  res->seconds = cl1_now() - t0;
  return rc;
}

int cl1_compile_file(const char *src_path, const cl1_compile_opts *o, cl1_compile_result *res,
                     cl1_err *err) {
  assert(src_path && o && res);
  char *b;
  size_t n;
  memset(res, 0, sizeof *res);
  if (cl1_file_read(src_path, MAX_SRC_BYTES, &b, &n, err) != 0) return cl1_err_wrap(err, "source");
  cl1_compile_opts lo = *o;
  if (lo.lang == CL1_LANG_PYTHON || (lo.lang == CL1_LANG_AUTO && cl1_pybuild_is_python(src_path))) {
    int rc = cl1_pybuild_source(b, n, &lo, res, err);
    free(b);
    return rc;
  }
  if (lo.lang == CL1_LANG_AUTO) {
    size_t k = strlen(src_path);
    if (k > 3 && !strcmp(src_path + k - 3, ".cu")) lo.lang = CL1_LANG_CUDA;
    else if (k > 2 && !strcmp(src_path + k - 2, ".c")) lo.lang = CL1_LANG_C;
  }
  int rc = cl1_compile_source(b, n, &lo, res, err);
  free(b);
  return rc;
}

/* What a compile_many worker sends back. */
typedef struct {
  int rc;
  cl1_compile_result res;
  cl1_err err;
} many_msg;

typedef struct {
  pid_t pid;
  int fd, idx;
  size_t got;
  many_msg msg;
} many_slot;

static void many_worker(const char *path, const cl1_compile_opts *o, int fd) {
  many_msg m;
  memset(&m, 0, sizeof m);
  m.rc = cl1_compile_file(path, o, &m.res, &m.err);
  const char *p = (const char *)&m;
  size_t left = sizeof m;
  while (left) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(1);
    p += w, left -= (size_t)w;
  }
  _exit(0);
}

/* Collects a finished worker: its message, or an error if it died before sending one. */
static void many_finish(many_slot *s, const char *const *paths, cl1_compile_result *res, int *rc,
                        cl1_err *errs) {
  close(s->fd);
  int st = 0;
  while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR) {}
  int i = s->idx;
  if (s->got == sizeof s->msg) {
    res[i] = s->msg.res;
    rc[i] = s->msg.rc;
    if (errs) errs[i] = s->msg.err;
  } else {
    rc[i] = -1;
    int code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (errs) cl1_err_set(&errs[i], "compile worker for %s died (status %d)", paths[i], code);
  }
  s->pid = 0;
}

int cl1_compile_many(int n, const char *const *src_paths, const cl1_compile_opts *o, int jobs,
                     cl1_compile_result *res, int *rc, cl1_err *errs) {
  assert(n >= 0 && (n == 0 || (src_paths && o && res && rc)));
  if (jobs <= 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    jobs = c > 0 ? (int)c : 1;
  }
  if (jobs > n) jobs = n;
  for (int i = 0; i < n; i++) memset(&res[i], 0, sizeof res[i]), rc[i] = -1;
  if (n == 0) return 0;
  const char *ver;
  cl1_err ignore;
  compiler_version(CL1_BACKEND_HOST, &ver, &ignore); /* once here, not once per worker */
  if (o->backend == CL1_BACKEND_CUDA) compiler_version(CL1_BACKEND_CUDA, &ver, &ignore);
  /* Python's environment too, before any fork: a child that had to query it would take a lock
     that another thread of a service may hold at the fork, and wait forever (test_compile) */
  for (int i = 0; i < n; i++)
    if (o->lang == CL1_LANG_PYTHON ||
        (o->lang == CL1_LANG_AUTO && cl1_pybuild_is_python(src_paths[i]))) {
      cl1_pyenv_ensure(&ignore);  /* a failure is each child's to report */
      break;
    }
  many_slot *slot = calloc((size_t)jobs, sizeof *slot);
  struct pollfd *pfd = calloc((size_t)jobs, sizeof *pfd);
  if (!slot || !pfd) {
    free(slot), free(pfd);
    for (int i = 0; i < n; i++)
      if (errs) cl1_err_set(&errs[i], "compile pool: out of memory");
    return n;
  }
  fflush(NULL);
  int next = 0, active = 0;
  while (next < n || active > 0) {
    for (int j = 0; j < jobs && next < n; j++) {
      if (slot[j].pid) continue;
      int i = next++, fds[2];
      if (pipe2(fds, O_CLOEXEC) != 0) {
        if (errs) cl1_err_set(&errs[i], "compile pool: pipe: %s", strerror(errno));
        continue;
      }
      pid_t pid = fork();
      if (pid < 0) {
        if (errs) cl1_err_set(&errs[i], "compile pool: fork: %s", strerror(errno));
        close(fds[0]), close(fds[1]);
        continue;
      }
      if (pid == 0) {
        close(fds[0]);
        for (int k = 0; k < jobs; k++)
          if (slot[k].pid) close(slot[k].fd);
        many_worker(src_paths[i], o, fds[1]);
      }
      close(fds[1]);
      slot[j] = (many_slot){.pid = pid, .fd = fds[0], .idx = i, .got = 0};
      active++;
    }
    if (!active) continue;
    int np = 0;
    for (int j = 0; j < jobs; j++)
      if (slot[j].pid) pfd[np++] = (struct pollfd){slot[j].fd, POLLIN, 0};
    if (poll(pfd, (nfds_t)np, -1) < 0) {
      if (errno == EINTR) continue;
      /* cannot wait on pipes any more: collect the workers the blocking way */
      for (int j = 0; j < jobs; j++)
        if (slot[j].pid) many_finish(&slot[j], src_paths, res, rc, errs), active--;
      continue;
    }
    for (int j = 0; j < jobs; j++) {
      many_slot *s = &slot[j];
      if (!s->pid) continue;
      int k = 0;
      while (k < np && pfd[k].fd != s->fd) k++;
      if (k == np || !pfd[k].revents) continue;
      ssize_t r = read(s->fd, (char *)&s->msg + s->got, sizeof s->msg - s->got);
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r > 0) s->got += (size_t)r;
      if (r <= 0 || s->got == sizeof s->msg) many_finish(s, src_paths, res, rc, errs), active--;
    }
  }
  free(slot), free(pfd);
  int bad = 0;
  for (int i = 0; i < n; i++) bad += rc[i] != 0;
  return bad;
}
