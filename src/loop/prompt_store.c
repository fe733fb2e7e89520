/* prompt_store.c — the optimizer's prompt for a task with its exemplars drawn from the store
 * (prompt.h: cl1_prompt_for_task). One function for every caller — the optimize loop, the
 * datasets, the reward service — so a model is trained and served on the very prompt text the
 * loop shows it, and the same seed picks the same exemplars everywhere. */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "exemplar.h"
#include "prompt.h"
#include "../base/hash.h"
#include "../store/store.h"

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

int cl1_prompt_for_task(const cl1_prompt_req *r, char **system, char **user, char **ids_json,
                        cl1_err *err) {
  if (!r || !r->in.task || !system || !user) return cl1_err_set(err, "prompt: no task given");
  *system = *user = NULL;
  if (ids_json) *ids_json = NULL;
  const char *task_id = r->in.task->id;
  int k = r->store ? r->k : 0;
  if (k < 0 || k > CL1_PROMPT_MAX_EXEMPLARS)
    return cl1_err_set(err, "prompt for %s: %d exemplars (0 to %d can be shown)", task_id, k,
                       CL1_PROMPT_MAX_EXEMPLARS);
  cl1_store_success *rows = NULL;
  int n = 0, rc = -1;
  if (k && cl1_store_successes(r->store, task_id, r->in.device, r->in.shapes, &rows, &n, err))
    return -1;
  double *sp = calloc((size_t)n + 1, sizeof *sp);
  int *row = calloc((size_t)n + 1, sizeof *row); /* the rows in the prompt's format */
  int *pick = calloc((size_t)k + 1, sizeof *pick);
  cl1_exemplar *ex = calloc((size_t)k + 1, sizeof *ex);
  cJSON *ids = cJSON_CreateArray();
  if (!sp || !row || !pick || !ex || !ids) { cl1_err_set(err, "out of memory"); goto out; }
  /* a solution of the other format is no example of the file asked for */
  int m = 0;
  for (int i = 0; i < n; i++)
    if (cl1_format_of_source(rows[i].source) == r->in.format) sp[m] = rows[i].speedup, row[m++] = i;
  cl1_exemplar_rng rng = {r->seed ^ fnv1a(task_id) ^ (r->stream << 48), 0};
  int got = m ? cl1_exemplar_pick(sp, m, k, r->tau, cl1_exemplar_rng_u01, &rng, pick, err) : 0;
  if (got < 0) goto out;
  for (int i = 0; i < got; i++) {
    const cl1_store_success *w = &rows[row[pick[i]]];
    ex[i] = (cl1_exemplar){w->source, w->speedup, w->solution_id};
    cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)w->solution_id));
  }
  cl1_prompt_in in = r->in;
  in.exemplars = ex;
  in.n_exemplars = got;
  if (cl1_prompt_build(&in, system, user, err)) goto out;
  if (ids_json && !(*ids_json = cJSON_PrintUnformatted(ids))) {
    free(*system), free(*user);
    *system = *user = NULL;
    cl1_err_set(err, "out of memory");
    goto out;
  }
  rc = 0;
out:
  cJSON_Delete(ids);
  free(sp);
  free(row);
  free(pick);
  free(ex);
  cl1_store_successes_free(rows, n);
  return rc;
}

void cl1_prompt_id(const char *system, const char *user, char out[17]) {
  cl1_sha *h = cl1_sha_new();
  char hex[65] = "";
  if (h) {
    cl1_sha_add_str(h, system); /* with its NUL: ("ab","c") and ("a","bc") differ */
    cl1_sha_add_str(h, user);
    cl1_sha_hex(h, hex);
  }
  memcpy(out, hex, 16);
  out[16] = 0;
}

struct cJSON *cl1_prompt_messages(const char *system, const char *user) {
  cJSON *a = cJSON_CreateArray();
  const char *roles[2] = {"system", "user"}, *texts[2] = {system, user};
  for (int i = 0; a && i < 2; i++) {
    cJSON *m = cJSON_CreateObject();
    if (!m || !cJSON_AddStringToObject(m, "role", roles[i]) ||
        !cJSON_AddStringToObject(m, "content", texts[i])) {
      cJSON_Delete(m);
      cJSON_Delete(a);
      return NULL;
    }
    cJSON_AddItemToArray(a, m);
  }
  return a;
}
