/* doctor_host.c — the doctor's probes of what every backend needs (a C compiler that builds a
 * shared object, the host op library and its headers, the worker binary, the suite, a writable
 * compile cache), the cache and memory figures the evaluator will use, and Python with numpy
 * and torch (the twin checks and the PyTorch baselines; not the main job). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "../base/file.h"
#include "../base/llc.h"
#include "../base/proc.h"
#include "../task/task.h"
#include "compile.h"
#include "doctor_int.h"
#include "eval.h"
#include "judge_proc.h"

/* The first line of text, into out. */
static void first_line(const char *text, char *out, size_t n) {
  snprintf(out, n, "%.*s", (int)strcspn(text, "\n"), text);
}

/* Builds a one-line C file into a shared object with cc, as the host backend builds solutions;
 * 0, or -1 with why. */
static int cc_builds(char *why, size_t n) {
  char dir[] = "/tmp/cudal1-doctor.XXXXXX", src[64], so[64], out[2048], line[400];
  if (!mkdtemp(dir)) {
    snprintf(why, n, "cannot create a temp dir: %s", strerror(errno));
    return -1;
  }
  snprintf(src, sizeof src, "%s/probe.c", dir);
  snprintf(so, sizeof so, "%s/probe.so", dir);
  cl1_err err = {{0}};
  int rc = cl1_file_write_atomic(src, "int cl1_doctor_probe(int x) { return x + 1; }\n", &err);
  if (rc) cl1_strcpy(why, n, err.msg);
  if (!rc) {
    char *argv[] = {"cc", "-std=c11", "-O2", "-fPIC", "-shared", "probe.c", "-o", "probe.so", NULL};
    size_t len = 0;
    int st = 0;
    rc = cl1_proc_run(argv, dir, 60000, out, sizeof out, &len, &st, &err);
    first_line(out, line, sizeof line);
    if (rc < 0) cl1_strcpy(why, n, err.msg);
    else if (rc) snprintf(why, n, "cc took more than 60 s for one line");
    else if (st || access(so, R_OK)) {
      snprintf(why, n, "cc exited %d: %s", st, line);
      rc = -1;
    }
  }
  unlink(so), unlink(src), rmdir(dir);
  return rc ? -1 : 0;
}

static void probe_cc(cl1_doctor_report *r) {
  char *argv[] = {"cc", "--version", NULL}, out[2048], ver[200], why[600];
  cl1_err err = {{0}};
  size_t len = 0;
  int st = 0, rc = cl1_proc_run(argv, NULL, 30000, out, sizeof out, &len, &st, &err);
  if (rc || st) {
    cl1_doctor_add(r, "cc", "C compiler", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_ALL,
                   "install a C compiler: apt-get install gcc (`cc` on PATH builds C solutions)",
                   "cc --version: %s", rc < 0 ? err.msg : rc ? "timed out" : "failed");
    return;
  }
  first_line(out, ver, sizeof ver);
  if (cc_builds(why, sizeof why))
    cl1_doctor_add(r, "cc", "C compiler", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_ALL,
                   "a working C compiler with the C library's headers: apt-get install "
                   "build-essential",
                   "%s, but it cannot build a shared object: %s", ver, why);
  else
    cl1_doctor_add(r, "cc", "C compiler", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_ALL, NULL,
                   "cc: %s; built a shared object", ver);
}

static void probe_ops_host(cl1_doctor_report *r) {
  cl1_compile_opts co = {.backend = CL1_BACKEND_HOST};
  char ops[4096], inc[4096];
  cl1_err err = {{0}};
  if (cl1_compile_find_dirs(&co, NULL, ops, sizeof ops, inc, sizeof inc, &err))
    cl1_doctor_add(r, "ops_host", "host op library", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_ALL,
                   "make (builds build/libcl1ops_host.so); run the cudal1 of the build tree",
                   "%s", err.msg);
  else
    cl1_doctor_add(r, "ops_host", "host op library", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_ALL, NULL,
                   "%s/libcl1ops_host.so, headers in %s", ops, inc);
}

static void probe_worker(cl1_doctor_report *r) {
  char exe[4096];
  cl1_err err = {{0}};
  const char *env = getenv("CUDAL1_WORKER");
  const char *from = env && *env ? " ($CUDAL1_WORKER)" : "";
  if (cl1_worker_exe(exe, sizeof exe, &err))
    cl1_doctor_add(r, "worker", "worker program", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_ALL,
                   "build cudal1-worker (make) or set CUDAL1_WORKER to it", "%s", err.msg);
  else if (access(exe, X_OK))
    cl1_doctor_add(r, "worker", "worker program", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_ALL,
                   "set CUDAL1_WORKER to the cudal1-worker program, or unset it",
                   "%s%s: %s", exe, from, strerror(errno));
  else
    cl1_doctor_add(r, "worker", "worker program", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_ALL, NULL,
                   "%s%s", exe, from);
}

/* The task.json files under root/levelN/. */
static int count_tasks(const char *root, int level) {
  char d[PATH_MAX + 16], p[PATH_MAX + 300];
  snprintf(d, sizeof d, "%s/level%d", root, level);
  DIR *dir = opendir(d);
  if (!dir) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dir))) {
    if (e->d_name[0] == '.') continue;
    snprintf(p, sizeof p, "%s/%s/task.json", d, e->d_name);
    n += access(p, R_OK) == 0;
  }
  closedir(dir);
  return n;
}

static void probe_suite(cl1_doctor_report *r) {
  const char *root = cl1_suite_root();
  const char *env = getenv("CUDAL1_SUITE");
  char *real = realpath(root, NULL);
  int n[4] = {0};
  for (int lv = 1; lv <= 3; lv++) n[0] += n[lv] = count_tasks(root, lv);
  if (n[0])
    cl1_doctor_add(r, "suite", "suite", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_ALL, NULL,
                   "%s%s: %d tasks (level1 %d, level2 %d, level3 %d)", real ? real : root,
                   env && *env ? " ($CUDAL1_SUITE)" : "", n[0], n[1], n[2], n[3]);
  else
    cl1_doctor_add(r, "suite", "suite", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_ALL,
                   "run the cudal1 of the repository's build tree (suite/ beside build/), or set "
                   "CUDAL1_SUITE to the suite folder",
                   "no tasks (levelN/*/task.json) under %s%s", real ? real : root,
                   env && *env ? " ($CUDAL1_SUITE)" : "");
  free(real);
}

static void probe_cache(cl1_doctor_report *r) {
  char root[4096], probe[4200], fr[32] = "?";
  cl1_err err = {{0}};
  const char *fix = "make it writable, or set XDG_CACHE_HOME to a writable folder (the cache is "
                    "XDG_CACHE_HOME/cudal1)";
  if (cl1_cache_root(NULL, root, sizeof root, &err) || cl1_file_mkdirs(root, &err)) {
    cl1_doctor_add(r, "compile_cache", "compile cache", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_ALL,
                   fix, "%s", err.msg);
    return;
  }
  snprintf(probe, sizeof probe, "%s/.doctor.XXXXXX", root);
  int fd = mkstemp(probe);
  if (fd < 0 || write(fd, "x", 1) != 1) {
    cl1_doctor_add(r, "compile_cache", "compile cache", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_ALL,
                   fix, "%s: cannot write a file there: %s", root, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(probe);
    }
    return;
  }
  close(fd);
  unlink(probe);
  struct statvfs vs;
  if (statvfs(root, &vs) == 0)
    cl1_doctor_bytes((size_t)vs.f_bavail * vs.f_frsize, fr, sizeof fr);
  cl1_doctor_add(r, "compile_cache", "compile cache", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_ALL, NULL,
                 "%s: writable, %s free", root, fr);
}

void cl1_doctor_probe_build(cl1_doctor_report *r) {
  probe_cc(r);
  probe_ops_host(r);
  probe_worker(r);
  probe_suite(r);
  probe_cache(r);
}

/* The candidate's budget on one backend, read back from cl1_eval_mem_allowance. */
static void budget(cl1_doctor_report *r, cl1_backend b) {
  size_t room = cl1_eval_mem_allowance(b, 0);
  size_t mult = (cl1_eval_mem_allowance(b, (size_t)1 << 20) - room) >> 20;
  char rs[32];
  cl1_doctor_bytes(room, rs, sizeof rs);
  if (b == CL1_BACKEND_HOST)
    cl1_doctor_add(r, "mem_budget_host", "budget (host)", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_NONE,
                   NULL, "a candidate may use %zu x its task's data + %s (CL1_HOST_MEM_ROOM: its "
                   "code, libraries, arenas, workspace), as RLIMIT_AS above the harness's own",
                   mult, rs);
  else
    cl1_doctor_add(r, "mem_budget_cuda", "budget (cuda)", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_NONE,
                   NULL, "%zu x data + %s (CL1_CUDA_MEM_ROOM) of resident memory, watched by the "
                   "judge (the driver reserves too much address space for RLIMIT_AS)", mult, rs);
}

void cl1_doctor_probe_memory(cl1_doctor_report *r) {
  cl1_llc l;
  cl1_llc_read(NULL, &l);
  char a[32], b[32], c[32];
  cl1_doctor_bytes(l.bytes, a, sizeof a);
  cl1_doctor_add(r, "llc", "last-level cache", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_NONE, NULL,
                 "%s (%s)", a, l.source);
  cl1_doctor_bytes(l.flush_bytes, a, sizeof a);
  cl1_doctor_bytes(2 * l.bytes, b, sizeof b);
  cl1_doctor_bytes(CL1_LLC_FLUSH_MAX, c, sizeof c);
  if (2 * l.bytes > CL1_LLC_FLUSH_MAX)
    cl1_doctor_add(r, "flush", "host cache flush", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_NONE, NULL,
                   "%s written before each timed call: 2 x the cache = %s, capped at %s "
                   "(CL1_LLC_FLUSH_MAX)", a, b, c);
  else
    cl1_doctor_add(r, "flush", "host cache flush", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_NONE, NULL,
                   "%s written before each timed call (2 x the cache; the cap is %s)", a, c);
  budget(r, CL1_BACKEND_HOST);
  budget(r, CL1_BACKEND_CUDA);
  long pages = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES), ps = sysconf(_SC_PAGESIZE);
  if (pages > 0 && ps > 0) {
    cl1_doctor_bytes((size_t)pages * (size_t)ps, a, sizeof a);
    cl1_doctor_bytes(avail > 0 ? (size_t)avail * (size_t)ps : 0, b, sizeof b);
    cl1_doctor_add(r, "memory", "memory", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_NONE, NULL,
                   "%s, %s free now (sysconf)", a, b);
  }
  struct rlimit rl;
  const char *fix = "ulimit -v unlimited before running cudal1 (workers set their own limit)";
  if (getrlimit(RLIMIT_AS, &rl))
    cl1_doctor_add(r, "rlimit_as", "RLIMIT_AS", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_NONE, NULL,
                   "unreadable: %s", strerror(errno));
  else if (rl.rlim_cur == RLIM_INFINITY)
    cl1_doctor_add(r, "rlimit_as", "RLIMIT_AS", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_NONE, NULL,
                   "unlimited (each worker sets its candidate's own)");
  else {
    cl1_doctor_bytes((size_t)rl.rlim_cur, a, sizeof a);
    if (r->gpu_present)
      cl1_doctor_add(r, "rlimit_as", "RLIMIT_AS", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_NONE, fix,
                     "%s: the CUDA driver and cuDNN reserve tens of GB of address space; CUDA "
                     "workers may fail to start", a);
    else if ((size_t)rl.rlim_cur < 4 * CL1_HOST_MEM_ROOM)
      cl1_doctor_add(r, "rlimit_as", "RLIMIT_AS", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_NONE, fix,
                     "%s: workers inherit it; the harness, the flush and a candidate's budget may "
                     "not fit", a);
    else
      cl1_doctor_add(r, "rlimit_as", "RLIMIT_AS", CL1_DOCTOR_INFO, CL1_DOCTOR_NEED_NONE, NULL,
                     "%s: a ceiling every worker inherits", a);
  }
}

/* The value after "key " on its own line of out ("" when absent). */
static void field(const char *out, const char *key, char *v, size_t n) {
  size_t k = strlen(key);
  v[0] = 0;
  for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (!strncmp(p, key, k) && p[k] == ' ') {
      first_line(p + k + 1, v, n);
      return;
    }
}

static const char py_probe[] =
    "import sys\n"
    "print('python %d.%d.%d' % sys.version_info[:3], flush=True)\n"
    "try:\n    import numpy; print('numpy', numpy.__version__, flush=True)\n"
    "except Exception as e: print('numpy-error', repr(e)[:200], flush=True)\n"
    "try:\n    import torch; print('torch', torch.__version__, torch.cuda.is_available(), flush=True)\n"
    "except Exception as e: print('torch-error', repr(e)[:200], flush=True)\n";

void cl1_doctor_probe_python(cl1_doctor_report *r, int timeout_s) {
  const char *fix = "scripts/deps --python (installs numpy and torch from PyPI)";
  char *argv[] = {"python3", "-c", (char *)py_probe, NULL}, out[8192], py[64], v[300], e[300];
  cl1_err err = {{0}};
  size_t len = 0;
  int st = 0, rc = cl1_proc_run(argv, NULL, timeout_s * 1000, out, sizeof out, &len, &st, &err);
  field(rc ? "" : out, "python", py, sizeof py);
  if (!py[0]) {
    cl1_doctor_add(r, "python", "Python", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_NONE,
                   "install Python 3 (apt-get install python3), then scripts/deps --python",
                   "python3: %s (the twin checks and the PyTorch baselines need it)",
                   rc < 0 ? err.msg : rc ? "timed out" : "printed no version");
    return;
  }
  cl1_doctor_add(r, "python", "Python", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_NONE, NULL,
                 "python3 %s (the twin checks and the PyTorch baselines; not the main job)", py);
  field(out, "numpy", v, sizeof v);
  field(out, "numpy-error", e, sizeof e);
  if (v[0])
    cl1_doctor_add(r, "numpy", "numpy", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_NONE, NULL, "%s", v);
  else
    cl1_doctor_add(r, "numpy", "numpy", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_NONE, fix, "%s",
                   e[0] ? e : rc ? "timed out" : "not importable");
  field(out, "torch", v, sizeof v);
  field(out, "torch-error", e, sizeof e);
  if (!v[0]) {
    cl1_doctor_add(r, "torch", "torch", CL1_DOCTOR_MISSING, CL1_DOCTOR_NEED_NONE, fix, "%s",
                   e[0] ? e : rc ? "`import torch` timed out" : "not importable");
    return;
  }
  char ver[64] = "", cuda[16] = "";
  sscanf(v, "%63s %15s", ver, cuda);
  bool has_cuda = !strcmp(cuda, "True");
  if (r->gpu_present && !has_cuda)
    cl1_doctor_add(r, "torch", "torch", CL1_DOCTOR_WRONG, CL1_DOCTOR_NEED_NONE,
                   "install a CUDA build of torch that matches the driver (pytorch.org)",
                   "%s, but torch.cuda.is_available() is False: the GPU baselines cannot run", ver);
  else
    cl1_doctor_add(r, "torch", "torch", CL1_DOCTOR_OK, CL1_DOCTOR_NEED_NONE, NULL,
                   "%s (torch.cuda.is_available(): %s)", ver, cuda);
}
