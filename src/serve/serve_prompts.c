/* serve_prompts.c — POST /v1/prompts: contrastive prompts for a trainer that refreshes its
 * prompts as training finds faster code. The same prompt builder as `cudal1 optimize` and
 * `cudal1 dataset rl` (cl1_prompt_for_task): exemplars drawn from the store's passing solutions
 * of this service's backend and shapes, so a prompt row here and one in a dataset file read the
 * same and carry the same prompt_id. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "serve_int.h"
#include "../loop/prompt.h"

/* A whole number of the request in [lo, hi] (absent: dflt); false with msg naming the field. */
static bool int_field(const cJSON *req, const char *key, long lo, long hi, long dflt, long *out,
                      char *msg, size_t n) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);
  *out = dflt;
  if (!v) return true;
  if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
      v->valuedouble > hi) {
    snprintf(msg, n, "%s: expected a whole number in [%ld, %ld]", key, lo, hi);
    return false;
  }
  *out = (long)v->valuedouble;
  return true;
}

/* One task's n prompts appended to out; false with msg on a failure to build one. */
static bool task_prompts(cl1_serve *svc, const cl1_serve_task *st, long n, long k, double tau,
                         long seed, cl1_format fmt, cJSON *out, char *msg, size_t msg_n) {
  cl1_task *task = NULL;
  cl1_err err = {{0}};
  if (cl1_task_load(st->dir, &task, &err)) {
    snprintf(msg, msg_n, "task %s: %s", st->id, err.msg);
    return false;
  }
  bool ok = true;
  for (long i = 0; ok && i < n; i++) {
    char *sys = NULL, *usr = NULL, *ids = NULL, pid[17];
    cl1_prompt_req req = {.in = {.task = task, .device = cl1_backend_name(svc->o->eval.backend),
                                 .shapes = cl1_shapes_name(svc->o->eval.shapes), .format = fmt},
                          .store = svc->store, .k = (int)k, .tau = tau, .seed = (uint64_t)seed,
                          .stream = (uint64_t)i + 1};
    if (cl1_prompt_for_task(&req, &sys, &usr, &ids, &err)) {
      snprintf(msg, msg_n, "task %s: %s", st->id, err.msg);
      ok = false;
      break;
    }
    cl1_prompt_id(sys, usr, pid);
    cJSON *row = cJSON_CreateObject();
    cJSON_AddStringToObject(row, "task", st->id);
    cJSON_AddStringToObject(row, "prompt_id", pid);
    cJSON_AddNumberToObject(row, "index", (double)i);
    cJSON_AddItemToObject(row, "messages", cl1_prompt_messages(sys, usr));
    cJSON *ex = ids ? cJSON_Parse(ids) : NULL;
    cJSON_AddItemToObject(row, "exemplar_ids", ex ? ex : cJSON_CreateArray());
    cJSON_AddItemToArray(out, row);
    free(sys), free(usr), free(ids);
  }
  cl1_task_free(task);
  return ok;
}

cJSON *cl1_serve_prompts(cl1_serve *svc, const cJSON *req, unsigned *status, char *msg,
                         size_t msg_n) {
  *status = 400;
  const cJSON *tasks = cJSON_GetObjectItemCaseSensitive(req, "tasks");
  int nt = cJSON_IsArray(tasks) ? cJSON_GetArraySize(tasks) : -1;
  if (nt < 1) {
    snprintf(msg, msg_n, "tasks: %s", nt < 0 ? "missing (an array of suite ids)" : "empty");
    return NULL;
  }
  long n, k, seed;
  if (nt > svc->o->max_items) {
    snprintf(msg, msg_n, "tasks: %d, more than --max-items %d", nt, svc->o->max_items);
    return NULL;
  }
  if (!int_field(req, "n", 1, 64, 1, &n, msg, msg_n) ||
      !int_field(req, "exemplars", 0, CL1_PROMPT_MAX_EXEMPLARS, 2, &k, msg, msg_n) ||
      !int_field(req, "seed", 0, 1L << 52, 1, &seed, msg, msg_n))
    return NULL;
  const cJSON *tv = cJSON_GetObjectItemCaseSensitive(req, "tau");
  double tau = cJSON_IsNumber(tv) ? tv->valuedouble : 1.0;
  if (tv && (!cJSON_IsNumber(tv) || !(tau > 0) || !isfinite(tau))) {
    snprintf(msg, msg_n, "tau: expected a number > 0");
    return NULL;
  }
  const cJSON *fv = cJSON_GetObjectItemCaseSensitive(req, "format");
  cl1_format fmt = CL1_FORMAT_CABI;
  if (fv && (!cJSON_IsString(fv) || cl1_format_parse(fv->valuestring, &fmt))) {
    snprintf(msg, msg_n, "format: expected cabi or kernelbench");
    return NULL;
  }
  const cl1_serve_task **st = calloc((size_t)nt, sizeof *st);
  if (!st) {
    *status = 500;
    snprintf(msg, msg_n, "out of memory");
    return NULL;
  }
  for (int i = 0; i < nt; i++) {
    const cJSON *t = cJSON_GetArrayItem(tasks, i);
    char why[400];
    if (!cJSON_IsString(t)) {
      snprintf(msg, msg_n, "tasks[%d]: expected a suite id", i);
      free(st);
      return NULL;
    }
    if (!(st[i] = cl1_serve_task_get(svc, t->valuestring, why, sizeof why))) {
      snprintf(msg, msg_n, "tasks[%d]: %s", i, why);
      free(st);
      return NULL;
    }
  }
  cJSON *doc = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(doc, "prompts");
  *status = 200;
  for (int i = 0; i < nt && *status == 200; i++)
    if (!task_prompts(svc, st[i], n, k, tau, seed, fmt, rows, msg, msg_n)) *status = 500;
  free(st);
  if (*status == 200) return doc;
  cJSON_Delete(doc);
  return NULL;
}
