/* eval_json.c — an evaluation result as JSON (cudal1 eval --json; the store keeps the same). */
#include <cjson/cJSON.h>
#include <string.h>
#include "eval.h"
#include "../task/task.h"
#include "../worker/proto.h"

static cJSON *stats_json(const cl1_stats *s, double ev_median) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "median_ms", s->median);
  cJSON_AddNumberToObject(o, "q1_ms", s->q1);
  cJSON_AddNumberToObject(o, "q3_ms", s->q3);
  cJSON_AddNumberToObject(o, "min_ms", s->min);
  cJSON_AddNumberToObject(o, "mean_ms", s->mean);
  cJSON_AddNumberToObject(o, "n", s->n);
  cJSON_AddNumberToObject(o, "ci95_rel", s->ci_rel);
  cJSON_AddNumberToObject(o, "event_median_ms", ev_median);
  return o;
}

cJSON *cl1_eval_json_doc(const cl1_eval_opts *o, const cl1_eval_result *r) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "task", r->task_id);
  cJSON_AddStringToObject(j, "solution", o->solution);
  cJSON_AddStringToObject(j, "backend", cl1_backend_name(o->backend));
  cJSON_AddStringToObject(j, "shapes", cl1_shapes_name(o->shapes));
  cJSON_AddStringToObject(j, "device", r->device);
  cJSON_AddStringToObject(j, "driver", r->driver);
  cJSON_AddStringToObject(j, "protocol", o->graph ? (o->warm_cache ? "graph,warm-cache" : "graph")
                                                  : (o->warm_cache ? "warm-cache" : "default"));
  cJSON_AddStringToObject(j, "verdict", r->verdict);
  cJSON_AddStringToObject(j, "message", r->message);
  if (r->cache_bytes > 0) {
    /* what the machine told the workers, so a run on an odd machine can be read back (issue 17) */
    cJSON *mc = cJSON_AddObjectToObject(j, "machine");
    cJSON_AddNumberToObject(mc, "cache_bytes", r->cache_bytes);
    cJSON_AddStringToObject(mc, "cache_source", r->cache_source);
    cJSON_AddNumberToObject(mc, "flush_bytes", r->flush_bytes);
    cJSON_AddNumberToObject(mc, "cand_vm_base_bytes", r->cand_vm_base);
    cJSON_AddNumberToObject(mc, "cand_as_limit_bytes", r->cand_as_limit);
    cJSON_AddNumberToObject(mc, "cand_rss_limit_bytes", r->cand_rss_limit);
  }
  cJSON *c = cJSON_AddObjectToObject(j, "compile");
  cJSON_AddNumberToObject(c, "seconds", r->compile_s);
  cJSON_AddBoolToObject(c, "cached", r->compile_cached);
  if (r->diag[0]) cJSON_AddStringToObject(c, "diagnostics", r->diag);
  cJSON *v = cJSON_AddObjectToObject(j, "correctness");
  cJSON_AddNumberToObject(v, "checks", r->checks);
  cJSON_AddNumberToObject(v, "max_abs", r->max_abs);
  cJSON_AddNumberToObject(v, "max_rel", r->max_rel);
  if (r->ref.n || r->cand.n) {
    cJSON *t = cJSON_AddObjectToObject(j, "timing");
    cJSON_AddItemToObject(t, "reference", stats_json(&r->ref, r->ref_ev_med));
    cJSON_AddItemToObject(t, "candidate", stats_json(&r->cand, r->cand_ev_med));
    cJSON_AddNumberToObject(t, "measurements", r->measurements);
    cJSON_AddNumberToObject(t, "judge_overhead_ref_ms", r->ref_overhead_ms);
    cJSON_AddNumberToObject(t, "judge_overhead_cand_ms", r->cand_overhead_ms);
    cJSON_AddNumberToObject(t, "judge_excess_ref_ms", r->ref_excess_ms);
    cJSON_AddNumberToObject(t, "judge_excess_cand_ms", r->cand_excess_ms);
    cJSON_AddNumberToObject(t, "clock_cut_ms", r->clock_cut_ms);
    cJSON_AddNumberToObject(t, "hold_us", r->hold_us);
    cJSON_AddNumberToObject(t, "roofline_floor_ms", r->floor_ms);
    cJSON_AddStringToObject(t, "roofline_floor_source", r->floor_source);
    cJSON *rm = cJSON_AddArrayToObject(t, "remeasured_speedups");
    cJSON *rc = cJSON_AddArrayToObject(t, "remeasured_clock_cut_ms");
    for (int i = 0; i + 1 < r->measurements && i < CL1_EVAL_MAX_REMEASURE; i++) {
      cJSON_AddItemToArray(rm, cJSON_CreateNumber(r->remeasured[i]));
      cJSON_AddItemToArray(rc, cJSON_CreateNumber(r->remeasured_cut[i]));
    }
  }
  cJSON_AddNumberToObject(j, "speedup", r->speedup);
  cJSON_AddNumberToObject(j, "speedup_ci95_rel", r->speedup_ci_rel);
  cJSON_AddNumberToObject(j, "reward_speedup", r->reward_speedup);
  /* infra_error: no signal, not a zero (a policy must never be punished for our machine) */
  if (!strcmp(r->verdict, "infra_error")) cJSON_AddNullToObject(j, "reward");
  else cJSON_AddNumberToObject(j, "reward", r->reward);
  if (r->has_reward_norm) cJSON_AddNumberToObject(j, "reward_normalized", r->reward_norm);
  if (r->best_seen > 0) cJSON_AddNumberToObject(j, "best_speedup_before", r->best_seen);
  if (r->reward_note[0]) cJSON_AddStringToObject(j, "reward_stats_error", r->reward_note);
  cJSON *f = cJSON_AddArrayToObject(j, "flags");
  for (int i = 0; i < r->n_flags; i++) cJSON_AddItemToArray(f, cJSON_CreateString(r->flags[i]));
  cJSON *ph = cJSON_AddObjectToObject(j, "phases_s");
  cJSON_AddNumberToObject(ph, "gate", r->t_gate);
  cJSON_AddNumberToObject(ph, "compile", r->t_compile);
  cJSON_AddNumberToObject(ph, "start", r->t_start);
  cJSON_AddNumberToObject(ph, "start_setup", r->t_start_setup);
  cJSON_AddNumberToObject(ph, "start_load", r->t_start_load);
  cJSON_AddNumberToObject(ph, "cand_setup", r->t_cand_setup);
  /* the worker's own clock in its SETUP, cumulative ms: task, device, pinned, sandboxed */
  cJSON *sm = cJSON_AddArrayToObject(ph, "cand_setup_ms");
  for (int i = 0; i < CL1_SETUP_MARKS; i++)
    cJSON_AddItemToArray(sm, cJSON_CreateNumber(r->cand_setup_ms[i]));
  cJSON_AddNumberToObject(ph, "spare_wait", r->t_spare_wait);
  cJSON_AddNumberToObject(ph, "verify", r->t_verify);
  cJSON_AddNumberToObject(ph, "time", r->t_time);
  cJSON_AddNumberToObject(ph, "time_prep", r->t_time_prep);
  cJSON_AddNumberToObject(ph, "time_warmup", r->t_time_warmup);
  cJSON_AddNumberToObject(ph, "time_pairs", r->t_time_pairs);
  cJSON_AddNumberToObject(ph, "pairs", r->time_pairs);
  if (o->gpu) cJSON_AddNumberToObject(ph, "gpu_wait", r->t_gpu_wait);
  cJSON_AddNumberToObject(ph, "total", r->t_total);
  if (r->cand_from[0]) {  /* no worker started (a gate or compile verdict): none */
    cJSON *w = cJSON_AddObjectToObject(j, "workers");
    cJSON_AddStringToObject(w, "ref", r->ref_from);
    cJSON_AddStringToObject(w, "cand", r->cand_from);
  }
  if (r->cand_log[0]) cJSON_AddStringToObject(j, "candidate_log_tail", r->cand_log);
  if (r->python) {
    cJSON *py = cJSON_AddObjectToObject(j, "python");
    cJSON_AddNumberToObject(py, "extension_calls", r->py_ext_calls);
    cJSON_AddNumberToObject(py, "extension_errors", r->py_ext_errors);
    if (r->py_ext_errors) cJSON_AddStringToObject(py, "extension_error", r->py_ext_error);
  }
  return j;
}

char *cl1_eval_json(const cl1_eval_opts *o, const cl1_eval_result *r) {
  cJSON *j = cl1_eval_json_doc(o, r);
  char *s = cJSON_Print(j);
  cJSON_Delete(j);
  return s;
}
