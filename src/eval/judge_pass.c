/* judge_pass.c — one pass of an evaluation: its two workers started (the reference from the
 * pool when one fits, the candidate from the spares when one is ready), both solutions loaded,
 * verification under a shared hold of the GPU and timing under an exclusive one (gpu_lock.h),
 * and the workers let go. judge.c decides how many passes an evaluation takes and what their
 * figures mean; judge_verify.c and judge_time.c are the phases inside a pass. */
#include <assert.h>
#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "judge_int.h"
#include "compile.h"
#include "gpu_lock.h"
#include "spare.h"
#include "../base/llc.h"
#include "../worker/proto.h"

/* The op library the solutions link, for the workers to preload (worker.c: preload_ops); "" when
 * it cannot be found here (the compile stage then failed already, or the worker loads it with the
 * solution as before). */
static void op_library(const cl1_eval_opts *o, char *out, size_t n) {
  char ops[4096], inc[4096];
  cl1_compile_opts co = {.backend = o->backend};
  cl1_err e = {{0}};
  out[0] = 0;
  if (cl1_compile_find_dirs(&co, NULL, ops, sizeof ops, inc, sizeof inc, &e)) return;
  snprintf(out, n, "%s/libcl1ops_%s.so", ops, cl1_backend_name(o->backend));
  if (access(out, R_OK)) out[0] = 0;
}

/* What worker k preloads before its sandbox: a Python side its runtime (libcl1py: the
 * interpreter and torch), else the op library. */
static const char *preload_of(const cl1_pass *p, int k, const char *ops_lib) {
  return (k ? p->cand_py : p->ref_py) ? (k ? p->cand_so : p->ref_so) : ops_lib;
}

/* The SETUP request of worker k (0 the reference, 1 the candidate); tmpdir NULL leaves the
 * folder out (the reference pool's key). */
static cJSON *setup_request(const cl1_pass *p, int k, size_t mem, const char *ops_lib,
                            const char *tmpdir) {
  const cl1_eval_opts *o = p->o;
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "role", k ? "cand" : "ref");
  cJSON_AddStringToObject(m, "backend", cl1_backend_name(o->backend));
  cJSON_AddStringToObject(m, "task", p->task->path);
  cJSON_AddStringToObject(m, "shapes", cl1_shapes_name(p->inst->set));
  cJSON_AddStringToObject(m, "so", k ? p->cand_so : p->ref_so);
  char *py = cl1_judge_py_spec(p, k);
  if (py) cJSON_AddStringToObject(m, "py", py);
  free(py);
  cJSON_AddNumberToObject(m, "regions", k ? 2 : 1);
  if (tmpdir) cJSON_AddStringToObject(m, "tmpdir", tmpdir);
  cJSON_AddBoolToObject(m, "sandbox", !o->no_sandbox);
  cJSON_AddNumberToObject(m, "mem_allowance", (double)mem);
  cJSON_AddNumberToObject(m, "cpu_s", 600);
  cJSON_AddNumberToObject(m, "fsize", 16 << 20);
  cJSON_AddBoolToObject(m, "warm_cache", o->warm_cache);
  cJSON_AddNumberToObject(m, "hold_us", o->hold_us);
  cJSON_AddBoolToObject(m, "graph", o->graph);
  const char *pre = preload_of(p, k, ops_lib);
  if (pre[0]) cJSON_AddStringToObject(m, "preload", pre);
  return m;
}

/* The reference pool's key: the worker program, its GPU, its region and its SETUP request. */
static char *ref_key(const cl1_pass *p, const char *exe, const char *gpu, size_t mem,
                     const char *ops_lib) {
  cJSON *m = setup_request(p, 0, mem, ops_lib, NULL);
  char *setup = cJSON_PrintUnformatted(m);
  cJSON_Delete(m);
  char *key = NULL;
  if (setup && asprintf(&key, "%s\n%s\n%zu\n%s", exe, gpu ? gpu : "", p->region_bytes, setup) < 0)
    key = NULL;
  free(setup);
  return key;
}

/* What the reference's SETUP reply says of the machine, into the result and the pass. */
static void ref_setup_info(cl1_pass *p, cl1_eval_result *r, const cJSON *rr) {
  cl1_refpool_info *i = &p->ref_info;
  const cJSON *dn = cJSON_GetObjectItemCaseSensitive(rr, "device");
  const cJSON *dv = cJSON_GetObjectItemCaseSensitive(rr, "driver");
  const cJSON *cs_src = cJSON_GetObjectItemCaseSensitive(rr, "cache_source");
  snprintf(i->device, sizeof i->device, "%s", cJSON_IsString(dn) ? dn->valuestring : "");
  snprintf(i->driver, sizeof i->driver, "%s", cJSON_IsString(dv) ? dv->valuestring : "");
  snprintf(i->cache_source, sizeof i->cache_source, "%s",
           cJSON_IsString(cs_src) ? cs_src->valuestring : "");
  i->threads_entry = (int)cl1_judge_num(rr, "threads_entry", 0);
  i->l2_bytes = cl1_judge_num(rr, "l2_bytes", 0);
  i->flush_bytes = cl1_judge_num(rr, "flush_bytes", 0);
  (void)r;
}

static void ref_info_apply(cl1_pass *p, cl1_eval_result *r) {
  const cl1_refpool_info *i = &p->ref_info;
  if (i->device[0]) snprintf(r->device, sizeof r->device, "%s", i->device);
  if (i->driver[0]) snprintf(r->driver, sizeof r->driver, "%s", i->driver);
  if (i->cache_source[0]) snprintf(r->cache_source, sizeof r->cache_source, "%s", i->cache_source);
  p->ref_threads_entry = i->threads_entry;
  r->cache_bytes = i->l2_bytes;
  r->flush_bytes = i->flush_bytes;
}

/* A worker for this pass: a spare started ahead when one is ready (spare.h: a long-lived judge
 * turns them on with cl1_spare_set_max; no task and no solution code has run in one, so it is as
 * fresh as a spawn), else spawned now. *from says which, for the result's "workers"; the wait
 * for a spare counts in r->t_spare_wait. */
static int spawn_worker(const cl1_pass *p, cl1_eval_result *r, cl1_wproc *w, const char *exe,
                        size_t shm_bytes, const char *tag, const char *gpu, const char *ops_lib,
                        const char **from, cl1_err *err) {
  cl1_spare_kind k = {.exe = exe, .gpu = gpu, .backend = cl1_backend_name(p->o->backend),
                      .preload = ops_lib};
  double waited = 0;
  bool spare = cl1_spare_take(&k, w, &waited);
  r->t_spare_wait += waited;
  *from = spare ? "spare" : "spawned";
  if (!spare) return cl1_wproc_spawn(w, exe, shm_bytes, tag, gpu, err);
  snprintf(w->tag, sizeof w->tag, "%s", tag);
  if (!cl1_wproc_size(w, shm_bytes, err)) return 0;
  cl1_wproc_kill(w);
  return -1;
}

static const char *visible_gpu(const cl1_eval_opts *o) {
  return o->gpu && o->gpu->visible[0] ? o->gpu->visible : NULL;
}

void cl1_eval_spares_prime(const cl1_eval_opts *o) {
  char exe[4096], ops_lib[4200];
  cl1_err err = {{0}};
  if (cl1_worker_exe(exe, sizeof exe, &err)) return;  /* the first evaluation reports it */
  op_library(o, ops_lib, sizeof ops_lib);
  cl1_spare_want(&(cl1_spare_kind){.exe = exe, .gpu = visible_gpu(o),
                                    .backend = cl1_backend_name(o->backend), .preload = ops_lib});
}

/* Where the candidate's SETUP went (the first pass's): the judge's wait for its reply and the
 * worker's own cumulative clock (worker.c, "setup_ms"), for bench/serve.py's phase means. */
_Static_assert(sizeof ((cl1_eval_result *)0)->cand_setup_ms == CL1_SETUP_MARKS * sizeof(double),
               "cand_setup_ms holds one figure per SETUP mark");
static void setup_times(cl1_eval_result *r, const cJSON *reply, double waited_s) {
  r->t_cand_setup = waited_s;
  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(reply, "setup_ms");
  for (int i = 0; i < CL1_SETUP_MARKS && i < cJSON_GetArraySize(ms); i++) {
    const cJSON *x = cJSON_GetArrayItem(ms, i);
    if (cJSON_IsNumber(x)) r->cand_setup_ms[i] = x->valuedouble;
  }
}

static int start_workers(cl1_pass *p, cl1_eval_result *r, cl1_err *err) {
  char exe[4096];
  if (cl1_worker_exe(exe, sizeof exe, err)) return -1;
  p->region_bytes = cl1_worker_layout(p->inst, p->offs);
  assert(p->region_bytes > 0);
  /* one region each way for the reference: verification outputs, then (verification done) the
     outputs of the timed trial before a re-verified candidate trial. Every region is pinned
     memory, which costs ~0.45 ms per MB to set up. */
  const char *gpu = visible_gpu(p->o);
  char ops_lib[4200];
  op_library(p->o, ops_lib, sizeof ops_lib);
  const cl1_eval_opts *o = p->o;
  size_t data = p->inst->in_bytes * CL1_WORKER_SLOTS + p->inst->par_bytes + p->inst->out_bytes;
  size_t mem = o->mem_limit ? o->mem_limit : cl1_eval_mem_allowance(o->backend, data);
  /* re-measurements of a suspicious result start a fresh reference too: a speedup that only a
     long-lived reference's process shows must not stand */
  if (o->reuse_ref && !p->verify_only_light && (p->ref_key = ref_key(p, exe, gpu, mem, ops_lib)))
    p->ref_reused = cl1_refpool_take(p->ref_key, &p->ref, &p->ref_info);
  const char *ref_from = "pooled", *cand_from = "";
  if (!p->ref_reused) {
    if (spawn_worker(p, r, &p->ref, exe, p->region_bytes, "ref", gpu, preload_of(p, 0, ops_lib),
                     &ref_from, err))
      return -1;
    if (o->reuse_ref) cl1_refpool_count_start();
  }
  if (spawn_worker(p, r, &p->cand, exe, p->region_bytes * 2, "cand", gpu,
                   preload_of(p, 1, ops_lib), &cand_from, err))
    return -1;
  if (!r->ref_from[0]) {  /* the first pass's, as cand_setup_ms */
    snprintf(r->ref_from, sizeof r->ref_from, "%s", ref_from);
    snprintf(r->cand_from, sizeof r->cand_from, "%s", cand_from);
  }
  /* until the worker says what it holds at the sandbox's entry: room for any harness (a CUDA
     context, the largest flush buffer) on top of the allowance */
  p->cand.rss_limit = mem + p->region_bytes * 2 + CL1_LLC_FLUSH_MAX + ((size_t)1 << 30);
  double t_sent = cl1_now();
  for (int k = p->ref_reused ? 1 : 0; k < 2; k++) {
    cl1_wproc *w = k ? &p->cand : &p->ref;
    cJSON *m = setup_request(p, k, mem, ops_lib, w->tmpdir);
    cl1_wproc_send(w, CL1_MSG_SETUP, m);
    cJSON_Delete(m);
  }
  cJSON *rr = NULL, *cr = NULL;
  if (!p->ref_reused) {
    cl1_wstatus rs = cl1_wproc_wait(&p->ref, o->setup_timeout_s, &rr);
    if (rs != CL1_W_OK) {
      /* No GPU, missing driver: the reference cannot start either; not the candidate's fault. */
      cl1_judge_ref_failure(p, r, "setup");
      return 1;
    }
    ref_setup_info(p, r, rr);
    cJSON_Delete(rr);
  }
  ref_info_apply(p, r);
  cl1_wstatus cs = cl1_wproc_wait(&p->cand, o->setup_timeout_s, &cr);
  if (cs == CL1_W_OK && r->t_cand_setup == 0) setup_times(r, cr, cl1_now() - t_sent);
  if (cs != CL1_W_OK) {
    /* no solution code runs in SETUP (worker.c: LOAD maps it): its failure is the machine's */
    cl1_judge_verdict(r, "infra_error", "the harness could not set up the candidate's worker "
                      "(not the candidate's fault): %s", p->cand.msg);
    return 1;
  }
  /* the RSS ceiling from what the harness itself holds (the flush buffer is touched later) */
  r->cand_vm_base = cl1_judge_num(cr, "vm_base", 0);
  r->cand_as_limit = cl1_judge_num(cr, "as_limit", 0);
  double rss_base = cl1_judge_num(cr, "rss_base", 0), flush = cl1_judge_num(cr, "flush_bytes", 0);
  if (rss_base > 0)
    p->cand.rss_limit = (size_t)rss_base + (size_t)flush + mem + p->region_bytes * 2;
  r->cand_rss_limit = (double)p->cand.rss_limit;
  p->cand_threads_entry = (int)cl1_judge_num(cr, "threads_entry", 0);
  cJSON_Delete(cr);
  return 0;
}

/* Maps both solutions (LOAD): from here on the candidate's code runs, so a shared GPU is held. */
static int load_both(cl1_pass *p, cl1_eval_result *r) {
  double timeout = p->o->setup_timeout_s;
  if (!p->ref_reused) cl1_wproc_send(&p->ref, CL1_MSG_LOAD, NULL);  /* a pooled one has it */
  cl1_wproc_send(&p->cand, CL1_MSG_LOAD, NULL);
  cJSON *rr = NULL, *cr = NULL;
  cl1_wstatus rs = p->ref_reused ? CL1_W_OK : cl1_wproc_wait(&p->ref, timeout, &rr);
  cJSON_Delete(rr);
  if (rs != CL1_W_OK) {
    cl1_judge_ref_failure(p, r, "loading the reference");
    return 1;
  }
  cl1_wstatus cs = cl1_wproc_wait(&p->cand, timeout, &cr);
  cJSON_Delete(cr);
  if (cs == CL1_W_OK) return 0;
  if (cs == CL1_W_FAILED && strstr(p->cand.msg, "does not export cl1_forward")) {
    cl1_judge_verdict(r, "rejected:abi", "%s", p->cand.msg);
    return 1;
  }
  /* the solution passed the gate, so it fits the budget, and not mapping it is the machine's
     problem (issue 17) */
  if (cs == CL1_W_FAILED && p->cand.harness_failed) {
    cl1_judge_verdict(r, "infra_error", "the harness could not set up the candidate's worker "
                      "(not the candidate's fault): %s", p->cand.msg);
    return 1;
  }
  return cl1_judge_cand_failure(p, r, cs, "loading the candidate");
}

/* A shared GPU taken for a phase (the wait counted in t_gpu_wait), and given back: the
 * candidate's process is stopped first, so none of its threads launches work on a GPU its
 * evaluation no longer holds. */
static void gpu_take(cl1_pass *p, cl1_eval_result *r, cl1_gpu_mode m) {
  if (!p->o->gpu) return;
  double t0 = cl1_now();
  cl1_gpu_lock_take(p->o->gpu, m);
  r->t_gpu_wait += cl1_now() - t0;
}

static void gpu_give(cl1_pass *p, cl1_gpu_mode m) {
  if (!p->o->gpu) return;
  cl1_wproc_pause(&p->cand);
  cl1_gpu_lock_give(p->o->gpu, m);
}

bool cl1_judge_switch_on(const char *env, _Atomic int *memo) {
  if (*memo < 0) {  /* lanes that race here store the same value */
    const char *e = getenv(env);
    *memo = !(e && !strcmp(e, "0"));
  }
  return *memo;
}

/* CUDAL1_GPU_YIELD=0 turns the yield off (cl1_judge_switch_on). */
void cl1_judge_gpu_yield(cl1_pass *p, cl1_eval_result *r) {
  static _Atomic int yield_on = -1;
  if (!p->o->gpu || !cl1_judge_switch_on("CUDAL1_GPU_YIELD", &yield_on) ||
      !cl1_gpu_lock_timing_waits(p->o->gpu))
    return;
  gpu_give(p, CL1_GPU_SHARED);
  gpu_take(p, r, CL1_GPU_SHARED);
}

static void close_pass(cl1_pass *p) {
  if (p->ref_key) {  /* the reference back to the pool (or let go, when not fit for reuse) */
    if (p->o->gpu) {
      cl1_wproc_release(&p->cand, true);
    } else {
      cl1_wproc_quit(&p->cand);
      cl1_wproc_close(&p->cand);
    }
    cl1_refpool_put(p->ref_key, &p->ref, &p->ref_info);
    free(p->ref_key);
    p->ref_key = NULL;
    return;
  }
  if (p->o->gpu) {  /* the candidate killed (see cl1_wproc_kill); neither exit waited for */
    cl1_wproc_release(&p->cand, true);
    cl1_wproc_release(&p->ref, false);
    return;
  }
  cl1_wproc_quit(&p->cand);
  cl1_wproc_quit(&p->ref);
  cl1_wproc_close(&p->cand);
  cl1_wproc_close(&p->ref);
}

int cl1_judge_pass_run(cl1_pass *p, cl1_eval_result *r, cl1_err *err) {
  assert(p->o && p->task && p->inst && p->ref_so && p->cand_so);
  double t0 = cl1_now();
  int rc = start_workers(p, r, err);
  double dt = cl1_now() - t0;
  r->t_start_setup += dt, r->t_start += dt;
  if (rc) { close_pass(p); return rc; }
  gpu_take(p, r, CL1_GPU_SHARED);
  t0 = cl1_now();
  rc = load_both(p, r);
  dt = cl1_now() - t0;
  r->t_start_load += dt, r->t_start += dt;
  if (!rc) {
    t0 = cl1_now();
    double waited = r->t_gpu_wait;
    rc = cl1_judge_verify(p, r);
    r->t_verify += cl1_now() - t0 - (r->t_gpu_wait - waited);  /* less its yields */
  }
  gpu_give(p, CL1_GPU_SHARED);
  if (!rc) {
    gpu_take(p, r, CL1_GPU_EXCLUSIVE);
    t0 = cl1_now();
    rc = cl1_judge_timing(p, r);
    r->t_time += cl1_now() - t0;
    gpu_give(p, CL1_GPU_EXCLUSIVE);
  }
  close_pass(p);
  return rc;
}
