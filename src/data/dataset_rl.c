/* dataset_rl.c — `cudal1 dataset rl`: one prompt row per task (or per task and index) for GRPO,
 * the contrastive prompt with exemplars from the store as `optimize` would show them. The rows
 * carry the task id, which the reward (`cudal1 serve`) needs to evaluate a completion: TRL passes
 * the `task` column to the reward function, verl passes reward_model.ground_truth. */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "dataset.h"
#include "../loop/prompt.h"

static cJSON *rl_row(const cl1_dataset_rl_opts *o, const char *task, int idx, const char *sys,
                     const char *usr, const char *ids_json) {
  char pid[17];
  cl1_prompt_id(sys, usr, pid);
  cJSON *j = cJSON_CreateObject(), *ids = cJSON_Parse(ids_json ? ids_json : "[]");
  if (!j || !ids) {
    cJSON_Delete(j), cJSON_Delete(ids);
    return NULL;
  }
  if (o->format == CL1_DATASET_VERL) {
    cJSON_AddStringToObject(j, "data_source", "cudal1");
    cJSON_AddItemToObject(j, "prompt", cl1_prompt_messages(sys, usr));
    cJSON_AddStringToObject(j, "ability", o->device);
    cJSON *rm = cJSON_AddObjectToObject(j, "reward_model");
    cJSON_AddStringToObject(rm, "style", "rule");
    cJSON_AddStringToObject(rm, "ground_truth", task);
    cJSON *x = cJSON_AddObjectToObject(j, "extra_info");
    cJSON_AddStringToObject(x, "task", task);
    cJSON_AddStringToObject(x, "prompt_id", pid);
    cJSON_AddNumberToObject(x, "index", idx);
    cJSON_AddItemToObject(x, "exemplar_ids", ids);
  } else {
    cJSON_AddItemToObject(j, "prompt", cl1_prompt_messages(sys, usr));
    cJSON_AddStringToObject(j, "task", task);
    cJSON_AddStringToObject(j, "prompt_id", pid);
    cJSON_AddItemToObject(j, "exemplar_ids", ids);
  }
  return j;
}

int cl1_dataset_rl(const cl1_dataset_rl_opts *o, char **out, int *rows, cl1_err *err) {
  *out = NULL;
  *rows = 0;
  if (o->n < 1) return cl1_err_set(err, "--n: at least one row per task");
  cl1_dataset_buf b = {0};
  int rc = 0;
  for (int t = 0; !rc && t < o->n_tasks; t++) {
    for (int i = 0; !rc && i < o->n; i++) {
      char *sys = NULL, *usr = NULL, *ids = NULL;
      cl1_prompt_req req = {.in = {.task = o->tasks[t], .device = o->device, .shapes = o->shapes,
                                   .template_path = o->template_path},
                            .store = o->store, .k = o->exemplars, .tau = o->tau, .seed = o->seed,
                            .stream = (uint64_t)i + 1};
      rc = cl1_prompt_for_task(&req, &sys, &usr, &ids, err);
      cJSON *j = rc ? NULL : rl_row(o, o->tasks[t]->id, i, sys, usr, ids);
      if (!rc && !j) rc = cl1_err_set(err, "out of memory");
      if (!rc) rc = cl1_dataset_put_row(&b, j, err);
      if (!rc) (*rows)++;
      cJSON_Delete(j);
      free(sys), free(usr), free(ids);
    }
  }
  if (rc) {
    free(b.text);
    return -1;
  }
  *out = b.text ? b.text : strdup("");
  return *out ? 0 : cl1_err_set(err, "out of memory");
}
