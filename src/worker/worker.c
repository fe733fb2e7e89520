/* worker.c — the worker side of the three-process evaluator (see worker.h). The same code serves
 * the reference and the candidate; only the candidate enters the sandbox, before its .so is
 * loaded. The worker reports facts (return codes, checksums, times, thread counts); the judge,
 * in another process, decides what they mean. */
#include "worker.h"
#include <assert.h>
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "cudal1/solution.h"
#include "dev.h"
#include "proto.h"
#include "sandbox.h"
#include "../base/proc.h"

typedef int (*forward_fn)(const cl1_call *);
typedef int (*setup_fn)(const cl1_call *, void **);
typedef void (*teardown_fn)(void *);

typedef struct {
  cl1_task *task;
  cl1_inst inst;
  cl1_dev dev;
  bool dev_open, is_cand, primed;
  bool set_up;           /* SETUP succeeded (OPEN may have opened the device before it) */
  bool opened;           /* OPEN succeeded: the device and op library are its */
  int open_backend;      /* the backend OPEN opened (cl1_backend), when dev_open came from it */
  char *ops_path;        /* the op library preloaded, by OPEN or SETUP */
  unsigned char *shm;
  size_t shm_bytes, region_bytes, offs[CL1_TASK_MAX_TENSORS];
  void *lib;
  forward_fn forward;
  setup_fn setup;
  teardown_fn teardown;
  void *state;
  bool have_state;
  void *in_buf[CL1_WORKER_SLOTS][CL1_TASK_MAX_TENSORS];
  void *par_buf[CL1_TASK_MAX_PARAMS];
  void *out_buf[CL1_TASK_MAX_TENSORS];
  void *workspace;
  size_t workspace_bytes;
  uint64_t par_sum[CL1_TASK_MAX_PARAMS];
  cl1_tensor in_t[CL1_TASK_MAX_TENSORS], par_t[CL1_TASK_MAX_PARAMS], out_t[CL1_TASK_MAX_TENSORS];
  cl1_call call;
  bool warm_cache;
  double hold_cfg_us;    /* the hold the judge asked for; trials may turn it off */
  void *graph[CL1_WORKER_SLOTS];
  bool use_graph;
  bool timing;           /* warm-up done: trials follow back to back */
  long calls;
  bool harness_failed;   /* the last failure was the harness's own (setup before any candidate
                            code ran): the judge calls it infra_error, not the candidate's crash */
  size_t vm_base, rss_base, as_limit; /* at sandbox entry (as_limit: the RLIMIT_AS set, host) */
  int threads_entry;     /* threads at sandbox entry (the CUDA driver's own) */
  char *so_path;         /* SETUP names the solution; LOAD maps it */
  char *py_spec;         /* SETUP's "py": a PyTorch module the solution (libcl1py) runs */
  const char *(*py_report)(void); /* libcl1py's report: numerics flags, extension calls */
  int (*py_params)(uint64_t, const char *); /* libcl1py's: the params set's seed and variant */
  void *ops_lib;         /* the op library, preloaded at OPEN or SETUP */
} worker;

size_t cl1_worker_layout(const cl1_inst *in, size_t offs[CL1_TASK_MAX_TENSORS]) {
  assert(in->n_outputs >= 0 && in->n_outputs <= CL1_TASK_MAX_TENSORS);
  size_t off = 0;
  for (int i = 0; i < in->n_outputs; i++) {
    offs[i] = off;
    off += (in->outputs[i].bytes + 255) & ~(size_t)255;
  }
  return off ? off : 256;
}

static int reply(int type, cJSON *o) {
  char *s = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  int rc = cl1_proto_send(CL1_WORKER_FD_OUT, (uint32_t)type, s, NULL);
  free(s);
  return rc;
}

static int fail(const char *why, bool harness) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "error", why);
  if (harness) cJSON_AddTrueToObject(o, "harness");
  return reply(CL1_MSG_FAIL, o);
}

static double num(const cJSON *o, const char *k, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}
static const char *str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}
/* A request's verification variant ("variant": its name; absent: the task's distributions). */
static cl1_variant variant_of(const cJSON *o) {
  const char *v = str(o, "variant");
  int k = v ? cl1_variant_parse(v) : CL1_VARIANT_NONE;
  return k < 0 ? CL1_VARIANT_NONE : (cl1_variant)k;
}

static uint64_t seed_of(const cJSON *o, const char *k) {
  const char *s = str(o, k); /* seeds travel as decimal strings: doubles lose 64-bit values */
  return s ? strtoull(s, NULL, 10) : 0;
}

/* A .so that passed the gate fits the memory budget (its segments are bounded there: gate.h), so
 * failing to map it is the harness's failure (a budget too small, a library missing), not the
 * candidate's; code of the candidate that runs while it loads and crashes kills the worker, which
 * the judge sees as a death, not as this message. */
static int load_solution(worker *w, const char *so, cl1_err *err) {
  w->lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!w->lib) {
    w->harness_failed = true;
    return cl1_err_set(err, "cannot load the solution: %s (address space %.0f MiB at the sandbox's "
                       "entry, limit %.0f MiB)", dlerror(), w->vm_base / 1048576.0,
                       w->as_limit / 1048576.0);
  }
  w->harness_failed = false; /* from here on, what fails is the candidate's */
  w->forward = (forward_fn)(uintptr_t)dlsym(w->lib, "cl1_forward");
  w->setup = (setup_fn)(uintptr_t)dlsym(w->lib, "cl1_setup");
  w->teardown = (teardown_fn)(uintptr_t)dlsym(w->lib, "cl1_teardown");
  if (!w->forward) return cl1_err_set(err, "the solution does not export cl1_forward");
  return 0;
}

/* Fault injection for the tests (SQLite's way): CUDAL1_FAULT=device_lost@N makes every device
 * sync fail once N verified or timed calls have been requested, as when the GPU falls off the
 * bus. Both workers inherit it; the judge's PING comes after the other worker saw the loss, so
 * it finds the device lost too. The machine fails under both, which the judge must call
 * infra_error, never the candidate's crash (tests/test_infra.c). */
static int (*g_real_sync)(cl1_dev *, cl1_err *);
static long g_fault_after = -1, g_calls_requested;

static int faulty_sync(cl1_dev *d, cl1_err *err) {
  if (g_calls_requested > g_fault_after)
    return cl1_err_set(err, "device lost (injected: CUDAL1_FAULT)");
  return g_real_sync(d, err);
}

static void fault_install(cl1_dev *d) {
  const char *f = getenv("CUDAL1_FAULT");
  if (!f || strncmp(f, "device_lost@", 12)) return;
  g_fault_after = strtol(f + 12, NULL, 10);
  g_real_sync = d->sync;
  d->sync = faulty_sync;
}

/* The op library solutions link (trusted, ours), loaded and initialised before the sandbox: its
 * libraries (cuBLAS, cuDNN) took ~0.45 s to map at LOAD, and its handles ~0.1 s at the first
 * call, both inside a shared GPU's hold. Both workers do it, so they still hold the same
 * libraries and threads when the sandbox closes. */
static int preload_ops(worker *w, const char *path, cl1_err *err) {
  if (!path || w->ops_path) return 0;  /* none asked for, or OPEN's (do_setup checked it) */
  /* the Python runtime (libcl1py) starts CUDA in torch here, before the sandbox, on CUDA only */
  setenv("CUDAL1_PY_DEVICE", w->dev.backend == CL1_BACKEND_CUDA ? "cuda" : "cpu", 1);
  w->ops_path = strdup(path);
  if (!w->ops_path) return cl1_err_set(err, "out of memory");
  w->ops_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!w->ops_lib) return cl1_err_set(err, "cannot load the op library: %s", dlerror());
  int (*preload)(void) = (int (*)(void))(uintptr_t)dlsym(w->ops_lib, "cl1_ops_preload");
  if (!preload) return cl1_err_set(err, "the op library %s has no cl1_ops_preload", path);
  if (preload()) return cl1_err_set(err, "the op library %s could not initialise", path);
  return 0;
}

/* Where setup time goes (reported in the SETUP reply; CUDAL1_TRACE shows it). */
static double g_setup_ms[CL1_SETUP_MARKS];

/* A Python solution's module, before the sandbox: the runtime does there what the module will
 * need and may not do in the sandbox (pysol.prepare: Triton's tools run, its cache found). Our
 * code, so a failure is the harness's. */
static int prepare_python(worker *w, const char *spec, cl1_err *err) {
  if (!spec || !w->ops_lib) return 0;
  int (*prepare)(const char *, char *, size_t) =
      (int (*)(const char *, char *, size_t))(uintptr_t)dlsym(w->ops_lib, "cl1_py_prepare");
  if (!prepare) return 0; /* an op library, not the Python runtime */
  char msg[512] = "";
  if (prepare(spec, msg, sizeof msg)) return cl1_err_set(err, "preparing the Python module: %s", msg);
  return 0;
}

/* SETUP does everything but map the solution: the device, the buffers, the sandbox. No solution
 * code runs in it, so a judge that shares the GPU among several evaluations may let SETUP overlap
 * another's timed trials; LOAD (dlopen: the solution's constructors run) is a request of its own
 * that such a judge sends only while it holds the GPU (src/eval/gpu_lock.h). */

/* OPEN: the part of SETUP that depends on no task — the device (a CUDA context) and the op
 * library — done ahead by a spare worker (src/eval/spare.h) while the judge is busy elsewhere,
 * so an evaluation that takes it skips the start the driver serialises. No solution code and no
 * task are involved: a spare is as fresh as a worker spawned when needed. */
static int do_open(worker *w, const cJSON *m, cl1_err *err) {
  w->harness_failed = true;
  const char *backend = str(m, "backend");
  if (!backend) return cl1_err_set(err, "open: missing field");
  if (w->dev_open || w->set_up) return cl1_err_set(err, "open: this worker is already open");
  cl1_backend b = !strcmp(backend, "cuda") ? CL1_BACKEND_CUDA : CL1_BACKEND_HOST;
  if (cl1_dev_open(b, &w->dev, err)) return -1;
  w->dev_open = true;
  w->open_backend = (int)b;
  fault_install(&w->dev);
  if (preload_ops(w, str(m, "preload"), err)) return -1;
  w->opened = true;
  return 0;
}

static int do_setup(worker *w, const cJSON *m, cl1_err *err) {
  double t0 = cl1_now();
  w->harness_failed = true; /* until the solution is loaded, every failure is the harness's */
  const char *task = str(m, "task"), *shapes = str(m, "shapes"), *so = str(m, "so");
  const char *backend = str(m, "backend"), *role = str(m, "role");
  if (!task || !shapes || !so || !backend || !role) return cl1_err_set(err, "setup: missing field");
  if (w->set_up) return cl1_err_set(err, "setup: this worker is already set up");
  w->is_cand = !strcmp(role, "cand");
  w->warm_cache = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "warm_cache"));
  w->use_graph = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "graph"));
  if (cl1_task_load(task, &w->task, err)) return -1;
  int set = cl1_shapes_parse(shapes);
  if (set < 0 || cl1_task_instance(w->task, set, &w->inst, err)) return -1;
  cl1_backend b = !strcmp(backend, "cuda") ? CL1_BACKEND_CUDA : CL1_BACKEND_HOST;
  g_setup_ms[0] = (cl1_now() - t0) * 1e3;
  const char *ops = str(m, "preload");
  if (w->opened && w->open_backend != (int)b)
    return cl1_err_set(err, "setup: backend %s differs from the one opened", backend);
  if (w->opened && strcmp(ops ? ops : "", w->ops_path ? w->ops_path : ""))
    return cl1_err_set(err, "setup: the op library %s differs from the one opened (%s)",
                       ops ? ops : "(none)", w->ops_path ? w->ops_path : "none");
  if (!w->dev_open) {
    if (cl1_dev_open(b, &w->dev, err)) return -1;
    w->dev_open = true;
    fault_install(&w->dev);
  }
  w->dev.hold_us = w->hold_cfg_us = num(m, "hold_us", 0);
  g_setup_ms[1] = (cl1_now() - t0) * 1e3;
  w->region_bytes = cl1_worker_layout(&w->inst, w->offs);
  w->shm_bytes = w->region_bytes * (size_t)num(m, "regions", 1);
  w->shm = mmap(NULL, w->shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, CL1_WORKER_FD_SHM, 0);
  if (w->shm == MAP_FAILED) { w->shm = NULL; return cl1_err_set(err, "cannot map shared memory"); }
  /* Pinned, device-to-host copies of large outputs run at full PCIe speed; pageable is a
     fallback, never an error. */
  if (w->dev.pin) {
    cl1_err ignore;
    if (w->dev.pin(&w->dev, w->shm, w->shm_bytes, &ignore))
      cl1_log_debug("worker: output memory not pinned: %s", ignore.msg);
  }
  g_setup_ms[2] = (cl1_now() - t0) * 1e3;
  for (int i = 0; i < w->inst.n_outputs; i++) {
    if (w->dev.alloc(&w->dev, w->inst.outputs[i].bytes, &w->out_buf[i], err)) return -1;
    cl1_tensor_of(&w->out_t[i], &w->inst.outputs[i], w->out_buf[i]);
  }
  w->workspace_bytes = (size_t)num(m, "workspace", 0);
  if (w->workspace_bytes && w->dev.alloc(&w->dev, w->workspace_bytes, &w->workspace, err)) return -1;
  g_setup_ms[3] = (cl1_now() - t0) * 1e3;
  if (preload_ops(w, ops, err)) return -1;
  if (prepare_python(w, str(m, "py"), err)) return -1;
  g_setup_ms[4] = (cl1_now() - t0) * 1e3;
  /* The budget is what the harness already holds here (its code and libraries, the device's
     buffers, the flush buffer — whatever this machine made them) plus the judge's allowance, so
     a large cache or driver reservation cannot eat the candidate's share (issue 17). */
  cl1_proc_mem(0, &w->vm_base, &w->rss_base);
  w->threads_entry = cl1_sandbox_thread_count(); /* the driver's, before any solution code */
  if (w->is_cand && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "sandbox"))) {
    size_t allowance = (size_t)num(m, "mem_allowance", 0);
    w->as_limit = allowance && b == CL1_BACKEND_HOST ? w->vm_base + allowance : 0;
    cl1_sandbox_opts so_opts = {
        .tmpdir = str(m, "tmpdir"), .mem_limit_bytes = w->as_limit,
        .cpu_seconds = (int)num(m, "cpu_s", 0), .file_limit_bytes = (size_t)num(m, "fsize", 0),
        .backend = b};
    if (cl1_sandbox_enter(&so_opts, err)) return -1;
  }
  g_setup_ms[5] = (cl1_now() - t0) * 1e3;
  w->set_up = true;
  w->so_path = strdup(so);
  if (!w->so_path) return cl1_err_set(err, "out of memory");
  const char *py = str(m, "py");
  if (py && !(w->py_spec = strdup(py))) return cl1_err_set(err, "out of memory");
  return 0;
}

/* A Python solution: libcl1py (already loaded as the preloaded library) imports the module; its
 * top-level code runs here, sandboxed, and what fails in it is the candidate's. */
static int load_python(worker *w, cl1_err *err) {
  int (*load)(const char *, char *, size_t) =
      (int (*)(const char *, char *, size_t))(uintptr_t)dlsym(w->lib, "cl1_py_load");
  if (!load) {
    w->harness_failed = true;
    return cl1_err_set(err, "the solution library %s has no cl1_py_load", w->so_path);
  }
  w->py_report = (const char *(*)(void))(uintptr_t)dlsym(w->lib, "cl1_py_report");
  w->py_params = (int (*)(uint64_t, const char *))(uintptr_t)dlsym(w->lib, "cl1_py_params");
  char msg[1024] = "";
  if (load(w->py_spec, msg, sizeof msg)) return cl1_err_set(err, "%s", msg);
  return 0;
}

static int do_load(worker *w, cl1_err *err) {
  if (!w->so_path) return cl1_err_set(err, "load: no successful setup before it");
  if (w->lib) return cl1_err_set(err, "load: the solution is already loaded");
  w->harness_failed = true; /* load_solution says when the candidate's part begins */
  if (load_solution(w, w->so_path, err)) return -1;
  if (w->py_spec && load_python(w, err)) return -1;
  w->call.n_inputs = w->inst.n_inputs;
  w->call.inputs = w->in_t;
  w->call.n_params = w->inst.n_params;
  w->call.params = w->par_t;
  w->call.n_outputs = w->inst.n_outputs;
  w->call.outputs = w->out_t;
  w->call.n_attrs = w->inst.n_attrs;
  w->call.attrs = w->inst.attrs;
  w->call.workspace = w->workspace;
  w->call.workspace_bytes = w->workspace_bytes;
  w->call.stream = w->dev.stream;
  return 0;
}

static void drop_state(worker *w) {
  if (w->have_state && w->teardown) w->teardown(w->state);
  w->have_state = false;
  w->state = NULL;
  for (int s = 0; s < CL1_WORKER_SLOTS; s++) {
    if (w->graph[s]) w->dev.graph_free(&w->dev, w->graph[s]);
    w->graph[s] = NULL;
  }
}

static int fill_slot(worker *w, int s, uint64_t seed, cl1_variant v, cl1_err *err);
static void bind_slot(worker *w, int s);

static int do_params(worker *w, const cJSON *m, cJSON *out, cl1_err *err) {
  drop_state(w);
  uint64_t seed = seed_of(m, "seed");
  for (int i = 0; i < w->inst.n_params; i++) {
    if (!w->par_buf[i] && w->dev.alloc(&w->dev, w->inst.params[i].bytes, &w->par_buf[i], err))
      return -1;
    cl1_tinst t;
    cl1_tinst_variant(&w->inst.params[i], 1, variant_of(m), &t); /* off_default: never timed */
    if (w->dev.gen(&w->dev, &t, w->par_buf[i], seed, cl1_tensor_id_param(i), err))
      return -1;
    cl1_tensor_of(&w->par_t[i], &w->inst.params[i], w->par_buf[i]);
    if (w->dev.checksum(&w->dev, w->par_buf[i], w->inst.params[i].bytes, &w->par_sum[i], err))
      return -1;
  }
  for (int i = 0; i < w->inst.n_inputs; i++) cl1_tensor_of(&w->in_t[i], &w->inst.inputs[i], NULL);
  if (w->dev.sync(&w->dev, err)) return -1;
  int rc = 0;
  w->call.state = NULL;
  /* a PyTorch module: constructed under the set's seed on a KernelBench-format task */
  if (w->py_params && w->py_params(seed, cl1_variant_name(variant_of(m))))
    return cl1_err_set(err, "the Python runtime refused the params set's seed");
  if (w->setup) {
    rc = w->setup(&w->call, &w->state);
    w->have_state = true;
    if (w->dev.sync(&w->dev, err)) return cl1_err_wrap(err, "after cl1_setup");
  }
  w->call.state = w->state;
  /* The reference's first call builds its plans (cuDNN algorithm choice, lazy kernel loading:
     180 ms for a conv) — done here, on inputs from a seed nobody else uses, while the candidate
     runs its own cl1_setup, instead of on the critical path of the first check. */
  if (!w->is_cand && !w->primed && rc == 0) {
    w->primed = true;
    if (fill_slot(w, 0, seed ^ 0x5DEECE66DULL, CL1_VARIANT_NONE, err)) return -1;
    bind_slot(w, 0);
    int prc = w->forward(&w->call);
    if (w->dev.sync(&w->dev, err)) return cl1_err_wrap(err, "priming the reference");
    if (prc) return cl1_err_set(err, "the reference's cl1_forward returned %d (priming call)", prc);
  }
  cJSON_AddNumberToObject(out, "rc", rc);
  return 0;
}

/* Generates the inputs of slot s from seed (allocating the slot on first use). */
static int fill_slot(worker *w, int s, uint64_t seed, cl1_variant v, cl1_err *err) {
  assert(s >= 0 && s < CL1_WORKER_SLOTS && w->dev_open);
  for (int i = 0; i < w->inst.n_inputs; i++) {
    if (!w->in_buf[s][i] && w->dev.alloc(&w->dev, w->inst.inputs[i].bytes, &w->in_buf[s][i], err))
      return -1;
    cl1_tinst t;
    cl1_tinst_variant(&w->inst.inputs[i], 0, v, &t);
    if (w->dev.gen(&w->dev, &t, w->in_buf[s][i], seed, cl1_tensor_id_input(i), err))
      return -1;
  }
  return w->dev.sync(&w->dev, err);
}

static void bind_slot(worker *w, int s) {
  assert(s >= 0 && s < CL1_WORKER_SLOTS);
  for (int i = 0; i < w->inst.n_inputs; i++)
    cl1_tensor_of(&w->in_t[i], &w->inst.inputs[i], w->in_buf[s][i]);
}

static int sums(worker *w, int s, uint64_t *in_sum, cl1_err *err) {
  assert(s >= 0 && s < CL1_WORKER_SLOTS);
  for (int i = 0; i < w->inst.n_inputs; i++)
    if (w->dev.checksum(&w->dev, w->in_buf[s][i], w->inst.inputs[i].bytes, &in_sum[i], err))
      return -1;
  return 0;
}

static int poison_outputs(worker *w, cl1_err *err) {
  for (int i = 0; i < w->inst.n_outputs; i++)
    if (w->dev.poison(&w->dev, w->out_buf[i], w->inst.outputs[i].bytes, err)) return -1;
  return 0;
}

/* region comes off the pipe: checked as data (a negative one once passed the bound check). */
static int fetch(worker *w, int region, cl1_err *err) {
  if (region < 0 || !w->shm || (size_t)region >= w->shm_bytes / w->region_bytes)
    return cl1_err_set(err, "fetch: region %d out of range", region);
  for (int i = 0; i < w->inst.n_outputs; i++) {
    assert(w->offs[i] + w->inst.outputs[i].bytes <= w->region_bytes);
    if (w->dev.to_host(&w->dev, w->shm + (size_t)region * w->region_bytes + w->offs[i],
                       w->out_buf[i], w->inst.outputs[i].bytes, err))
      return -1;
  }
  return 0;
}

/* One call of the solution on slot s inside the timed interval (outputs poisoned first unless
 * the caller already did, before its L2 flush). */
static int timed_call(worker *w, int s, bool poisoned, bool empty, cJSON *out, cl1_err *err) {
  assert(w->forward); /* requests other than SETUP wait for a loaded solution (main loop) */
  bind_slot(w, s);
  if (!poisoned && poison_outputs(w, err)) return -1;
  double ev = 0, wall = 0;
  if (w->dev.begin(&w->dev, err)) return -1;
  int rc = 0;
  double h0 = cl1_now();
  if (empty) {
    /* the judge's calibration of this process's round trip: the same work around no call */
  } else if (w->use_graph && w->graph[s]) {
    rc = w->dev.graph_launch(&w->dev, w->graph[s], err) ? -1000 : 0;
  } else {
    rc = w->forward(&w->call);
  }
  double host_ms = (cl1_now() - h0) * 1e3;
  w->calls += !empty;
  if (w->dev.end(&w->dev, &ev, &wall, err)) return -1;
  cJSON_AddNumberToObject(out, "rc", rc);
  cJSON_AddNumberToObject(out, "ev_ms", ev);
  cJSON_AddNumberToObject(out, "wall_ms", wall);
  cJSON_AddNumberToObject(out, "host_ms", host_ms);
  cJSON_AddNumberToObject(out, "threads", cl1_sandbox_thread_count());
  return 0;
}

/* What the worker knew before a call — which verification variant drew the inputs, which request
 * it answers — must not be left where the candidate's code, running next on the same stack and
 * heap, can read it (classes 11 and 16: a candidate that knew would run its careful path on
 * exactly the variant checks). Freed request texts and cJSON nodes are zeroed (scrub_free), and
 * the stack below the caller is zeroed before the call. */
static __attribute__((noinline)) void scrub_stack(void) {
  unsigned char pad[16384];
  explicit_bzero(pad, sizeof pad);
}

static void scrub_free(void *p) {
  if (!p) return;
  explicit_bzero(p, malloc_usable_size(p));
  free(p);
}

/* A verified call: fresh inputs from seed in slot s, checksums around the call, outputs to shm. */
static int do_run(worker *w, const cJSON *m, cJSON *out, cl1_err *err) {
  int s = (int)num(m, "slot", 0), region = (int)num(m, "region", 0);
  if (s < 0 || s >= CL1_WORKER_SLOTS) return cl1_err_set(err, "run: bad slot %d", s);
  if (fill_slot(w, s, seed_of(m, "seed"), variant_of(m), err)) return -1;
  uint64_t before[CL1_TASK_MAX_TENSORS], after[CL1_TASK_MAX_TENSORS];
  if (sums(w, s, before, err)) return -1;
  scrub_stack();
  if (timed_call(w, s, false, false, out, err)) return -1;
  if (sums(w, s, after, err)) return -1;
  cJSON *mut = cJSON_AddArrayToObject(out, "mutated");
  for (int i = 0; i < w->inst.n_inputs; i++)
    if (before[i] != after[i]) cJSON_AddItemToArray(mut, cJSON_CreateString(w->inst.inputs[i].name));
  for (int i = 0; i < w->inst.n_params; i++) {
    uint64_t p;
    if (w->dev.checksum(&w->dev, w->par_buf[i], w->inst.params[i].bytes, &p, err)) return -1;
    if (p != w->par_sum[i]) cJSON_AddItemToArray(mut, cJSON_CreateString(w->inst.params[i].name));
  }
  const char *py = w->py_report ? w->py_report() : NULL;
  cJSON *pj = py ? cJSON_Parse(py) : NULL; /* the candidate's interpreter wrote it: data */
  if (pj) cJSON_AddItemToObject(out, "py", pj);
  double t0 = cl1_now();
  int rc = fetch(w, region, err);
  cJSON_AddNumberToObject(out, "fetch_ms", (cl1_now() - t0) * 1e3); /* latency diagnosis */
  return rc;
}

/* Timing input sets: frees the verification slots, fills slots TIME_SLOT.., captures graphs. */
static int do_time_prep(worker *w, const cJSON *m, cJSON *out, cl1_err *err) {
  const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(m, "seeds");
  int n = cJSON_GetArraySize(seeds);
  if (n < 1 || CL1_WORKER_TIME_SLOT + n > CL1_WORKER_SLOTS)
    return cl1_err_set(err, "time_prep: need 1..%d seeds", CL1_WORKER_SLOTS - CL1_WORKER_TIME_SLOT);
  for (int s = 0; s < CL1_WORKER_TIME_SLOT; s++)
    for (int i = 0; i < w->inst.n_inputs; i++) {
      w->dev.free(&w->dev, w->in_buf[s][i]);
      w->in_buf[s][i] = NULL;
    }
  for (int k = 0; k < n; k++) {
    const cJSON *sv = cJSON_GetArrayItem(seeds, k);
    uint64_t seed = cJSON_IsString(sv) ? strtoull(sv->valuestring, NULL, 10) : 0;
    int s = CL1_WORKER_TIME_SLOT + k;
    if (fill_slot(w, s, seed, CL1_VARIANT_NONE, err)) return -1;
    if (w->use_graph) {
      if (!w->dev.graph_begin) return cl1_err_set(err, "--graph needs the cuda backend");
      bind_slot(w, s);
      if (w->dev.graph_begin(&w->dev, err)) return -1;
      int rc = w->forward(&w->call);
      void *g = NULL;
      int ge = w->dev.graph_end(&w->dev, &g, err);
      if (rc || ge) {
        cJSON_AddNumberToObject(out, "rc", rc ? rc : -1000);
        cJSON_AddStringToObject(out, "graph_error", ge ? err->msg : "cl1_forward failed in capture");
        return 0;
      }
      w->graph[s] = g;
    }
  }
  /* The cost of an empty timed interval, subtracted from wall times: with the hold (the mode
     trials start in) and without it (the mode a call that outlasts the hold is timed in). */
  double hold = w->dev.hold_us;
  for (int mode = 0; mode < 2; mode++) {
    w->dev.hold_us = mode ? 0 : hold;
    double best = 1e30;
    for (int r = 0; r < 15; r++) {
      double ev, wall;
      if (w->dev.begin(&w->dev, err) || w->dev.end(&w->dev, &ev, &wall, err)) return -1;
      if (wall < best) best = wall;
    }
    cJSON_AddNumberToObject(out, mode ? "empty_nohold_ms" : "empty_ms", best);
  }
  w->dev.hold_us = hold;
  cJSON_AddNumberToObject(out, "rc", 0);
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Warm-up calls (with the hold); the median host time of a call tells the judge whether this
 * solution's call fits inside the hold (a call that synchronises, or launches for longer than
 * the hold, does not: it is timed without the hold). */
static int do_warmup(worker *w, const cJSON *m, cJSON *out, cl1_err *err) {
  int min_calls = (int)num(m, "min_calls", 3), n_sets = (int)num(m, "sets", 1);
  if (n_sets < 1 || n_sets > CL1_WORKER_SLOTS - CL1_WORKER_TIME_SLOT)
    return cl1_err_set(err, "warmup: sets %d out of range", n_sets);
  for (int k = 0; k < n_sets; k++)
    if (w->inst.n_inputs > 0 && !w->in_buf[CL1_WORKER_TIME_SLOT + k][0])
      return cl1_err_set(err, "warmup: set %d not prepared", k);
  double min_ms = num(m, "min_ms", 25), t0 = cl1_now();
  int calls = 0;
  double host[64];
  while (calls < min_calls || (cl1_now() - t0) * 1e3 < min_ms) {
    cJSON *tmp = cJSON_CreateObject();
    int r = timed_call(w, CL1_WORKER_TIME_SLOT + calls % n_sets, false, false, tmp, err);
    int rc = (int)num(tmp, "rc", 0);
    host[calls % 64] = num(tmp, "host_ms", 0);
    cJSON_Delete(tmp);
    if (r) return -1;
    if (rc) { cJSON_AddNumberToObject(out, "rc", rc); return 0; }
    calls++;
    if (calls > 100000) break;
  }
  int n = calls < 64 ? calls : 64;
  qsort(host, (size_t)n, sizeof *host, cmp_double);
  cJSON_AddNumberToObject(out, "rc", 0);
  cJSON_AddNumberToObject(out, "calls", calls);
  cJSON_AddNumberToObject(out, "host_med_ms", n ? host[n / 2] : 0);
  return 0;
}

static int do_trial(worker *w, const cJSON *m, cJSON *out, cl1_err *err) {
  int k = (int)num(m, "set", 0), s = CL1_WORKER_TIME_SLOT + k;
  if (s < CL1_WORKER_TIME_SLOT || s >= CL1_WORKER_SLOTS)
    return cl1_err_set(err, "trial: set %d out of range", k);
  if (w->inst.n_inputs > 0 && !w->in_buf[s][0])
    return cl1_err_set(err, "trial: set %d not prepared", k);
  /* fresh values for this trial (the judge sends both sides the same seed) */
  if (cJSON_GetObjectItemCaseSensitive(m, "seed") &&
      fill_slot(w, s, seed_of(m, "seed"), CL1_VARIANT_NONE, err))
    return -1;
  const cJSON *hold = cJSON_GetObjectItemCaseSensitive(m, "hold");
  w->dev.hold_us = cJSON_IsFalse(hold) ? 0 : w->hold_cfg_us;
  /* poison, then flush: the poison's own writes must not sit dirty in L2 during the call */
  if (poison_outputs(w, err)) return -1;
  double f0 = cl1_now();
  if (!w->warm_cache) {
    if (w->dev.flush(&w->dev, err) || w->dev.sync(&w->dev, err)) return -1;
  }
  double flush_ms = (cl1_now() - f0) * 1e3;
  bool empty = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "empty"));
  if (timed_call(w, s, true, empty, out, err)) return -1;
  cJSON_AddNumberToObject(out, "flush_ms", flush_ms);
  /* whether these outputs are compared is the judge's secret until the call has returned: it
     asks with a FETCH of its own, and nothing of the candidate runs in between (class 16) */
  return 0;
}

int cl1_worker_main(void) {
  worker *w = calloc(1, sizeof *w);
  if (!w) return 3;
  signal(SIGPIPE, SIG_IGN);
  cJSON_Hooks hooks = {.malloc_fn = malloc, .free_fn = scrub_free};
  cJSON_InitHooks(&hooks);
  for (;;) {
    uint32_t type;
    char *js;
    cl1_err err = {{0}};
    /* Between timed trials the next request comes within a millisecond or so. */
    if (w->timing) cl1_proto_spin(CL1_WORKER_FD_IN, 20.0);
    int rc = cl1_proto_recv(CL1_WORKER_FD_IN, -1, &type, &js, &err);
    if (rc) return 0; /* the judge went away */
    cJSON *m = cJSON_Parse(js);
    scrub_free(js);
    if (!m) { fail("unparseable request", true); continue; }
    cJSON *out = cJSON_CreateObject();
    int r = 0;
    w->harness_failed = false;
    /* Only a set-up worker (a solution loaded) runs calls: below, every request may assume it. */
    bool ready = w->forward != NULL;
    if (!ready && type != CL1_MSG_SETUP && type != CL1_MSG_LOAD && type != CL1_MSG_PING &&
        type != CL1_MSG_QUIT && type != CL1_MSG_OPEN)
      type = 0, r = cl1_err_set(&err, "request before a successful setup and load");
    switch (type) {
    case 0: break;
    case CL1_MSG_SETUP:
      r = do_setup(w, m, &err);
      if (!r) {
        cJSON_AddStringToObject(out, "device", w->dev.name);
        cJSON_AddStringToObject(out, "driver", w->dev.driver);
        cJSON_AddNumberToObject(out, "l2_bytes", (double)w->dev.l2_bytes);
        cJSON_AddNumberToObject(out, "flush_bytes", (double)w->dev.flush_bytes);
        cJSON_AddStringToObject(out, "cache_source", w->dev.cache_source);
        cJSON_AddNumberToObject(out, "vm_base", (double)w->vm_base);
        cJSON_AddNumberToObject(out, "rss_base", (double)w->rss_base);
        cJSON_AddNumberToObject(out, "as_limit", (double)w->as_limit);
        cJSON_AddNumberToObject(out, "threads_entry", w->threads_entry);
        cJSON *ph = cJSON_AddArrayToObject(out, "setup_ms"); /* proto.h: CL1_SETUP_MARKS */
        for (int i = 0; i < CL1_SETUP_MARKS; i++) cJSON_AddItemToArray(ph, cJSON_CreateNumber(g_setup_ms[i]));
      }
      break;
    case CL1_MSG_OPEN: r = do_open(w, m, &err); break;
    case CL1_MSG_LOAD: r = do_load(w, &err); break;
    case CL1_MSG_PARAMS: r = do_params(w, m, out, &err); break;
    case CL1_MSG_RUN: g_calls_requested++; r = do_run(w, m, out, &err); break;
    case CL1_MSG_TIME_PREP: r = do_time_prep(w, m, out, &err); break;
    case CL1_MSG_WARMUP:
      r = do_warmup(w, m, out, &err);
      w->timing = true;
      break;
    case CL1_MSG_TRIAL: g_calls_requested++; r = do_trial(w, m, out, &err); break;
    case CL1_MSG_FETCH: r = fetch(w, (int)num(m, "region", 0), &err); break;
    case CL1_MSG_PING:
      if (g_fault_after >= 0) g_calls_requested = LONG_MAX; /* later than the loss, see above */
      r = w->dev_open ? w->dev.sync(&w->dev, &err) : cl1_err_set(&err, "no device open");
      break;
    case CL1_MSG_QUIT:
      cJSON_Delete(m);
      reply(CL1_MSG_OK, out);
      drop_state(w);
      return 0;
    default: r = cl1_err_set(&err, "unknown request type %u", type);
    }
    cJSON_Delete(m);
    if (r) {
      cJSON_Delete(out);
      fail(err.msg, w->harness_failed);
      /* A device error is sticky: nothing after it can be trusted, so the worker ends. */
      if (w->dev_open && w->dev.sync(&w->dev, NULL)) return 4;
    } else {
      /* every reply counts the threads alive now (the judge keeps each worker's maximum) */
      if (!cJSON_GetObjectItemCaseSensitive(out, "threads"))
        cJSON_AddNumberToObject(out, "threads", cl1_sandbox_thread_count());
      if (reply(CL1_MSG_OK, out)) return 0;
    }
  }
}
