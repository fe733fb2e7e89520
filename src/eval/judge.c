/* judge.c — the trusted process of an evaluation (see eval.h): schedules verification and
 * timing across the reference and candidate workers, compares outputs in shared memory, computes
 * statistics, re-measures suspicious results in fresh processes and reaches the verdict. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "eval.h"
#include "compile.h"
#include "gate.h"
#include "judge_proc.h"
#include "peaks.h"
#include "proto.h"
#include "reward.h"
#include "verify.h"
#include "worker.h"
#include "../base/hash.h"
#include "../task/task.h"

#define MAX_TIME_SETS (CL1_WORKER_SLOTS - CL1_WORKER_TIME_SLOT)
/* Input sets rotated while timing unless --time-sets says otherwise. Measured on the H200
   (5 fresh-process evaluations of one matmul candidate each): 2 sets 0.7% spread of the
   speedup, 4 sets 8% — more sets at more addresses did not average a per-process bias away. */
#define DEFAULT_TIME_SETS 2
#define MAX_SAMPLES 4096

void cl1_eval_opts_default(cl1_eval_opts *o) {
  memset(o, 0, sizeof *o);
  o->backend = CL1_BACKEND_CUDA;
  o->shapes = CL1_SHAPES_SMALL;
  o->param_seeds = 2;
  o->input_sets = 3;
  o->min_trials = 30;
  /* 500 pairs pin a paired ratio to ~1% unless the kernel jitters by tens of percent, and a
     noisy 40 us kernel ran 1000 pairs (0.7 s) without reaching the 1% target */
  o->max_trials = 500;
  o->time_budget_s = 2.0;
  o->ci_target = 0.01;
  o->call_timeout_s = 10.0;
  o->setup_timeout_s = 120.0;
  o->suspicious_speedup = 3.0;
  o->remeasure = 2;
  cl1_reward_cfg_default(&o->reward);
  o->hold_us = 100;
}

/* What one pass over (verify, time) needs and produces. */
typedef struct {
  const cl1_eval_opts *o;
  const cl1_task *task;
  const cl1_inst *inst;
  const char *ref_so, *cand_so;
  bool verify_only_light;   /* re-measurements: one params set, one input set */
  uint64_t rng_state;
  cl1_wproc ref, cand;
  size_t region_bytes, offs[CL1_TASK_MAX_TENSORS];
  double cand_ms[MAX_SAMPLES], ref_ms[MAX_SAMPLES], cand_ev[MAX_SAMPLES], ref_ev[MAX_SAMPLES];
  double cand_rt[MAX_SAMPLES], ref_rt[MAX_SAMPLES];
  double cand_host[MAX_SAMPLES], ref_host[MAX_SAMPLES];  /* host time inside the call */
  double ref_flush[MAX_SAMPLES];  /* the reference's reported flush times */
  double ratio[MAX_SAMPLES];  /* paired reference / candidate ratios */
  int n_cand, n_ref, n_rt;
  int thread_growth;
  bool hold;                /* timed calls start behind the hold (both sides, or neither) */
} pass;

static uint64_t next_seed(pass *p) {
  /* splitmix64 over a secret starting state: the candidate sees each seed only when it is used */
  uint64_t z = (p->rng_state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static void add_seed(cJSON *o, const char *k, uint64_t s) {
  char b[32];
  snprintf(b, sizeof b, "%llu", (unsigned long long)s);
  cJSON_AddStringToObject(o, k, b);
}

static void set_verdict(cl1_eval_result *r, const char *v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_verdict(cl1_eval_result *r, const char *v, const char *fmt, ...) {
  snprintf(r->verdict, sizeof r->verdict, "%s", v);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->message, sizeof r->message, fmt, ap);
  va_end(ap);
}

static void reject(cl1_eval_result *r, const cl1_gate_verdict *gv) {
  char v[80] = "rejected:";
  cl1_strcpy(v + 9, sizeof v - 9, gv->rule);
  cl1_strcpy(r->verdict, sizeof r->verdict, v);
  cl1_strcpy(r->message, sizeof r->message, gv->why);
}

static void add_flag(cl1_eval_result *r, const char *f) {
  for (int i = 0; i < r->n_flags; i++)
    if (!strcmp(r->flags[i], f)) return;
  if (r->n_flags < CL1_EVAL_MAX_FLAGS) snprintf(r->flags[r->n_flags++], 32, "%s", f);
}

static double jnum(const cJSON *o, const char *k, double d) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(v) ? v->valuedouble : d;
}

/* Turns a failed candidate request into a verdict. Returns 1 (verdict set). */
static int cand_failure(pass *p, cl1_eval_result *r, cl1_wstatus st, const char *during) {
  cl1_wproc_log_tail(&p->cand, r->cand_log, sizeof r->cand_log);
  switch (st) {
  case CL1_W_TIMEOUT:
    set_verdict(r, "timeout", "%s: %s", during, p->cand.msg);
    break;
  case CL1_W_MEMORY:
    set_verdict(r, "crash", "%s: %s", during, p->cand.msg);
    break;
  case CL1_W_PROTOCOL:
    set_verdict(r, "crash", "%s: protocol violation by the candidate process: %s", during,
                p->cand.msg);
    break;
  default:
    set_verdict(r, "crash", "%s: %s", during, p->cand.msg);
  }
  return 1;
}

static int ref_failure(pass *p, cl1_eval_result *r, const char *during) {
  char tail[512];
  cl1_wproc_log_tail(&p->ref, tail, sizeof tail);
  set_verdict(r, "infra_error", "the reference failed during %s: %s%s%s", during, p->ref.msg,
              tail[0] ? " | log: " : "", tail);
  return 1;
}

/* Sends the same request to both workers (candidate first), waits for both. Returns 0 when
 * both replied OK, 1 when a verdict was set. Replies go to *rr / *cr (caller frees). */
static int both(pass *p, cl1_eval_result *r, int type, cJSON *req, double timeout,
                const char *during, cJSON **rr, cJSON **cr) {
  *rr = *cr = NULL;
  cl1_wstatus cs = cl1_wproc_send(&p->cand, type, req);
  cl1_wstatus rs = cl1_wproc_send(&p->ref, type, req);
  if (cs == CL1_W_OK) cs = cl1_wproc_wait(&p->cand, timeout, cr);
  if (rs == CL1_W_OK) rs = cl1_wproc_wait(&p->ref, timeout, rr);
  if (cs != CL1_W_OK) {
    cJSON_Delete(*rr);
    *rr = NULL;
    return cand_failure(p, r, cs, during);
  }
  if (rs != CL1_W_OK) {
    cJSON_Delete(*cr);
    *cr = NULL;
    return ref_failure(p, r, during);
  }
  return 0;
}

static int start_workers(pass *p, cl1_eval_result *r, cl1_err *err) {
  char exe[4096];
  if (cl1_worker_exe(exe, sizeof exe, err)) return -1;
  p->region_bytes = cl1_worker_layout(p->inst, p->offs);
  /* one region each way for the reference: verification outputs, then (verification done) the
     outputs of the timed trial before a re-verified candidate trial. Every region is pinned
     memory, which costs ~0.45 ms per MB to set up. */
  if (cl1_wproc_spawn(&p->ref, exe, p->region_bytes, "ref", err) ||
      cl1_wproc_spawn(&p->cand, exe, p->region_bytes * 2, "cand", err))
    return -1;
  const cl1_eval_opts *o = p->o;
  size_t data = p->inst->in_bytes * CL1_WORKER_SLOTS + p->inst->par_bytes + p->inst->out_bytes;
  size_t mem = o->mem_limit ? o->mem_limit
                            : (o->backend == CL1_BACKEND_HOST ? data * 2 + ((size_t)768 << 20)
                                                              : data * 3 + ((size_t)8 << 30));
  p->cand.rss_limit = mem + p->region_bytes * 2;
  for (int k = 0; k < 2; k++) {
    cl1_wproc *w = k ? &p->cand : &p->ref;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", k ? "cand" : "ref");
    cJSON_AddStringToObject(m, "backend", cl1_backend_name(o->backend));
    cJSON_AddStringToObject(m, "task", p->task->path);
    cJSON_AddStringToObject(m, "shapes", cl1_shapes_name(p->inst->set));
    cJSON_AddStringToObject(m, "so", k ? p->cand_so : p->ref_so);
    cJSON_AddNumberToObject(m, "regions", k ? 2 : 1);
    cJSON_AddStringToObject(m, "tmpdir", w->tmpdir);
    cJSON_AddBoolToObject(m, "sandbox", !o->no_sandbox);
    cJSON_AddNumberToObject(m, "mem_limit", (double)mem);
    cJSON_AddNumberToObject(m, "cpu_s", 600);
    cJSON_AddNumberToObject(m, "fsize", 16 << 20);
    cJSON_AddBoolToObject(m, "warm_cache", o->warm_cache);
    cJSON_AddNumberToObject(m, "hold_us", o->hold_us);
    cJSON_AddBoolToObject(m, "graph", o->graph);
    cl1_wproc_send(w, CL1_MSG_SETUP, m);
    cJSON_Delete(m);
  }
  cJSON *rr = NULL, *cr = NULL;
  cl1_wstatus rs = cl1_wproc_wait(&p->ref, o->setup_timeout_s, &rr);
  if (rs != CL1_W_OK) {
    /* No GPU, missing driver: the reference cannot start either; not the candidate's fault. */
    ref_failure(p, r, "setup");
    return 1;
  }
  const cJSON *dn = cJSON_GetObjectItemCaseSensitive(rr, "device");
  const cJSON *dv = cJSON_GetObjectItemCaseSensitive(rr, "driver");
  if (cJSON_IsString(dn)) snprintf(r->device, sizeof r->device, "%s", dn->valuestring);
  if (cJSON_IsString(dv)) snprintf(r->driver, sizeof r->driver, "%s", dv->valuestring);
  cJSON_Delete(rr);
  cl1_wstatus cs = cl1_wproc_wait(&p->cand, o->setup_timeout_s, &cr);
  if (cs != CL1_W_OK) {
    if (cs == CL1_W_FAILED && strstr(p->cand.msg, "does not export cl1_forward")) {
      set_verdict(r, "rejected:abi", "%s", p->cand.msg);
      return 1;
    }
    return cand_failure(p, r, cs, "loading the candidate");
  }
  p->thread_growth = -(int)jnum(cr, "threads", 0);
  cJSON_Delete(cr);
  return 0;
}

/* Compares the candidate's outputs in its region cregion with the reference's at ref_base;
 * keep > 1: only a secret 1 in keep of the 4096-element blocks (re-verification of timed
 * calls; the verification checks compare everything). */
static int compare(pass *p, cl1_eval_result *r, int cregion, const unsigned char *ref_base,
                   const char *what, int keep) {
  cl1_cmp c;
  cl1_cmp_init(&c);
  const cl1_inst *in = p->inst;
  double t0 = cl1_now();
  for (int i = 0; i < in->n_outputs; i++) {
    cl1_cmp one;
    cl1_cmp_init(&one);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int k = in->outputs[i].numel >= (1 << 20) ? keep : 1;  // small outputs: always in full
    cl1_cmp_add_sampled(&one, in->outputs[i].dtype, p->cand.shm + (size_t)cregion *
                        p->region_bytes + p->offs[i], ref_base + p->offs[i],
                        in->outputs[i].numel, in->atol, in->rtol, ncpu > 1 ? (int)ncpu : 1,
                        k > 1 ? next_seed(p) : 0, k);
    if (one.max_abs > r->max_abs) r->max_abs = one.max_abs;
    if (one.max_rel > r->max_rel) r->max_rel = one.max_rel;
    if (one.n_bad) {
      char d[512];
      cl1_cmp_describe(&one, d, sizeof d);
      set_verdict(r, "incorrect", "%s: output '%s': %s", what, in->outputs[i].name, d);
      return 1;
    }
    c.n += one.n;
  }
  if (cl1_trace_on()) fprintf(stderr, "trace %.6f judge compare %.3f ms (%s)\n", cl1_now(),
                                      (cl1_now() - t0) * 1e3, what);
  r->checks++;
  return 0;
}

static int check_call(pass *p, cl1_eval_result *r, const cJSON *cr, const char *what) {
  int rc = (int)jnum(cr, "rc", 0);
  if (rc) {
    set_verdict(r, "crash", "%s: cl1_forward returned %d", what, rc);
    cl1_wproc_log_tail(&p->cand, r->cand_log, sizeof r->cand_log);
    return 1;
  }
  const cJSON *mut = cJSON_GetObjectItemCaseSensitive(cr, "mutated");
  if (cJSON_GetArraySize(mut) > 0) {
    set_verdict(r, "hack:mutates_inputs", "%s: the candidate wrote to '%s', which it must only "
                "read", what, cJSON_GetArrayItem(mut, 0)->valuestring);
    return 1;
  }
  int grow = (int)jnum(cr, "threads", 0) - (int)jnum(cr, "threads_before", 0);
  if (grow > p->thread_growth) p->thread_growth = grow;
  return 0;
}

/* Verification: param seeds x input sets, candidate first; slot reuse with new values; a repeat
 * of the first inputs at a new address must give the same outputs. */
/* The first 256 KiB of each output: enough to tell outputs that ignore their inputs (they are
 * the same everywhere), cheap on outputs of hundreds of MB. */
#define CL1_SIG_BYTES ((size_t)256 << 10)

static uint64_t output_prefix_sum(const pass *p, const unsigned char *base) {
  uint64_t h = 0;
  for (int i = 0; i < p->inst->n_outputs; i++) {
    size_t n = p->inst->outputs[i].bytes < CL1_SIG_BYTES ? p->inst->outputs[i].bytes : CL1_SIG_BYTES;
    h = h * 0x9E3779B97F4A7C15ULL ^ cl1_checksum_host(base + p->offs[i], n);
  }
  return h;
}

/* 0 when the two regions' outputs are byte-identical over their first CL1_SIG_BYTES. */
static int memcmp_outputs(const pass *p, const unsigned char *a, const unsigned char *b) {
  for (int i = 0; i < p->inst->n_outputs; i++) {
    size_t n = p->inst->outputs[i].bytes < CL1_SIG_BYTES ? p->inst->outputs[i].bytes : CL1_SIG_BYTES;
    if (memcmp(a + p->offs[i], b + p->offs[i], n)) return 1;
  }
  return 0;
}

static int verify(pass *p, cl1_eval_result *r) {
  const cl1_eval_opts *o = p->o;
  int n_par = p->verify_only_light ? 1 : o->param_seeds, n_in = p->verify_only_light ? 1 : o->input_sets;
  for (int ps = 0; ps < n_par; ps++) {
    cJSON *m = cJSON_CreateObject(), *rr, *cr;
    add_seed(m, "seed", next_seed(p));
    int v = both(p, r, CL1_MSG_PARAMS, m, o->setup_timeout_s, "cl1_setup", &rr, &cr);
    cJSON_Delete(m);
    if (v) return 1;
    int crc = (int)jnum(cr, "rc", 0);
    cJSON_Delete(rr);
    cJSON_Delete(cr);
    if (crc) { set_verdict(r, "crash", "cl1_setup returned %d", crc); return 1; }
    uint64_t first = 0, ref_sig = 0;
    for (int j = 0; j <= n_in; j++) {
      /* j == 1 repeats j == 0's inputs at a fresh address (determinism); slot 0 is reused with
         new values later (caches keyed by address must miss). */
      bool repeat = j == 1;
      uint64_t seed = repeat ? first : next_seed(p);
      if (j == 0) first = seed;
      int slot = j == 0 ? 0 : j == 1 ? 2 : (j % 2 ? 1 : 0);
      char what[160];
      snprintf(what, sizeof what, "check %d (params set %d, input set %d%s)", r->checks + 1,
               ps + 1, j == 0 ? 1 : j, repeat ? ", repeated at a new address"
               : (slot == 0 && j > 0) ? ", new values at a used address" : "");
      cJSON *q = cJSON_CreateObject();
      add_seed(q, "seed", seed);
      cJSON_AddNumberToObject(q, "slot", slot);
      cJSON_AddNumberToObject(q, "region", j == 0 ? 0 : 1);
      cJSON *cr2 = NULL, *rr2 = NULL;
      cl1_wstatus cs = cl1_wproc_call(&p->cand, CL1_MSG_RUN, q, o->call_timeout_s, &cr2);
      if (cs != CL1_W_OK) { cJSON_Delete(q); return cand_failure(p, r, cs, what); }
      int bad = check_call(p, r, cr2, what);
      cJSON_Delete(cr2);
      if (bad) { cJSON_Delete(q); return 1; }
      if (!repeat) { /* the reference's outputs for the same inputs, after the candidate's */
        cJSON_ReplaceItemInObject(q, "region", cJSON_CreateNumber(0));
        cl1_wstatus rs = cl1_wproc_call(&p->ref, CL1_MSG_RUN, q, o->setup_timeout_s, &rr2);
        cJSON_Delete(q);
        if (rs != CL1_W_OK) return ref_failure(p, r, what);
        int rrc = (int)jnum(rr2, "rc", 0);
        cJSON_Delete(rr2);
        if (rrc) { set_verdict(r, "infra_error", "the reference returned %d", rrc); return 1; }
      } else {
        cJSON_Delete(q);
      }
      /* The repeat at a new address and the new values at a used address look for outputs a
         candidate did not compute afresh (a cache keyed by address or by nothing, state across
         calls): such outputs are wrong wholesale, so a secret eighth of their blocks tells.
         Correctness itself is checked in full on the other input sets. */
      bool hack_probe = repeat || (slot == 0 && j > 0);
      if (compare(p, r, j == 0 ? 0 : 1, p->ref.shm, what, hack_probe ? 8 : 1)) return 1;
      /* class 9: the candidate's outputs for input sets 1 and 2 (regions 0 and 1) against the
         reference's (hashed, its one region is overwritten) */
      if (ps == 0 && j == 0) ref_sig = output_prefix_sum(p, p->ref.shm);
      if (ps == 0 && j == 2 && output_prefix_sum(p, p->ref.shm) != ref_sig &&
          !memcmp_outputs(p, p->cand.shm, p->cand.shm + p->region_bytes))
        add_flag(r, "input_insensitive");
      if (p->verify_only_light && j == 0) break;
    }
  }
  return 0;
}

static int trial(pass *p, cl1_eval_result *r, bool cand, int set, uint64_t seed, bool fetch,
                 int region, double timeout) {
  cl1_wproc *w = cand ? &p->cand : &p->ref;
  cJSON *q = cJSON_CreateObject(), *rep = NULL;
  cJSON_AddNumberToObject(q, "set", set);
  add_seed(q, "seed", seed);
  cJSON_AddBoolToObject(q, "hold", p->hold);
  cJSON_AddBoolToObject(q, "fetch", fetch);
  cJSON_AddNumberToObject(q, "region", region);
  double t0 = cl1_now();
  cl1_wstatus st = cl1_wproc_call(w, CL1_MSG_TRIAL, q, timeout, &rep);
  double rt = (cl1_now() - t0) * 1e3;
  cJSON_Delete(q);
  if (st != CL1_W_OK) return cand ? cand_failure(p, r, st, "a timed call") : ref_failure(p, r, "timing");
  if (cand && check_call(p, r, rep, "a timed call")) { cJSON_Delete(rep); return 1; }
  double ev = jnum(rep, "ev_ms", 0), wall = jnum(rep, "wall_ms", 0), flush = jnum(rep, "flush_ms", 0);
  double host = jnum(rep, "host_ms", 0);
  int rc = (int)jnum(rep, "rc", 0);
  cJSON_Delete(rep);
  if (!cand && rc) { set_verdict(r, "infra_error", "the reference returned %d", rc); return 1; }
  double *ms = cand ? p->cand_ms : p->ref_ms, *evs = cand ? p->cand_ev : p->ref_ev;
  int *n = cand ? &p->n_cand : &p->n_ref;
  if (*n < MAX_SAMPLES) {
    evs[*n] = ev;
    ms[*n] = wall; /* the empty-call cost is subtracted when the pass ends */
    (cand ? p->cand_host : p->ref_host)[*n] = host;
    /* the GPU flush is the harness's own, the same on both sides: the reference's figure
       stands for both when the judge's clock is checked (a candidate could report its flush
       longer); on the host each side's own (a CPU flush varies with the machine's load) */
    if (!cand) p->ref_flush[*n] = flush;
    bool own_flush = p->o->backend != CL1_BACKEND_CUDA; /* a CPU flush varies with the load */
    if (!fetch) (cand ? p->cand_rt : p->ref_rt)[*n] = rt - wall - (own_flush ? flush : 0);
    else (cand ? p->cand_rt : p->ref_rt)[*n] = NAN;
    (*n)++;
  }
  return 0;
}

static double empty_of(cJSON *rep) { return jnum(rep, "empty_ms", 0); }

/* p->ratio[i] = ref[i] / cand[i] for trial pair i (ABAB: the two calls of a pair run back to
 * back, so a drift of the GPU's speed cancels); their statistics into q. */
static void paired_ratios(pass *p, const double *ref, const double *cand, cl1_stats *q) {
  int n = p->n_ref < p->n_cand ? p->n_ref : p->n_cand;
  for (int i = 0; i < n; i++) p->ratio[i] = cand[i] > 0 ? ref[i] / cand[i] : 0;
  cl1_stats_of(p->ratio, n, q);
}

/* CUDA events resolve about 0.5 us (cudaEventElapsedTime): a median known to within that is as
 * known as it gets, so for kernels of a few microseconds the CI target is that width, not a
 * share of the median that the timer cannot resolve. Kernels >= 50 us are unaffected. */
#define CL1_TIMER_RES_MS 0.0005

static bool ci_tight(const cl1_stats *s, double target) {
  double width = s->ci_rel * s->median;
  return s->ci_rel <= target || width <= CL1_TIMER_RES_MS;
}

/* The timing protocol: warm-up, ABAB trials on rotating input sets with L2 flushes, until the
 * medians are tight or the budget ends; a secret sample of candidate trials is re-verified. */
static int time_sets(const pass *p) {
  int n = p->o->time_sets > 0 ? p->o->time_sets : DEFAULT_TIME_SETS;
  return n < MAX_TIME_SETS ? n : MAX_TIME_SETS;
}

/* One timed pair: both sides on the same slot with the same fresh values (a cache keyed by
 * values, or by an address plus a spot check of them, never sees the same inputs twice:
 * cache_by_value in tests/hacks/), fetched and compared when it is a re-verified pair. */
static int timed_pair(pass *p, cl1_eval_result *r, int i, int nsets, bool cf, double timeout) {
  uint64_t seed = next_seed(p);
  if (trial(p, r, false, i % nsets, seed, cf, 0, p->o->setup_timeout_s)) return 1;
  if (trial(p, r, true, i % nsets, seed, cf, 0, timeout)) return 1;
  if (!cf) return 0;
  char what[64];
  snprintf(what, sizeof what, "re-verification of timed call %d", i + 1);
  /* 1 in 8 blocks: at the judge's ~15 GB/s a full compare of a 268 MB output is 30-60 ms,
     three of them a tenth of a level-1 evaluation */
  return compare(p, r, 0, p->ref.shm, what, 8);
}

static int timing(pass *p, cl1_eval_result *r) {
  const cl1_eval_opts *o = p->o;

  const int nsets = time_sets(p);
  cJSON *m = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(m, "seeds"), *rr, *cr;
  for (int k = 0; k < nsets; k++) {
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)next_seed(p));
    cJSON_AddItemToArray(arr, cJSON_CreateString(b));
  }
  int v = both(p, r, CL1_MSG_TIME_PREP, m, o->setup_timeout_s, "preparing timing", &rr, &cr);
  cJSON_Delete(m);
  if (v) return 1;
  double ref_empty = empty_of(rr), cand_empty = empty_of(cr);
  double ref_empty_nh = jnum(rr, "empty_nohold_ms", ref_empty);
  double cand_empty_nh = jnum(cr, "empty_nohold_ms", cand_empty);
  const cJSON *ge = cJSON_GetObjectItemCaseSensitive(cr, "graph_error");
  if (cJSON_IsString(ge) || jnum(cr, "rc", 0)) {
    set_verdict(r, "crash", "CUDA graph capture of the candidate failed: %s",
                cJSON_IsString(ge) ? ge->valuestring : "cl1_forward failed");
    cJSON_Delete(rr); cJSON_Delete(cr);
    return 1;
  }
  if (cJSON_GetObjectItemCaseSensitive(rr, "graph_error")) {
    cJSON_Delete(rr); cJSON_Delete(cr);
    set_verdict(r, "infra_error", "CUDA graph capture of the reference failed");
    return 1;
  }
  cJSON_Delete(rr);
  cJSON_Delete(cr);
  m = cJSON_CreateObject();
  cJSON_AddNumberToObject(m, "min_calls", 3);
  cJSON_AddNumberToObject(m, "min_ms", 25);
  cJSON_AddNumberToObject(m, "sets", nsets);
  v = both(p, r, CL1_MSG_WARMUP, m, o->setup_timeout_s, "warm-up", &rr, &cr);
  cJSON_Delete(m);
  if (v) return 1;
  int crc = (int)jnum(cr, "rc", 0);
  /* A call whose host time does not fit well inside the hold (it synchronises, or launches for
     longer) would wait out the hold and be charged for it: then both sides are timed without
     the hold, as equals (their launch cost back in the event time). */
  double hold_ms = o->backend == CL1_BACKEND_CUDA ? o->hold_us / 1e3 : 0;
  p->hold = hold_ms > 0 && jnum(rr, "host_med_ms", 0) < 0.5 * hold_ms &&
            jnum(cr, "host_med_ms", 0) < 0.5 * hold_ms;
  r->hold_us = p->hold ? o->hold_us : 0;
  if (!p->hold) ref_empty = ref_empty_nh, cand_empty = cand_empty_nh;
  cJSON_Delete(rr);
  cJSON_Delete(cr);
  if (crc) { set_verdict(r, "crash", "warm-up: cl1_forward returned %d", crc); return 1; }

  /* Which candidate trials are re-verified: chosen now, secret to the candidate. */
  int max_t = o->max_trials < MAX_SAMPLES ? o->max_trials : MAX_SAMPLES;
  int check_at[3] = {1 + (int)(next_seed(p) % 8), 8 + (int)(next_seed(p) % 20),
                     20 + (int)(next_seed(p) % 40)};
  uint64_t spot = next_seed(p);  /* past the fixed points, about 1 pair in 32, secretly */
  double t_start = cl1_now(), timeout = o->call_timeout_s;
  int i = 0;
  for (; i < max_t; i++) {
    spot = spot * 6364136223846793005ULL + 1442695040888963407ULL;
    bool cf = i == check_at[0] || i == check_at[1] || i == check_at[2] ||
              (i > check_at[2] && (spot >> 59) == 0);
    if (timed_pair(p, r, i, nsets, cf, timeout)) return 1;
    if (i == 0) { /* a hung call must not wait the full default when the reference is fast */
      double ref_ms = p->ref_ms[0];
      double t = 50 * ref_ms / 1e3 + 2.0;
      if (t < timeout) timeout = t;
    }
    int n = i + 1;
    if (n >= o->min_trials && n > check_at[2]) {
      cl1_stats a, b, q;
      cl1_stats_of(p->ref_ms, p->n_ref, &a);
      cl1_stats_of(p->cand_ms, p->n_cand, &b);
      if (ci_tight(&a, o->ci_target) && ci_tight(&b, o->ci_target)) { i++; break; }
      /* The speedup is known once the paired ratios are: under a slow drift of the GPU's speed
         (clocks, power; seen as 0.27 -> 0.32 ms phases of one conv) each side's median stays
         wide for 1000 trials while the ABAB pairs, measured microseconds apart, agree. */
      paired_ratios(p, p->ref_ev, p->cand_ev, &q);
      if (q.ci_rel <= o->ci_target) { i++; break; }
      if (cl1_now() - t_start > o->time_budget_s) { i++; break; }
    }
  }
  /* and the last pair is always re-verified: a candidate that turns wrong late is caught however
     long the timing ran */
  if (timed_pair(p, r, i, nsets, true, timeout)) return 1;
  /* trial time = max(event time, wall - empty-call cost, host time in the call): the event time
     starts behind the hold, so a host launch cost that varies from process to process stays
     out of it while the wall time (the hold's own length subtracted as part of the empty-call
     cost) still holds side streams and work left running; the host time holds work the host
     did during the hold (copy engines and the CPU are not held: tests/hacks/cuda/
     hide_behind_hold.cu). */
  for (int i = 0; i < p->n_ref; i++) {
    double wl = p->ref_ms[i] - ref_empty, h = p->ref_host[i];
    double t = wl > p->ref_ev[i] ? wl : p->ref_ev[i];
    p->ref_ms[i] = h > t ? h : t;
  }
  double gap_sum = 0;
  for (int i = 0; i < p->n_cand; i++) {
    double wl = p->cand_ms[i] - cand_empty, h = p->cand_host[i];
    gap_sum += wl - p->cand_ev[i];
    double t = wl > p->cand_ev[i] ? wl : p->cand_ev[i];
    p->cand_ms[i] = h > t ? h : t;
  }
  cl1_stats_of(p->ref_ms, p->n_ref, &r->ref);
  cl1_stats_of(p->cand_ms, p->n_cand, &r->cand);
  r->ref_ev_med = cl1_median(p->ref_ev, p->n_ref);
  r->cand_ev_med = cl1_median(p->cand_ev, p->n_cand);
  /* Work outside the harness stream's events (side streams, host work) shows as a wall/event gap. */
  if (o->backend == CL1_BACKEND_CUDA && p->n_cand &&
      gap_sum / p->n_cand > 0.5 * r->cand_ev_med + 0.02)
    add_flag(r, "timing_mismatch");
  /* The judge's own clock bounds what the worker reports (a tampered timer shows here). */
  double cov[MAX_SAMPLES], rov[MAX_SAMPLES];
  int nc = 0, nr = 0;
  for (int i = 0; i < p->n_cand; i++) if (!isnan(p->cand_rt[i])) cov[nc++] = p->cand_rt[i];
  for (int i = 0; i < p->n_ref; i++) if (!isnan(p->ref_rt[i])) rov[nr++] = p->ref_rt[i];
  if (nc && nr) {
    double flush = o->backend == CL1_BACKEND_CUDA ? cl1_median(p->ref_flush, p->n_ref) : 0;
    double c_over = cl1_median(cov, nc) - flush, r_over = cl1_median(rov, nr) - flush;
    r->cand_overhead_ms = c_over;
    r->ref_overhead_ms = r_over;
    /* What the worker reports beyond the judge's own round trip: on the H200 the two sides'
       medians agreed within 0.03 ms over the starter tasks, so 0.1 ms + 10% catches a timer
       cut by a quarter of a 0.35 ms call (tests/hacks/cuda/timer_fnptr.cu); the host backend
       keeps wide margins (round trips on a loaded 2-core CI machine jitter by tenths of a ms,
       and the host time of the call bounds its trials there). */
    bool cuda = o->backend == CL1_BACKEND_CUDA;
    double margin = cuda ? 0.1 + 0.1 * r->cand.median : 1.0 + 0.5 * r->cand.median;
    if (c_over - r_over > margin) {
      add_flag(r, "timer_mismatch");
      double fixed = r->cand.median + (c_over - r_over);
      r->cand.median = fixed;
    }
  }
  if (p->thread_growth > 0) add_flag(r, "thread_growth");
  /* the speedup is the median of the paired ratios (of the trial times as taken above), unless
     a tampered timer forced the candidate's median up */
  int np = p->n_ref < p->n_cand ? p->n_ref : p->n_cand;
  cl1_stats q;
  paired_ratios(p, p->ref_ms, p->cand_ms, &q);
  r->speedup_ci_rel = q.ci_rel;
  bool timer_fixed = false;
  for (int i = 0; i < r->n_flags; i++) timer_fixed |= !strcmp(r->flags[i], "timer_mismatch");
  if (timer_fixed || np == 0) r->speedup = r->cand.median > 0 ? r->ref.median / r->cand.median : 0;
  else r->speedup = q.median;
  return 0;
}

static void close_pass(pass *p) {
  cl1_wproc_quit(&p->cand);
  cl1_wproc_quit(&p->ref);
  cl1_wproc_close(&p->cand);
  cl1_wproc_close(&p->ref);
}

/* One full pass in fresh processes. 0: timing done (verdict still open); 1: verdict set;
 * -1: infrastructure error (err). */
static int run_pass(pass *p, cl1_eval_result *r, cl1_err *err) {
  double t0 = cl1_now();
  int rc = start_workers(p, r, err);
  r->t_start += cl1_now() - t0;
  if (rc) { close_pass(p); return rc; }
  t0 = cl1_now();
  rc = verify(p, r);
  r->t_verify += cl1_now() - t0;
  if (!rc) {
    t0 = cl1_now();
    rc = timing(p, r);
    r->t_time += cl1_now() - t0;
  }
  close_pass(p);
  return rc;
}

static int read_file(const char *path, char **out, size_t *n, cl1_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return cl1_err_set(err, "cannot read the solution %s: %m", path);
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (sz < 0 || sz > 16 * 1024 * 1024) { fclose(f); return cl1_err_set(err, "%s: not a source file (size %ld)", path, sz); }
  *out = malloc((size_t)sz + 1);
  if (!*out) { fclose(f); return cl1_err_set(err, "out of memory"); }
  *n = fread(*out, 1, (size_t)sz, f);
  (*out)[*n] = 0;
  fclose(f);
  return 0;
}

/* The physical floor of one call (evaluation.md, class 15): the task's bytes (else its outputs,
 * which every correct call writes) over the copy bandwidth, and its FLOPs over the fastest
 * measured matmul rate, from `cudal1 gpu peaks`' cache for this GPU; without that file the
 * bytes at --peak-bw (default 4.8 TB/s, the H200's HBM3e) alone, said in floor_source. */
static double roofline_floor(const cl1_eval_opts *o, const cl1_inst *inst, cl1_eval_result *r) {
  if (o->backend != CL1_BACKEND_CUDA) return 0;
  double bytes = inst->bytes;
  if (!(bytes > 0))
    for (int i = 0; i < inst->n_outputs; i++) bytes += (double)inst->outputs[i].bytes;
  char root[4096], path[4400];
  cl1_err e = {{0}};
  cl1_peaks pk;
  if (o->peak_bw <= 0 && !cl1_cache_root(o->compile_cache, root, sizeof root, &e) &&
      !cl1_peaks_path(root, r->device, path, sizeof path, &e) && !cl1_peaks_load(path, &pk, &e)) {
    snprintf(r->floor_source, sizeof r->floor_source, "measured peaks (%s)", pk.date);
    return r->floor_ms = cl1_peaks_floor_ms(&pk, inst->flops, bytes);
  }
  double bw = o->peak_bw > 0 ? o->peak_bw : 4.8e12;
  snprintf(r->floor_source, sizeof r->floor_source, "%s %.2f TB/s, bytes only%s",
           o->peak_bw > 0 ? "--peak-bw" : "default", bw / 1e12,
           o->peak_bw > 0 ? "" : " (run `cudal1 gpu peaks` once to measure this GPU)");
  return r->floor_ms = bytes / bw * 1e3;
}

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

int cl1_eval_run(const cl1_eval_opts *o, cl1_eval_result *r, cl1_err *err) {
  memset(r, 0, sizeof *r);
  double t_begin = cl1_now();
  char dir[4096];
  if (cl1_task_find(cl1_suite_root(), o->task, dir, sizeof dir, err)) return 2;
  cl1_task *task = NULL;
  if (cl1_task_load(dir, &task, err)) return 2;
  snprintf(r->task_id, sizeof r->task_id, "%s", task->id);
  if (o->reward_stats) {
    cl1_reward_stats rs;
    if (cl1_reward_file_get(o->reward_stats, task->id, &rs, &r->best_seen, err)) {
      cl1_task_free(task);
      return 2;
    }
  }
  cl1_inst inst;
  if (cl1_task_instance(task, o->shapes, &inst, err)) { cl1_task_free(task); return 2; }
  const char *want = o->backend == CL1_BACKEND_CUDA ? ".cu" : ".c";
  if (!ends_with(o->solution, want)) {
    cl1_task_free(task);
    return cl1_err_set(err, "%s: the %s backend runs %s solutions (%s)", o->solution,
                       cl1_backend_name(o->backend), want,
                       o->backend == CL1_BACKEND_CUDA ? "CUDA C++" : "C"), 2;
  }
  char *src = NULL;
  size_t n = 0;
  if (read_file(o->solution, &src, &n, err)) { cl1_task_free(task); return 2; }
  int ret = 0;
  bool cap_reward = false;  /* the reward pays at most 1.0x (see below) */
  /* 1. gate: source rules */
  double t0 = cl1_now();
  cl1_gate_verdict gv;
  int g = cl1_gate_source(src, n, o->backend, &gv, err);
  r->t_gate = cl1_now() - t0;
  if (g < 0) { ret = 3; goto out; }
  if (g == 1) {
    reject(r, &gv);
    goto done;
  }
  /* 2. compile the candidate and the reference together */
  char ref_src[4200];
  snprintf(ref_src, sizeof ref_src, "%s", task->reference);
  const char *paths[2] = {o->solution, ref_src};
  cl1_compile_opts co = {.backend = o->backend, .cache_dir = o->compile_cache};
  cl1_compile_result cres[2];
  int crc[2];
  cl1_err cerr[2];
  memset(cerr, 0, sizeof cerr);
  memset(cres, 0, sizeof cres);
  t0 = cl1_now();
  /* The reference is C on both backends (cc, linked to the backend's op library); the language
     follows the file extension. */
  cl1_compile_many(2, paths, &co, 2, cres, crc, cerr);
  r->t_compile = cl1_now() - t0;
  r->compile_s = cres[0].seconds;
  r->compile_cached = cres[0].cached;
  if (crc[1] != 0) {
    ret = 3;
    cl1_err_set(err, "the task's reference %s did not compile: %s", ref_src,
                crc[1] < 0 ? cerr[1].msg : cres[1].diag);
    goto out;
  }
  if (crc[0] < 0) { ret = 3; *err = cerr[0]; goto out; }
  if (crc[0] == 1 || crc[0] == 2) {
    snprintf(r->diag, sizeof r->diag, "%s", cres[0].diag);
    set_verdict(r, "compile_error", "%s", crc[0] == 2 ? "the compiler ran past its time limit"
                                                      : "the candidate did not compile");
    goto done;
  }
  /* 1b. gate: the built object's imports */
  t0 = cl1_now();
  g = cl1_gate_symbols(cres[0].so_path, o->backend, &gv, err);
  r->t_gate += cl1_now() - t0;
  if (g < 0) { ret = 3; goto out; }
  if (g == 1) {
    reject(r, &gv);
    goto done;
  }
  /* class 13: the reference's own op library pays 1.0x; a task whose outputs do not depend on
     its inputs (a `degenerate` note) cannot show a speedup worth paying for */
  cl1_so_facts facts;
  if (cl1_gate_so_facts(cres[0].so_path, &facts, err)) { ret = 3; goto out; }
  if (facts.calls_op_library) add_flag(r, "calls_op_library");
  if (o->backend == CL1_BACKEND_CUDA && facts.calls_op_library && !facts.own_device_code &&
      !facts.calls_vendor) {
    add_flag(r, "no_custom_kernel");
    cap_reward = true;
  }
  if (cl1_task_degenerate_at(task, o->shapes)) {
    add_flag(r, "degenerate_task");
    cap_reward = true;
  }
  /* 3-4. verify and time in fresh processes */
  pass *p = calloc(1, sizeof *p);
  if (!p) { ret = 3; cl1_err_set(err, "out of memory"); goto out; }
  p->o = o; p->task = task; p->inst = &inst;
  p->ref_so = cres[1].so_path; p->cand_so = cres[0].so_path;
  if (o->seed) p->rng_state = o->seed;
  else if (getrandom(&p->rng_state, sizeof p->rng_state, 0) != sizeof p->rng_state)
    p->rng_state = (uint64_t)(cl1_now() * 1e9);
  int pr = run_pass(p, r, err);
  r->measurements = 1;
  if (pr < 0) { free(p); ret = 3; goto out; }
  if (pr == 0) {
    /* 5. suspicious results are re-measured in fresh processes before they count */
    double floor_ms = roofline_floor(o, &inst, r);
    bool below = floor_ms > 0 && r->cand.median < floor_ms;
    if (below) add_flag(r, "below_roofline");
    /* evaluation.md: >= 3x, more than twice the task's best so far, or under the floor */
    bool jump = r->best_seen > 0 && r->speedup > 2 * r->best_seen;
    if (jump) add_flag(r, "above_2x_best");
    if ((r->speedup >= o->suspicious_speedup || jump || below) && o->remeasure > 0) {
      double lo = r->speedup, hi = r->speedup, cand_min = r->cand.median;
      double t_cand = r->cand.median, t_ref = r->ref.median;  /* the shortest seen, each side */
      cl1_eval_result again;
      for (int k = 0; k < o->remeasure && k < 4; k++) {
        memset(&again, 0, sizeof again);
        pass *q = calloc(1, sizeof *q);
        if (!q) break;
        *q = (pass){.o = o, .task = task, .inst = &inst, .ref_so = p->ref_so,
                    .cand_so = p->cand_so, .verify_only_light = true,
                    .rng_state = next_seed(p)};
        int qr = run_pass(q, &again, err);
        free(q);
        r->measurements++;
        if (qr < 0) { free(p); ret = 3; goto out; }
        if (qr == 1) {
          if (!strcmp(again.verdict, "infra_error")) { *r = again; break; }
          set_verdict(r, "hack:unstable", "passed once, then a re-measurement in a fresh process "
                      "gave '%s': %s", again.verdict, again.message);
          break;
        }
        r->remeasured[k] = again.speedup;
        if (again.speedup < lo) lo = again.speedup;
        if (again.speedup > hi) hi = again.speedup;
        if (again.cand.median > cand_min) cand_min = again.cand.median;
        if (again.cand.median < t_cand) t_cand = again.cand.median;
        if (again.ref.median < t_ref) t_ref = again.ref.median;
      }
      /* the floor first: a call under it is a hack however steady (it never reads what it
         must), and steadiness would otherwise decide which of the two verdicts it gets */
      if (!r->verdict[0] && floor_ms > 0 && cand_min < 0.8 * floor_ms)
        set_verdict(r, "hack:below_roofline", "median %.4f ms is under the physical floor %.4f ms"
                    " (its bytes at the measured bandwidth or its FLOPs at the fastest measured rate)", cand_min, floor_ms);
      /* 10% plus launch jitter: 4-7 us honest candidates against 15-30 us references
         re-measured 2.6-4.4x on the H200 (bench/results/h200/legit-prelim-fast3.json) */
      if (!r->verdict[0] && !cl1_speedups_agree(lo, hi, t_cand, t_ref))
        set_verdict(r, "hack:unstable", "speedup %.2fx was suspicious and re-measurements in fresh "
                    "processes disagree by more than 10%% (%.2fx .. %.2fx)", r->speedup, lo, hi);
      if (!r->verdict[0] && lo > 0 && lo < r->speedup) r->speedup = lo; /* count the lowest */
    }
    if (!r->verdict[0])
      set_verdict(r, "pass", "correct on %d checks; %.3fx the reference", r->checks, r->speedup);
  }
  free(p);
done: {
    bool valid;
    /* outputs that do not follow the inputs (seen in verification) pay no speedup either */
    for (int i = 0; i < r->n_flags; i++) cap_reward |= !strcmp(r->flags[i], "input_insensitive");
    r->reward_speedup = cap_reward && r->speedup > 1 ? 1.0 : r->speedup;
    r->reward = cl1_reward_raw(&o->reward, r->verdict, r->reward_speedup, &valid);
    cl1_err re = {{0}};
    if (o->reward_stats && valid) {
      if (cl1_reward_file_record(o->reward_stats, task->id, &o->reward, r->verdict, r->reward_speedup,
                                 &r->reward_norm, &re))
        snprintf(r->reward_note, sizeof r->reward_note, "%.250s", re.msg);
      else
        r->has_reward_norm = true;
    }
  }
out:
  r->t_total = cl1_now() - t_begin;
  free(src);
  cl1_task_free(task);
  return ret;
}
