/* embed.c — a task instance driven from another process's memory (see embed.h). */
#include "embed.h"
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compile.h"
#include "../worker/dev.h"
#include "../base/err.h"
#include "../task/task.h"

typedef int (*forward_fn)(const cl1_call *);
typedef int (*setup_fn)(const cl1_call *, void **);
typedef void (*teardown_fn)(void *);

struct cl1_embed {
  cl1_task *task;
  cl1_inst inst;
  cl1_dev dev;
  bool dev_open, have_state, bound;
  void *lib, *state;
  forward_fn forward;
  setup_fn setup;
  teardown_fn teardown;
  cl1_tensor in_t[CL1_TASK_MAX_TENSORS], par_t[CL1_TASK_MAX_PARAMS], out_t[CL1_TASK_MAX_TENSORS];
  cl1_call call;
  char *json;
  cl1_err err;
};

static cJSON *tensor_list(const cl1_tinst *t, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", t[i].name);
    cJSON_AddStringToObject(o, "dtype", cl1_dtype_name(t[i].dtype));
    cJSON *sh = cJSON_AddArrayToObject(o, "shape");
    for (int k = 0; k < t[i].ndim; k++) cJSON_AddItemToArray(sh, cJSON_CreateNumber((double)t[i].shape[k]));
    cJSON_AddNumberToObject(o, "bytes", (double)t[i].bytes);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

static char *describe(const cl1_embed *e, int set) {
  const cl1_task *t = e->task;
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "task", t->id);
  cJSON_AddStringToObject(d, "shapes", cl1_shapes_name(set));
  cJSON_AddStringToObject(d, "backend", cl1_backend_name(e->dev.backend));
  cJSON_AddStringToObject(d, "device", e->dev.name);
  cJSON_AddNumberToObject(d, "atol", e->inst.atol);
  cJSON_AddNumberToObject(d, "rtol", e->inst.rtol);
  cJSON_AddNumberToObject(d, "l2_bytes", (double)e->dev.l2_bytes);
  cJSON *dims = cJSON_AddObjectToObject(d, "dims");
  for (int i = 0; i < t->n_dims; i++) cJSON_AddNumberToObject(dims, t->dim_names[i], (double)t->dims[set][i]);
  cJSON *attrs = cJSON_AddObjectToObject(d, "attrs");
  for (int i = 0; i < e->inst.n_attrs; i++)
    cJSON_AddNumberToObject(attrs, e->inst.attrs[i].name, e->inst.attrs[i].value);
  cJSON_AddItemToObject(d, "inputs", tensor_list(e->inst.inputs, e->inst.n_inputs));
  cJSON_AddItemToObject(d, "params", tensor_list(e->inst.params, e->inst.n_params));
  cJSON_AddItemToObject(d, "outputs", tensor_list(e->inst.outputs, e->inst.n_outputs));
  char *s = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  return s;
}

cl1_embed *cl1_embed_open(const char *task, const char *shapes, const char *backend, char *errbuf,
                          size_t cap) {
  cl1_embed *e = calloc(1, sizeof *e);
  cl1_err *err = e ? &e->err : NULL;
  char tdir[4096], ref[4200];
  int set = shapes ? cl1_shapes_parse(shapes) : -1;
  cl1_backend b = CL1_BACKEND_HOST;
  if (!e) goto fail_nomem;
  if (set < 0) { cl1_err_set(err, "shapes: '%s' is not test, small or large", shapes ? shapes : ""); goto fail; }
  if (backend && !strcmp(backend, "cuda")) b = CL1_BACKEND_CUDA;
  else if (!backend || strcmp(backend, "host")) {
    cl1_err_set(err, "backend: '%s' is not host or cuda", backend ? backend : "");
    goto fail;
  }
  if (cl1_task_find(cl1_suite_root(), task, tdir, sizeof tdir, err) ||
      cl1_task_load(tdir, &e->task, err) || cl1_task_instance(e->task, set, &e->inst, err))
    goto fail;
  snprintf(ref, sizeof ref, "%s", e->task->reference);
  /* Loaded as build/libcudal1.so (ctypes): the op libraries sit beside it, wherever the calling
     program lives. Linked statically into a program, the usual search from the program's dir. */
  char ops_dir[4096] = "";
  Dl_info self;
  size_t fl;
  if (dladdr((void *)(uintptr_t)cl1_embed_open, &self) && self.dli_fname &&
      (fl = strlen(self.dli_fname)) > 3 && !strcmp(self.dli_fname + fl - 3, ".so")) {
    snprintf(ops_dir, sizeof ops_dir, "%s", self.dli_fname);
    char *slash = strrchr(ops_dir, '/');
    if (slash) *slash = 0; else ops_dir[0] = 0;
  }
  cl1_compile_opts co = {.backend = b, .ops_dir = ops_dir[0] ? ops_dir : NULL};
  cl1_compile_result cr;
  int crc = cl1_compile_file(ref, &co, &cr, err);
  if (crc) {
    if (crc > 0) cl1_err_set(err, "%s did not compile: %s", ref, cr.diag);
    goto fail;
  }
  if (cl1_dev_open(b, &e->dev, err)) goto fail;
  e->dev_open = true;
  e->lib = dlopen(cr.so_path, RTLD_NOW | RTLD_LOCAL);
  if (!e->lib) { cl1_err_set(err, "cannot load %s: %s", cr.so_path, dlerror()); goto fail; }
  e->forward = (forward_fn)(uintptr_t)dlsym(e->lib, "cl1_forward");
  e->setup = (setup_fn)(uintptr_t)dlsym(e->lib, "cl1_setup");
  e->teardown = (teardown_fn)(uintptr_t)dlsym(e->lib, "cl1_teardown");
  if (!e->forward) { cl1_err_set(err, "%s does not export cl1_forward", ref); goto fail; }
  e->json = describe(e, set);
  if (!e->json) goto fail_nomem;
  e->call = (cl1_call){.n_inputs = e->inst.n_inputs, .inputs = e->in_t,
                       .n_params = e->inst.n_params, .params = e->par_t,
                       .n_outputs = e->inst.n_outputs, .outputs = e->out_t,
                       .n_attrs = e->inst.n_attrs, .attrs = e->inst.attrs};
  return e;
fail_nomem:
  if (errbuf && cap) snprintf(errbuf, cap, "out of memory");
  cl1_embed_close(e);
  return NULL;
fail:
  if (errbuf && cap) snprintf(errbuf, cap, "%s", e->err.msg);
  cl1_embed_close(e);
  return NULL;
}

const char *cl1_embed_describe(const cl1_embed *e) { return e->json; }
const char *cl1_embed_error(const cl1_embed *e) { return e->err.msg; }

int cl1_embed_gen(cl1_embed *e, int group, int idx, void *dst, uint64_t seed) {
  int n = group == 0 ? e->inst.n_inputs : group == 1 ? e->inst.n_params : -1;
  if (idx < 0 || idx >= n) return cl1_err_set(&e->err, "gen: no tensor %d in group %d", idx, group);
  const cl1_tinst *t = group == 0 ? &e->inst.inputs[idx] : &e->inst.params[idx];
  uint32_t tid = group == 0 ? cl1_tensor_id_input(idx) : cl1_tensor_id_param(idx);
  if (e->dev.gen(&e->dev, t, dst, group == 0 ? seed + 1 : seed, tid, &e->err)) return -1;
  return e->dev.sync(&e->dev, &e->err);
}

static void drop_state(cl1_embed *e) {
  if (e->have_state && e->teardown) e->teardown(e->state);
  e->have_state = false;
  e->state = NULL;
}

int cl1_embed_setup(cl1_embed *e, void *const *params, void *const *outputs, void *stream) {
  drop_state(e);
  e->bound = false;
  for (int i = 0; i < e->inst.n_params; i++) cl1_tensor_of(&e->par_t[i], &e->inst.params[i], params[i]);
  for (int i = 0; i < e->inst.n_outputs; i++) cl1_tensor_of(&e->out_t[i], &e->inst.outputs[i], outputs[i]);
  for (int i = 0; i < e->inst.n_inputs; i++) cl1_tensor_of(&e->in_t[i], &e->inst.inputs[i], NULL);
  e->call.stream = stream ? stream : e->dev.stream;
  e->call.state = NULL;
  if (e->setup) {
    int rc = e->setup(&e->call, &e->state);
    e->have_state = true;
    if (rc) return cl1_err_set(&e->err, "the reference's cl1_setup returned %d", rc);
    if (e->dev.sync(&e->dev, &e->err)) return cl1_err_wrap(&e->err, "after cl1_setup");
  }
  e->call.state = e->state;
  e->bound = true;
  return 0;
}

int cl1_embed_forward(cl1_embed *e, void *const *inputs) {
  if (!e->bound) return cl1_err_set(&e->err, "forward before a successful setup");
  for (int i = 0; i < e->inst.n_inputs; i++) cl1_tensor_of(&e->in_t[i], &e->inst.inputs[i], inputs[i]);
  int rc = e->forward(&e->call);
  return rc ? cl1_err_set(&e->err, "the reference's cl1_forward returned %d", rc) : 0;
}

int cl1_embed_sync(cl1_embed *e) { return e->dev.sync(&e->dev, &e->err); }

int cl1_embed_alloc(cl1_embed *e, size_t bytes, void **out) {
  return e->dev.alloc(&e->dev, bytes ? bytes : 1, out, &e->err);
}

void cl1_embed_free(cl1_embed *e, void *p) {
  if (p) e->dev.free(&e->dev, p);
}

int cl1_embed_to_host(cl1_embed *e, void *host, const void *src, size_t bytes) {
  return bytes ? e->dev.to_host(&e->dev, host, src, bytes, &e->err) : 0;
}

const struct cl1_inst *cl1_embed_inst(const cl1_embed *e) { return (const struct cl1_inst *)&e->inst; }

void cl1_embed_close(cl1_embed *e) {
  if (!e) return;
  drop_state(e);
  if (e->dev_open) e->dev.close(&e->dev);
  /* the reference library stays loaded: ops libraries keep process-global handles */
  free(e->json);
  cl1_task_free(e->task);
  free(e);
}
