/* test_compile.c — the compile stage and its subprocess helper: real cc/nvcc runs into a temp
 * cache, with a tiny op library built here so the test does not depend on src/ops. */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include "harness.h"
#include "base/file.h"
#include "cudal1/solution.h"
#include "base/proc.h"
#include "eval/compile.h"
#include "eval/gate.h"
#include "eval/pybuild.h"
#include "task/task.h"

static char g_tmp[256], g_ops[300], g_cache[300];

static const char *k_valid =
    "#include <cudal1/solution.h>\n"
    "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
    "  const float *x = (const float *)c->inputs[0].data;\n"
    "  float *y = (float *)c->outputs[0].data;\n"
    "  for (int64_t i = 0; i < c->inputs[0].shape[0]; i++) y[i] = 2.0f * x[i] + K;\n"
    "  return 0;\n"
    "}\n";

/* k_valid with `#define K <k>` in front: distinct sources for the cache. */
static char *valid_src(int k) {
  static char buf[8][1024];
  static int slot;
  char *b = buf[slot++ % 8];
  snprintf(b, 1024, "#define K %d\n%s", k, k_valid);
  return b;
}

static cl1_compile_opts opts(void) {
  cl1_compile_opts o;
  memset(&o, 0, sizeof o);
  o.backend = CL1_BACKEND_HOST;
  o.ops_dir = g_ops;
  o.include_dir = "include";
  o.cache_dir = g_cache;
  return o;
}

static int group_setup(void **state) {
  (void)state;
  char *t = th_tmpdir();
  if (!t) return -1;
  snprintf(g_tmp, sizeof g_tmp, "%s", t);
  snprintf(g_ops, sizeof g_ops, "%s/ops", g_tmp);
  snprintf(g_cache, sizeof g_cache, "%s/cache/nested", g_tmp); /* does not exist yet */
  char cmd[4096], out[4096];
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s && printf 'void cl1_op_stub(void) {}\\n' > %s/stub.c && "
           "cc -shared -fPIC -o %s/libcl1ops_host.so %s/stub.c && "
           "cc -shared -fPIC -o %s/libcl1ops_cuda.so %s/stub.c",
           g_ops, g_ops, g_ops, g_ops, g_ops, g_ops);
  if (th_run(cmd, out, sizeof out) != 0) {
    fprintf(stderr, "cannot build the stub op library: %s\n", out);
    return -1;
  }
  return 0;
}

/* How many entries a folder holds (-1 if it cannot be opened). */
static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

/* Processes (not zombies) whose working folder lies under `prefix`. */
static int procs_under(const char *prefix) {
  DIR *d = opendir("/proc");
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char link[300], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%s/cwd", e->d_name);
    ssize_t k = readlink(link, target, sizeof target - 1);
    if (k <= 0) continue;
    target[k] = 0;
    if (!strncmp(target, prefix, strlen(prefix))) n++;
  }
  closedir(d);
  return n;
}

static void test_valid_compiles_and_runs(void **state) {
  (void)state;
  struct stat st;
  assert_int_not_equal(stat(g_cache, &st), 0); /* created by the compile */
  cl1_compile_opts o = opts();
  cl1_compile_result r;
  cl1_err err = {""};
  int rc = cl1_compile_source(valid_src(1), strlen(valid_src(1)), &o, &r, &err);
  if (rc) printf("rc %d: %s / %s\n", rc, err.msg, r.diag);
  assert_int_equal(rc, 0);
  assert_false(r.cached);
  assert_int_equal(strlen(r.hash), 64);
  assert_int_equal(stat(g_cache, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  char want[600];
  snprintf(want, sizeof want, "%s/so/%.2s/%s.so", g_cache, r.hash, r.hash);
  assert_string_equal(r.so_path, want);
  /* the private build folder is gone */
  char tmp[400];
  snprintf(tmp, sizeof tmp, "%s/tmp", g_cache);
  assert_int_equal(count_entries(tmp), 0);

  void *h = dlopen(r.so_path, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(h);
  __typeof__(cl1_forward) *fwd; /* the ABI's signature, not a retyped copy */
  *(void **)&fwd = dlsym(h, "cl1_forward");
  assert_non_null(fwd);
  float x[4] = {1, -2, 3.5f, 0}, y[4] = {0};
  cl1_tensor in = {.data = x, .dtype = CL1_F32, .ndim = 1, .shape = {4}, .stride = {1}};
  cl1_tensor out = {.data = y, .dtype = CL1_F32, .ndim = 1, .shape = {4}, .stride = {1}};
  cl1_call c = {.n_inputs = 1, .inputs = &in, .n_outputs = 1, .outputs = &out};
  assert_int_equal(fwd(&c), 0);
  for (int i = 0; i < 4; i++) assert_true(y[i] == 2 * x[i] + 1);
  dlclose(h);
}

static void test_second_compile_is_cached(void **state) {
  (void)state;
  cl1_compile_opts o = opts();
  cl1_compile_result a, b, c;
  cl1_err err;
  const char *s = valid_src(2);
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &a, &err), 0);
  assert_false(a.cached);
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &b, &err), 0);
  assert_true(b.cached);
  assert_string_equal(a.hash, b.hash);
  assert_string_equal(a.so_path, b.so_path);
  assert_true(b.seconds * 5 < a.seconds);
  /* from a file: same content, same entry */
  char path[400];
  snprintf(path, sizeof path, "%s/two.c", g_tmp);
  assert_int_equal(th_write(path, s), 0);
  assert_int_equal(cl1_compile_file(path, &o, &c, &err), 0);
  assert_true(c.cached);
  assert_string_equal(c.hash, a.hash);
  /* no_cache compiles again */
  o.no_cache = true;
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &c, &err), 0);
  assert_false(c.cached);
  assert_string_equal(c.hash, a.hash);
}

static void test_one_byte_changes_hash(void **state) {
  (void)state;
  cl1_compile_opts o = opts();
  cl1_compile_result a, b;
  cl1_err err;
  char s[1024];
  snprintf(s, sizeof s, "%s", valid_src(3));
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &a, &err), 0);
  char *p = strstr(s, "2.0f");
  assert_non_null(p);
  p[0] = '3';
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &b, &err), 0);
  assert_false(b.cached);
  assert_string_not_equal(a.hash, b.hash);
  assert_string_not_equal(a.so_path, b.so_path);
}

/* A group header that ops.h includes (ops_conv.h) is part of the cache key: a struct that gains a
 * field there must not leave a .so built against the old layout (bug: only ops.h was hashed). */
static void test_group_header_changes_hash(void **state) {
  (void)state;
  char inc[400], cmd[1200], out[256];
  snprintf(inc, sizeof inc, "%s/inc-copy", g_tmp);
  snprintf(cmd, sizeof cmd, "rm -rf %s && cp -r include %s", inc, inc);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  cl1_compile_opts o = opts();
  o.include_dir = inc;
  cl1_compile_result a, b;
  cl1_err err;
  const char *s = valid_src(4);
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &a, &err), 0);
  snprintf(cmd, sizeof cmd, "echo '/* changed */' >> %s/cudal1/ops_conv.h", inc);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &b, &err), 0);
  assert_false(b.cached);
  assert_string_not_equal(a.hash, b.hash);
}

static void test_syntax_error_reports_solution_line_and_is_not_cached(void **state) {
  (void)state;
  cl1_compile_opts o = opts();
  cl1_compile_result r;
  cl1_err err = {""};
  const char *s = "#include <cudal1/solution.h>\n"
                  "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
                  "  return c->n_inputs +;\n"
                  "}\n";
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &r, &err), 1);
  assert_non_null(strstr(r.diag, "solution.c:3:"));
  assert_non_null(strstr(r.diag, "error"));
  assert_null(strstr(r.diag, g_cache)); /* no temp paths in what the model will read */
  assert_null(strstr(r.diag, "build."));
  struct stat st;
  assert_int_not_equal(stat(r.so_path, &st), 0); /* failures are not cached */
  char tmp[400];
  snprintf(tmp, sizeof tmp, "%s/tmp", g_cache);
  assert_int_equal(count_entries(tmp), 0);
  /* a second try runs the compiler again */
  cl1_compile_result r2;
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &r2, &err), 1);
  assert_false(r2.cached);
}

static void test_timeout_kills_compiler(void **state) {
  (void)state;
  char fifo[400], src[600], cache[400];
  snprintf(fifo, sizeof fifo, "%s/never.fifo", g_tmp);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  snprintf(cache, sizeof cache, "%s/tcache", g_tmp);
  /* cpp blocks opening a FIFO nobody writes: a compile that never ends, at no CPU cost */
  snprintf(src, sizeof src, "#include \"%s\"\nint x;\n", fifo);
  cl1_compile_opts o = opts();
  o.cache_dir = cache;
  o.timeout_s = 1;
  cl1_compile_result r;
  cl1_err err = {""};
  double t0 = cl1_now();
  int rc = cl1_compile_source(src, strlen(src), &o, &r, &err);
  double dt = cl1_now() - t0;
  assert_int_equal(rc, 2);
  assert_true(dt >= 0.9 && dt < 5);
  assert_non_null(strstr(r.diag, "timed out"));
  int left = -1;
  for (int i = 0; i < 200 && left != 0; i++) {
    left = procs_under(cache);
    if (left) {
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
  assert_int_equal(left, 0);
  char tmp[500];
  snprintf(tmp, sizeof tmp, "%s/tmp", cache);
  assert_int_equal(count_entries(tmp), 0);
}

static void test_output_too_large_is_a_compile_failure(void **state) {
  (void)state;
  cl1_compile_opts o = opts();
  cl1_compile_result r;
  cl1_err err = {""};
  /* initialised data is stored in full: a 65 MiB .so */
  const char *s = "#include <cudal1/solution.h>\n"
                  "__attribute__((used)) const char big[65 << 20] = {1};\n"
                  "CL1_EXPORT int cl1_forward(const cl1_call *c) { return big[c->n_inputs]; }\n";
  int rc = cl1_compile_source(s, strlen(s), &o, &r, &err);
  if (rc != 1) printf("rc %d: %s\n", rc, err.msg);
  assert_int_equal(rc, 1);
  assert_non_null(strstr(r.diag, "output too large"));
  struct stat st;
  assert_int_not_equal(stat(r.so_path, &st), 0);
}

static void test_compile_many_hashes_like_one_compile_and_reports_each_source(void **state) {
  (void)state;
  enum { N = 8 };
  char paths[N][400];
  const char *pp[N];
  for (int i = 0; i < N; i++) {
    snprintf(paths[i], sizeof paths[i], "%s/many%d.c", g_tmp, i);
    assert_int_equal(th_write(paths[i], valid_src(100 + i)), 0);
    pp[i] = paths[i];
  }
  cl1_compile_opts o = opts();
  cl1_compile_result res[N];
  int rc[N];
  cl1_err errs[N];
  assert_int_equal(cl1_compile_many(N, pp, &o, 2, res, rc, errs), 0);
  for (int i = 0; i < N; i++) {
    assert_int_equal(rc[i], 0);
    assert_false(res[i].cached);
    struct stat st;
    assert_int_equal(stat(res[i].so_path, &st), 0);
    for (int j = 0; j < i; j++) assert_string_not_equal(res[i].hash, res[j].hash);
    /* the worker's hash is the one a direct compile computes */
    cl1_compile_result d;
    cl1_err e;
    assert_int_equal(cl1_compile_file(pp[i], &o, &d, &e), 0);
    assert_true(d.cached);
    assert_string_equal(d.hash, res[i].hash);
  }
  /* per-source outcomes in one batch: cached, compile error, missing file */
  char bad[400], missing[400];
  snprintf(bad, sizeof bad, "%s/bad.c", g_tmp);
  snprintf(missing, sizeof missing, "%s/missing.c", g_tmp);
  assert_int_equal(th_write(bad, "int f( {\n"), 0);
  const char *mix[3] = {pp[0], bad, missing};
  assert_int_equal(cl1_compile_many(3, mix, &o, 0, res, rc, errs), 2);
  assert_int_equal(rc[0], 0);
  assert_true(res[0].cached);
  assert_int_equal(rc[1], 1);
  assert_non_null(strstr(res[1].diag, "solution.c:1:"));
  assert_int_equal(rc[2], -1);
  assert_non_null(strstr(errs[2].msg, "missing.c"));
}

/* Bug fixed: cl1_compile_many forks without exec, and a Python source's child asked for Python's
 * environment (cl1_pyenv_ensure) under a lock; when another thread of the process (a service's
 * other lane) held that lock at the fork, the child waited forever and so did the pool (a hung
 * test_serve). In a process group of its own, a thread holds the lock for a second (a python3
 * that sleeps first) while the pool forks; the pool must come back with the child's own outcome,
 * and a hang is killed whole and reported. */
static void *first_query(void *arg) {
  cl1_err e;
  *(int *)arg = cl1_pyenv_ensure(&e);
  return NULL;
}

/* The scenario, in the forked process: 0 when the pool came back with the child's outcome. */
static int pool_during_query(const char *src) {
  int qrc = -2;
  pthread_t t;
  if (pthread_create(&t, NULL, first_query, &qrc)) return 2;
  usleep(200 * 1000); /* the query under way, its lock held */
  cl1_compile_opts o = opts();
  cl1_compile_result res[1];
  int rc[1];
  cl1_err errs[1];
  memset(errs, 0, sizeof errs);
  cl1_compile_many(1, (const char *[]){src}, &o, 1, res, rc, errs);
  pthread_join(t, NULL);
  if (qrc != 0 && qrc != -1) return 3;
  /* the child ran to its own end: a built module, or its reason (never a death) */
  if (rc[0] == 0) return res[0].py_module[0] ? 0 : 4;
  return strstr(errs[0].msg, "died") ? 5 : 0;
}

static void test_compile_many_forked_while_the_python_query_runs_comes_back(void **state) {
  (void)state;
  char slow[400], src[400];
  snprintf(slow, sizeof slow, "%s/slow-python3", g_tmp);
  assert_int_equal(th_write(slow, "#!/bin/sh\nsleep 1\nexec python3 \"$@\"\n"), 0);
  assert_int_equal(chmod(slow, 0755), 0);
  snprintf(src, sizeof src, "%s/model.py", g_tmp);
  assert_int_equal(th_write(src, "import torch\n\nclass ModelNew(torch.nn.Module):\n"
                                 "    def forward(self, x):\n        return x\n"), 0);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);
    setenv("CUDAL1_PYTHON", slow, 1);
    _exit(pool_during_query(src));
  }
  setpgid(pid, pid);
  int st = 0;
  pid_t got = 0;
  for (int i = 0; i < 2400 && (got = waitpid(pid, &st, WNOHANG)) == 0; i++) usleep(100 * 1000);
  if (got == 0) {
    killpg(pid, SIGKILL);
    waitpid(pid, &st, 0);
    fail_msg("compile_many hung for 240 s: its forked child waits on a lock");
  }
  killpg(pid, SIGKILL); /* nothing of the scenario's left behind */
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

/* A Triton module's build warms its kernels at the evaluation's shapes (compile.h: warm): the
 * shapes are part of its key, so a build warmed for one shape set is not taken for another; any
 * other module's key ignores them (one build serves every shape set). */
static void test_warm_shapes_key_triton_modules_only(void **state) {
  (void)state;
  static const char *triton = "import torch\nimport triton.language as tl\nclass ModelNew: pass\n";
  static const char *plain = "import torch\n# import triton later\nclass ModelNew: pass\n";
  assert_true(cl1_pybuild_uses_triton(triton, strlen(triton)));
  assert_false(cl1_pybuild_uses_triton(plain, strlen(plain)));
  assert_true(cl1_pybuild_uses_triton("  from triton import jit", 23));
  assert_false(cl1_pybuild_uses_triton("import tritonclient\n", 20));
  cl1_err err;
  if (cl1_pyenv_ensure(&err)) {
    print_message("note: no python3 here (%s); keys not compared\n", err.msg);
    return;
  }
  char a[65], b[65], c[65];
  cl1_compile_opts cuda = {.backend = CL1_BACKEND_CUDA}, w7 = cuda, w16 = cuda;
  w7.task = w16.task = "level1/19_ReLU";
  w7.shapes = CL1_SHAPES_TEST;    /* 7 x 1001 */
  w16.shapes = CL1_SHAPES_SMALL;  /* 16 x 16384 */
  cl1_pybuild_key(triton, strlen(triton), &cuda, a);
  cl1_pybuild_key(triton, strlen(triton), &w7, b);
  cl1_pybuild_key(triton, strlen(triton), &w16, c);
  assert_string_not_equal(a, b);
  assert_string_not_equal(b, c);
  cl1_pybuild_key(plain, strlen(plain), &cuda, a);
  cl1_pybuild_key(plain, strlen(plain), &w7, b);
  assert_string_equal(a, b);
  cl1_compile_opts host = w7;
  host.backend = CL1_BACKEND_HOST;  /* the host backend never calls a module on a GPU */
  cl1_pybuild_key(triton, strlen(triton), &host, a);
  host.task = NULL;
  cl1_pybuild_key(triton, strlen(triton), &host, b);
  assert_string_equal(a, b);
}

static void test_cache_dir_that_is_a_file_is_refused_by_name(void **state) {
  (void)state;
  char file[400], below[450];
  snprintf(file, sizeof file, "%s/notadir", g_tmp);
  assert_int_equal(th_write(file, "x"), 0);
  snprintf(below, sizeof below, "%s/cudal1", file);
  const char *s = valid_src(4);
  const char *dirs[2] = {file, below};
  for (int i = 0; i < 2; i++) {
    cl1_compile_opts o = opts();
    o.cache_dir = dirs[i];
    cl1_compile_result r;
    cl1_err err = {""};
    assert_int_equal(cl1_compile_source(s, strlen(s), &o, &r, &err), -1);
    assert_non_null(strstr(err.msg, "not a folder"));
    assert_non_null(strstr(err.msg, file));
  }
}

static void test_find_dirs_walks_up_to_the_op_library_and_headers(void **state) {
  (void)state;
  char root[400], cmd[4096], out[1024];
  snprintf(root, sizeof root, "%s/tree", g_tmp);
  snprintf(cmd, sizeof cmd,
           "mkdir -p %s/build/tests %s/include/cudal1 %s/empty/a/b/c/d && "
           "touch %s/build/libcl1ops_host.so %s/include/cudal1/solution.h",
           root, root, root, root, root);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  unsetenv("CUDAL1_INCLUDE");
  cl1_compile_opts o;
  memset(&o, 0, sizeof o);
  char ops[PATH_MAX], inc[PATH_MAX], exe[500], want[PATH_MAX];
  cl1_err err = {""};
  snprintf(exe, sizeof exe, "%s/build/tests", root);
  assert_int_equal(cl1_compile_find_dirs(&o, exe, ops, sizeof ops, inc, sizeof inc, &err), 0);
  snprintf(exe, sizeof exe, "%s/build", root);
  assert_non_null(realpath(exe, want));
  assert_string_equal(ops, want);
  snprintf(exe, sizeof exe, "%s/include", root);
  assert_non_null(realpath(exe, want));
  assert_string_equal(inc, want);
  /* no op library anywhere up the tree: the error names the library and the folders tried */
  snprintf(exe, sizeof exe, "%s/empty/a/b/c/d", root);
  assert_int_equal(cl1_compile_find_dirs(&o, exe, ops, sizeof ops, inc, sizeof inc, &err), -1);
  assert_non_null(strstr(err.msg, "libcl1ops_host.so"));
  assert_non_null(strstr(err.msg, "empty/a/b/c/d"));
  assert_non_null(strstr(err.msg, "empty/a"));
  /* CUDA looks for its own library */
  o.backend = CL1_BACKEND_CUDA;
  snprintf(exe, sizeof exe, "%s/build/tests", root);
  assert_int_equal(cl1_compile_find_dirs(&o, exe, ops, sizeof ops, inc, sizeof inc, &err), -1);
  assert_non_null(strstr(err.msg, "libcl1ops_cuda.so"));
  /* an op library without headers nearby: $CUDAL1_INCLUDE is the fallback */
  o.backend = CL1_BACKEND_HOST;
  o.ops_dir = g_ops;
  assert_int_equal(cl1_compile_find_dirs(&o, NULL, ops, sizeof ops, inc, sizeof inc, &err), -1);
  assert_non_null(strstr(err.msg, "solution.h"));
  snprintf(exe, sizeof exe, "%s/include", root);
  setenv("CUDAL1_INCLUDE", exe, 1);
  assert_int_equal(cl1_compile_find_dirs(&o, NULL, ops, sizeof ops, inc, sizeof inc, &err), 0);
  assert_string_equal(inc, want);
  unsetenv("CUDAL1_INCLUDE");
  /* explicit folders are checked */
  o.include_dir = root;
  assert_int_equal(cl1_compile_find_dirs(&o, NULL, ops, sizeof ops, inc, sizeof inc, &err), -1);
  assert_non_null(strstr(err.msg, "include_dir"));
}

/* A ReLU kernel of its own, launched on the call's stream. */
static const char relu_cu[] =
    "#include <cudal1/solution.h>\n"
    "__global__ static void relu_k(const float *x, float *y, long n) {\n"
    "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = fmaxf(x[i], 0.f);\n"
    "}\n"
    "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
    "  long n = c->inputs[0].shape[0];\n"
    "  relu_k<<<(n + 255) / 256, 256, 0, (cudaStream_t)c->stream>>>(\n"
    "      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);\n"
    "  return cudaGetLastError() == cudaSuccess ? 0 : 1;\n"
    "}\n";

/* nvcc builds a loadable .so; the gate tells a .cu with kernels of its own from one that only
 * calls the op library. */
static void test_cuda_compile_tells_own_kernels_from_op_calls(void **state) {
  (void)state;
  struct stat st;
  if (stat(CL1_CUDA_HOME "/bin/nvcc", &st) != 0) skip();
  cl1_compile_opts o = opts();
  o.backend = CL1_BACKEND_CUDA;
  o.arch = "90";
  const char *s = relu_cu;
  cl1_compile_result r;
  cl1_err err = {""};
  int rc = cl1_compile_source(s, strlen(s), &o, &r, &err);
  if (rc) printf("rc %d: %s / %s\n", rc, err.msg, r.diag);
  assert_int_equal(rc, 0);
  void *lib = dlopen(r.so_path, RTLD_LAZY | RTLD_LOCAL);
  if (!lib) printf("dlopen: %s\n", dlerror());
  assert_non_null(lib);
  assert_non_null(dlsym(lib, "cl1_forward"));
  dlclose(lib);
  cl1_so_facts f;
  assert_int_equal(cl1_gate_so_facts(r.so_path, &f, &err), 0);
  assert_true(f.own_device_code);
  assert_false(f.calls_op_library);
  /* bug (H200 hacks run, 6a12a78): a .cu that only calls the op library has an .nv_fatbin
     section too and was taken for one with kernels of its own, so no_custom_kernel never fired */
  const char *ops_only =
      "#include <cudal1/solution.h>\n#include <cudal1/ops.h>\n"
      "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
      "  return cl1_op_relu(c->stream, (const float *)c->inputs[0].data, (float *)c->outputs[0].data,\n"
      "                     c->inputs[0].shape[0]);\n"
      "}\n";
  cl1_compile_result ro;
  rc = cl1_compile_source(ops_only, strlen(ops_only), &o, &ro, &err);
  if (rc) printf("rc %d: %s / %s\n", rc, err.msg, ro.diag);
  assert_int_equal(rc, 0);
  assert_int_equal(cl1_gate_so_facts(ro.so_path, &f, &err), 0);
  assert_true(f.calls_op_library);
  assert_false(f.own_device_code);
}

/* The same text on the host backend is another cache key; a CUDA error reads as
 * solution.cu(line); the arch is validated. */
static void test_cuda_compile_keys_by_backend_and_reports_errors_by_line(void **state) {
  (void)state;
  struct stat st;
  if (stat(CL1_CUDA_HOME "/bin/nvcc", &st) != 0) skip();
  cl1_compile_opts o = opts();
  o.backend = CL1_BACKEND_CUDA;
  o.arch = "90";
  const char *s = relu_cu;
  cl1_compile_result r, h;
  cl1_err err = {""};
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &r, &err), 0);
  /* same text, host backend: another key */
  cl1_compile_opts oh = opts();
  assert_int_equal(cl1_compile_source(s, strlen(s), &oh, &h, &err), 1);
  assert_string_not_equal(h.hash, r.hash);
  /* a CUDA error reads as solution.cu(line) */
  const char *bad = "#include <cudal1/solution.h>\n__global__ void k() { undefined_thing(); }\n";
  assert_int_equal(cl1_compile_source(bad, strlen(bad), &o, &r, &err), 1);
  assert_non_null(strstr(r.diag, "solution.cu(2)"));
  assert_null(strstr(r.diag, "build."));
  /* arch is validated */
  o.arch = "9x;";
  assert_int_equal(cl1_compile_source(s, strlen(s), &o, &r, &err), -1);
  assert_non_null(strstr(err.msg, "arch"));
}

/* cl1_proc_run: stdout and stderr captured together up to the cap, the exit status (128+signal
 * for a killed child), and a program or folder that cannot be used as an error naming it. */
static void test_proc_run_captures_output_and_status_and_names_spawn_errors(void **state) {
  (void)state;
  char out[64];
  size_t len;
  int st;
  cl1_err err = {""};
  char *echo[] = {"sh", "-c", "echo hello; echo oops >&2; exit 3", NULL};
  assert_int_equal(cl1_proc_run(echo, NULL, 5000, out, sizeof out, &len, &st, &err), 0);
  assert_int_equal(st, 3);
  assert_string_equal(out, "hello\noops\n");
  assert_int_equal(len, 11);
  /* output beyond the cap is discarded, the child still runs to the end */
  char *lots[] = {"sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo 0123456789; i=$((i+1)); done",
                  NULL};
  assert_int_equal(cl1_proc_run(lots, "/", 5000, out, 8, &len, &st, &err), 0);
  assert_int_equal(st, 0);
  assert_int_equal(len, 7);
  assert_string_equal(out, "0123456");
  /* a killed child reports 128+signal */
  char *sig[] = {"sh", "-c", "kill -TERM $$", NULL};
  assert_int_equal(cl1_proc_run(sig, NULL, 5000, NULL, 0, NULL, &st, &err), 0);
  assert_int_equal(st, 128 + SIGTERM);
  /* a missing program is an error, not an exit code */
  char *none[] = {"/nonexistent/cl1-no-such-program", NULL};
  assert_int_equal(cl1_proc_run(none, NULL, 5000, out, sizeof out, &len, &st, &err), -1);
  assert_non_null(strstr(err.msg, "cl1-no-such-program"));
  char *cd[] = {"true", NULL};
  assert_int_equal(cl1_proc_run(cd, "/nonexistent-dir", 5000, NULL, 0, NULL, &st, &err), -1);
  assert_non_null(strstr(err.msg, "/nonexistent-dir"));
}

/* A timeout kills the whole process group, a background grandchild holding the pipe included. */
static void test_proc_run_timeout_kills_the_process_group(void **state) {
  (void)state;
  char out[64];
  size_t len;
  int st;
  cl1_err err = {""};
  char dir[400];
  snprintf(dir, sizeof dir, "%s/procdir", g_tmp);
  mkdir(dir, 0755);
  char *slow[] = {"sh", "-c", "sleep 30 & sleep 30", NULL};
  double t0 = cl1_now();
  assert_int_equal(cl1_proc_run(slow, dir, 300, out, sizeof out, &len, &st, &err),
                   CL1_PROC_TIMEOUT);
  assert_true(cl1_now() - t0 < 3);
  assert_int_equal(st, 128 + SIGKILL);
  int left = -1;
  for (int i = 0; i < 200 && left != 0; i++) {
    left = procs_under(dir);
    if (left) {
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
  assert_int_equal(left, 0);
}

static void test_proc_exe_dir_is_the_running_binarys_folder(void **state) {
  (void)state;
  char exe[PATH_MAX];
  assert_int_equal(cl1_proc_exe_dir(exe, sizeof exe), 0);
  assert_non_null(strstr(exe, "tests"));
}

/* base/file.c: reading with a limit, mkdir -p, and a write that leaves no half file. */
static void test_file_read_limit_mkdirs_and_atomic_write(void **st) {
  (void)st;
  char *d = th_tmpdir(), p[300], q[400], r[500];
  cl1_err err = {{0}};
  char *buf = NULL;
  size_t n = 0;
  snprintf(p, sizeof p, "%s/a/b/c", d);
  assert_int_equal(cl1_file_mkdirs(p, &err), 0);
  assert_int_equal(cl1_file_mkdirs(p, &err), 0); /* already there */
  snprintf(q, sizeof q, "%s/f.txt", p);
  assert_int_equal(cl1_file_write_atomic(q, "hello\n", &err), 0);
  assert_int_equal(cl1_file_read(q, 100, &buf, &n, &err), 0);
  assert_int_equal(n, 6);
  assert_string_equal(buf, "hello\n");
  free(buf);
  assert_int_equal(cl1_file_read(q, 2, &buf, &n, &err), -1);
  assert_non_null(strstr(err.msg, "larger than 2 bytes"));
  /* a file in the way of a folder */
  snprintf(r, sizeof r, "%s/sub", q);
  assert_int_equal(cl1_file_mkdirs(r, &err), -1);
  assert_non_null(strstr(err.msg, "exists and is not a folder"));
  /* a write into a missing folder fails naming the path, and leaves nothing behind */
  snprintf(p, sizeof p, "%s/missing/x.json", d);
  assert_int_equal(cl1_file_write_atomic(p, "{}", &err), -1);
  assert_non_null(strstr(err.msg, p));
  assert_int_equal(cl1_file_read(p, 100, &buf, &n, &err), -1);
  assert_non_null(strstr(err.msg, "No such file"));
  /* a write the disk refuses only when the buffer is flushed, at fclose (a file-size limit here,
     a full disk for a user): an error naming the cause, the old file intact, no temporary left.
     optimize.c's sample writer closed its FILE twice on this path and export.c leaked one when
     fputs failed; both write through this function now */
  pid_t pid = fork();
  if (pid == 0) {
    struct rlimit rl = {16, 16};
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(2);
    cl1_err e = {{0}};
    char big[64];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    int rc = cl1_file_write_atomic(q, big, &e);
    _exit(rc == -1 && strstr(e.msg, q) && strstr(e.msg, "too large") ? 0 : 1);
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  assert_int_equal(cl1_file_read(q, 100, &buf, &n, &err), 0);
  assert_string_equal(buf, "hello\n");
  free(buf);
  snprintf(r, sizeof r, "ls %s/a/b/c", d);
  char lsout[256];
  assert_int_equal(th_run(r, lsout, sizeof lsout), 0);
  assert_string_equal(lsout, "f.txt\n"); /* no temporary beside it */
  snprintf(r, sizeof r, "rm -rf %s", d);
  assert_int_equal(system(r), 0);
}

/* A folder shipped beside the binary: the variable wins, then <exe dir>/../name when it is a
 * folder (resolved), then name as given. */
static void test_share_dir_prefers_the_variable_then_beside_the_binary(void **st) {
  (void)st;
  char out[PATH_MAX], exe[PATH_MAX], want[PATH_MAX + 8];
  setenv("CL1_TEST_SHARE", "/some/where", 1);
  cl1_proc_share_dir("CL1_TEST_SHARE", "obj", out, sizeof out);
  assert_string_equal(out, "/some/where");
  unsetenv("CL1_TEST_SHARE");
  /* the test binary is build/tests/X: build/obj is beside its folder */
  assert_int_equal(cl1_proc_exe_dir(exe, sizeof exe), 0);
  snprintf(want, sizeof want, "%s/../obj", exe);
  char *real = realpath(want, NULL);
  assert_non_null(real);
  cl1_proc_share_dir("CL1_TEST_SHARE", "obj", out, sizeof out);
  assert_string_equal(out, real);
  free(real);
  cl1_proc_share_dir("CL1_TEST_SHARE", "no-such-folder", out, sizeof out);
  assert_string_equal(out, "no-such-folder");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_compiles_and_runs),
      cmocka_unit_test(test_second_compile_is_cached),
      cmocka_unit_test(test_one_byte_changes_hash),
      cmocka_unit_test(test_group_header_changes_hash),
      cmocka_unit_test(test_syntax_error_reports_solution_line_and_is_not_cached),
      cmocka_unit_test(test_timeout_kills_compiler),
      cmocka_unit_test(test_output_too_large_is_a_compile_failure),
      cmocka_unit_test(test_compile_many_hashes_like_one_compile_and_reports_each_source),
      cmocka_unit_test(test_compile_many_forked_while_the_python_query_runs_comes_back),
      cmocka_unit_test(test_warm_shapes_key_triton_modules_only),
      cmocka_unit_test(test_cache_dir_that_is_a_file_is_refused_by_name),
      cmocka_unit_test(test_find_dirs_walks_up_to_the_op_library_and_headers),
      cmocka_unit_test(test_cuda_compile_tells_own_kernels_from_op_calls),
      cmocka_unit_test(test_cuda_compile_keys_by_backend_and_reports_errors_by_line),
      cmocka_unit_test(test_proc_run_captures_output_and_status_and_names_spawn_errors),
      cmocka_unit_test(test_proc_run_timeout_kills_the_process_group),
      cmocka_unit_test(test_proc_exe_dir_is_the_running_binarys_folder),
      cmocka_unit_test(test_share_dir_prefers_the_variable_then_beside_the_binary),
      cmocka_unit_test(test_file_read_limit_mkdirs_and_atomic_write),
  };
  return cmocka_run_group_tests(tests, group_setup, NULL);
}
