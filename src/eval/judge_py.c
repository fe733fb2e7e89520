/* judge_py.c — the judge's side of Python solutions and references (KernelBench's format): what a
 * worker running one is told at SETUP (pysol.py's spec), and what its replies report. The protocol
 * is the C ABI's, unchanged: inputs and params from the judge's seeds, checksums around each call,
 * the timing taken by the C worker around the module's call. */
#include <assert.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "judge_int.h"

/* A native task: its twin's make(dims, attrs) gives Model's arguments (pysol.py records them). */
static void add_twin(cJSON *m, const cl1_task *t, const cl1_inst *inst) {
  char twin[4200], real[PATH_MAX];
  /* canonical: the warm spec is part of a build's cache key, whoever named the folder how */
  snprintf(twin, sizeof twin, "%s/twin.py", realpath(t->dir, real) ? real : t->dir);
  cJSON_AddStringToObject(m, "twin", twin);
  cJSON *dims = cJSON_AddObjectToObject(m, "dims"), *attrs = cJSON_AddObjectToObject(m, "attrs");
  for (int d = 0; d < t->n_dims; d++)
    cJSON_AddNumberToObject(dims, t->dim_names[d], (double)t->dims[inst->set][d]);
  for (int a = 0; a < inst->n_attrs; a++)
    cJSON_AddNumberToObject(attrs, inst->attrs[a].name, inst->attrs[a].value);
}

/* The constructor's arguments for a KernelBench-format task at the instance's set. */
static void add_init(cJSON *m, const cl1_pass *p) {
  const cl1_task *t = p->task;
  if (t->py) {
    cJSON *a = cJSON_Parse(t->py_init[p->inst->set] ? t->py_init[p->inst->set] : "[]");
    cJSON_AddItemToObject(m, "init", a ? a : cJSON_CreateArray());
    cJSON_AddBoolToObject(m, "train_mode", t->py_train);
    cJSON *sc = t->py_scalars ? cJSON_Parse(t->py_scalars) : NULL;
    if (sc) cJSON_AddItemToObject(m, "scalars", sc);
    return;
  }
  add_twin(m, t, p->inst);
}

char *cl1_judge_py_warm(const cl1_task *t, const cl1_inst *inst) {
  if (t->py) return NULL; /* its problem's get_inputs() is the module's own: already called */
  cJSON *m = cJSON_CreateObject();
  add_twin(m, t, inst);
  cJSON *ins = cJSON_AddArrayToObject(m, "inputs");
  for (int i = 0; i < inst->n_inputs; i++) {
    cJSON *e = cJSON_CreateArray(), *shape = cJSON_CreateArray();
    cJSON_AddItemToArray(e, cJSON_CreateString(cl1_dtype_name(inst->inputs[i].dtype)));
    for (int d = 0; d < inst->inputs[i].ndim; d++)
      cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)inst->inputs[i].shape[d]));
    cJSON_AddItemToArray(e, shape);
    cJSON_AddItemToArray(ins, e);
  }
  char *s = cJSON_PrintUnformatted(m);
  cJSON_Delete(m);
  return s;
}

char *cl1_eval_py_warm(const char *task, int shapes) {
  if (!task) return NULL;
  char dir[4096];
  cl1_err err;
  cl1_task *t = NULL;
  cl1_inst inst;
  if (cl1_task_find(cl1_suite_root(), task, dir, sizeof dir, &err) || cl1_task_load(dir, &t, &err))
    return NULL;
  char *s = cl1_task_instance(t, shapes, &inst, &err) ? NULL : cl1_judge_py_warm(t, &inst);
  cl1_task_free(t);
  return s;
}

char *cl1_judge_py_spec(const cl1_pass *p, int k) {
  const char *mod = k ? p->cand_py : p->ref_py;
  if (!mod || !mod[0]) return NULL;
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "file", mod);
  cJSON_AddStringToObject(m, "class", k ? "ModelNew" : p->task->py_class);
  char dir[4200];
  snprintf(dir, sizeof dir, "%s", mod);
  const char *folder = dirname(dir);
  char ext[4300];
  snprintf(ext, sizeof ext, "%s/ext", folder);
  cJSON_AddStringToObject(m, "ext_dir", ext);
  /* Triton's kernels, compiled by the build step's call on the GPU (pybuild.py) */
  char triton[4300];
  snprintf(triton, sizeof triton, "%s/triton", folder);
  struct stat st;
  if (p->o->backend == CL1_BACKEND_CUDA && !stat(triton, &st) && S_ISDIR(st.st_mode))
    cJSON_AddStringToObject(m, "triton_dir", triton);
  cJSON_AddStringToObject(m, "device", p->o->backend == CL1_BACKEND_CUDA ? "cuda" : "cpu");
  cJSON *names = cJSON_AddArrayToObject(m, "params");
  for (int i = 0; i < p->inst->n_params; i++)
    cJSON_AddItemToArray(names, cJSON_CreateString(p->inst->params[i].name));
  add_init(m, p);
  if (p->task->py) {
    /* KernelBench's contract: both modules constructed under the params set's seed, a
       candidate's aligned to the task's Model where its state maps (python/cudal1/pyinit.py) */
    cJSON_AddBoolToObject(m, "construct", true);
    if (k && p->ref_py && p->ref_py[0]) {
      cJSON_AddStringToObject(m, "ref_file", p->ref_py);
      cJSON_AddStringToObject(m, "ref_class", p->task->py_class);
    }
  }
  char *s = cJSON_PrintUnformatted(m);
  cJSON_Delete(m);
  return s;
}

/* What a Python candidate's RUN reply reports (its interpreter wrote it: informational, never a
 * verdict): global numerics settings it changed, whether its custom extensions ran. */
void cl1_judge_py_report(cl1_pass *p, cl1_eval_result *r, const cJSON *cr) {
  const cJSON *py = cJSON_GetObjectItemCaseSensitive(cr, "py");
  if (!p->cand_py || !cJSON_IsObject(py)) return;
  const cJSON *changed = cJSON_GetObjectItemCaseSensitive(py, "numerics_changed");
  if (cJSON_GetArraySize(changed) > 0) cl1_judge_flag(r, "numerics_flags_changed");
  const cJSON *calls = cJSON_GetObjectItemCaseSensitive(py, "ext_calls");
  r->python = true;
  if (cJSON_IsNumber(calls) && calls->valuedouble > r->py_ext_calls)
    r->py_ext_calls = calls->valuedouble;
  /* a module that swallows its extension's failure and falls back to PyTorch passes as if its
     kernel ran: CUDA-L1's released kernels mostly do (the H100 audit of 2026-12-07) */
  const cJSON *errs = cJSON_GetObjectItemCaseSensitive(py, "ext_errors");
  int n = cJSON_GetArraySize(errs);
  if (n > r->py_ext_errors) {
    const cJSON *first = cJSON_GetArrayItem(errs, 0);
    r->py_ext_errors = n;
    if (cJSON_IsString(first))
      snprintf(r->py_ext_error, sizeof r->py_ext_error, "%s", first->valuestring);
    cl1_judge_flag(r, "extension_not_built");
  }
}
