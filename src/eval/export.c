/* export.c — writes a task instance to a folder (see export.h). */
#include "export.h"
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "compile.h"
#include "../base/file.h"
#include "../worker/dev.h"
#include "../base/npy.h"
#include "../task/task.h"

static const char *npy_descr(int dtype) {
  switch (dtype) {
  case CL1_F32: return "<f4";
  case CL1_F16: return "<f2";
  case CL1_BF16: return "<u2"; /* NumPy has no bfloat16: raw bits, meta.json says so */
  case CL1_F64: return "<f8";
  case CL1_I32: return "<i4";
  case CL1_I64: return "<i8";
  case CL1_U8: return "|u1";
  case CL1_BOOL: return "|b1";
  }
  return "|u1";
}

static int save(cl1_dev *d, const char *dir, const char *sub, int idx, const cl1_tinst *t,
                const void *dev_ptr, cJSON *list, cl1_err *err) {
  void *host = malloc(t->bytes ? t->bytes : 1);
  if (!host) return cl1_err_set(err, "out of memory for %s (%zu bytes)", t->name, t->bytes);
  if (d->to_host(d, host, dev_ptr, t->bytes, err)) { free(host); return -1; }
  char rel[300], path[4400];
  snprintf(rel, sizeof rel, "%s_%d.npy", sub, idx);
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  int rc = cl1_npy_write(path, npy_descr(t->dtype), t->shape, t->ndim, host, t->bytes, err);
  free(host);
  if (rc) return -1;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", t->name);
  cJSON_AddStringToObject(o, "file", rel);
  cJSON_AddStringToObject(o, "dtype", cl1_dtype_name(t->dtype));
  cJSON *sh = cJSON_AddArrayToObject(o, "shape");
  for (int i = 0; i < t->ndim; i++) cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)t->shape[i]));
  cJSON_AddItemToArray(list, o);
  return 0;
}

int cl1_export_instance(const char *task_id, int set, uint64_t seed, int variant, cl1_backend b,
                        const char *dir, cl1_err *err) {
  char tdir[4096];
  if (cl1_task_find(cl1_suite_root(), task_id, tdir, sizeof tdir, err)) return -1;
  cl1_task *t = NULL;
  if (cl1_task_load(tdir, &t, err)) return -1;
  cl1_inst in;
  int ret = -1;
  void *bufs[3][CL1_TASK_MAX_PARAMS] = {{0}};
  cl1_dev d;
  bool dev_open = false;
  void *lib = NULL;
  if (cl1_task_instance(t, set, &in, err)) goto out;
  if (variant != CL1_VARIANT_NONE && !cl1_inst_variant(&in, (cl1_variant)variant, &in)) {
    cl1_err_set(err, "%s: variant '%s' does not apply at shapes '%s' (it changes no tensor)", t->id,
                cl1_variant_name((cl1_variant)variant), cl1_shapes_name(set));
    goto out;
  }
  if (mkdir(dir, 0755) && errno != EEXIST) { cl1_err_set(err, "%s: %s", dir, strerror(errno)); goto out; }
  char ref[4200];
  snprintf(ref, sizeof ref, "%s", t->reference);
  cl1_compile_opts co = {.backend = b};
  cl1_compile_result cr;
  int crc = cl1_compile_file(ref, &co, &cr, err);
  if (crc) {
    if (crc > 0) cl1_err_set(err, "%s did not compile: %s", ref, cr.diag);
    goto out;
  }
  if (cl1_dev_open(b, &d, err)) goto out;
  dev_open = true;
  lib = dlopen(cr.so_path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) { cl1_err_set(err, "cannot load %s: %s", cr.so_path, dlerror()); goto out; }
  int (*fwd)(const cl1_call *) = (int (*)(const cl1_call *))(uintptr_t)dlsym(lib, "cl1_forward");
  int (*setup)(const cl1_call *, void **) = (int (*)(const cl1_call *, void **))(uintptr_t)dlsym(lib, "cl1_setup");
  void (*teardown)(void *) = (void (*)(void *))(uintptr_t)dlsym(lib, "cl1_teardown");
  if (!fwd) { cl1_err_set(err, "%s does not export cl1_forward", ref); goto out; }
  cl1_tensor ti[CL1_TASK_MAX_TENSORS], tp[CL1_TASK_MAX_PARAMS], to[CL1_TASK_MAX_TENSORS];
  const cl1_tinst *lists[3] = {in.inputs, in.params, in.outputs};
  int counts[3] = {in.n_inputs, in.n_params, in.n_outputs};
  cl1_tensor *tl[3] = {ti, tp, to};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < counts[k]; i++) {
      if (d.alloc(&d, lists[k][i].bytes, &bufs[k][i], err)) goto out;
      if (k == 0 && d.gen(&d, &lists[k][i], bufs[k][i], seed + 1, cl1_tensor_id_input(i), err)) goto out;
      if (k == 1 && d.gen(&d, &lists[k][i], bufs[k][i], seed, cl1_tensor_id_param(i), err)) goto out;
      if (k == 2 && d.poison(&d, bufs[k][i], lists[k][i].bytes, err)) goto out;
      cl1_tensor_of(&tl[k][i], &lists[k][i], bufs[k][i]);
    }
  cl1_call call = {.n_inputs = in.n_inputs, .inputs = ti, .n_params = in.n_params, .params = tp,
                   .n_outputs = in.n_outputs, .outputs = to, .n_attrs = in.n_attrs,
                   .attrs = in.attrs, .stream = d.stream};
  void *state = NULL;
  if (setup && setup(&call, &state)) { cl1_err_set(err, "the reference's cl1_setup failed"); goto out; }
  call.state = state;
  int frc = fwd(&call);
  if (d.sync(&d, err)) goto out;
  if (teardown) teardown(state);
  if (frc) { cl1_err_set(err, "the reference's cl1_forward returned %d", frc); goto out; }
  cJSON *meta = cJSON_CreateObject();
  cJSON_AddStringToObject(meta, "task", t->id);
  cJSON_AddStringToObject(meta, "shapes", cl1_shapes_name(set));
  char sb[32];
  snprintf(sb, sizeof sb, "%llu", (unsigned long long)seed);
  cJSON_AddStringToObject(meta, "seed", sb);
  cJSON_AddStringToObject(meta, "seeds_rule", "params use seed, inputs seed + 1");
  cJSON_AddStringToObject(meta, "variant", cl1_variant_name((cl1_variant)variant));
  if (t->variant_optout[variant]) cJSON_AddStringToObject(meta, "variant_optout", t->variant_optout[variant]);
  cJSON_AddStringToObject(meta, "backend", cl1_backend_name(b));
  cJSON_AddNumberToObject(meta, "atol", in.atol);
  cJSON_AddNumberToObject(meta, "rtol", in.rtol);
  cJSON *dims = cJSON_AddObjectToObject(meta, "dims");
  for (int i = 0; i < t->n_dims; i++) cJSON_AddNumberToObject(dims, t->dim_names[i], (double)t->dims[set][i]);
  cJSON *attrs = cJSON_AddObjectToObject(meta, "attrs");
  for (int i = 0; i < in.n_attrs; i++) cJSON_AddNumberToObject(attrs, in.attrs[i].name, in.attrs[i].value);
  const char *names[3] = {"inputs", "params", "outputs"};
  for (int k = 0; k < 3; k++) {
    cJSON *list = cJSON_AddArrayToObject(meta, names[k]);
    for (int i = 0; i < counts[k]; i++)
      if (save(&d, dir, names[k], i, &lists[k][i], bufs[k][i], list, err)) { cJSON_Delete(meta); goto out; }
  }
  char *js = cJSON_Print(meta);
  cJSON_Delete(meta);
  char mp[4200];
  snprintf(mp, sizeof mp, "%s/meta.json", dir);
  /* through the one writer: this leaked the FILE when fputs failed */
  int w = js ? cl1_file_write_atomic(mp, js, err) : cl1_err_set(err, "out of memory");
  free(js);
  if (w) goto out;
  ret = 0;
out:
  if (dev_open) {
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < CL1_TASK_MAX_PARAMS; i++) if (bufs[k][i]) d.free(&d, bufs[k][i]);
    d.close(&d);
  }
  cl1_task_free(t);
  return ret;
}
