/* dataset_sft.c — `cudal1 dataset sft`: the store's passing solutions as chat rows for supervised
 * fine-tuning (CUDA-L1's stage 1 trains on correct variants), optionally split by task into a
 * held-out file so no task's prompt is seen in both. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "dataset.h"
#include "../base/hash.h"
#include "../loop/prompt.h"

typedef struct {
  const char *task;  /* o->tasks' */
  int64_t sol;
  double speedup;
  char *code;
  int tix;           /* index into the task list */
} row;

static int cmp_row(const void *pa, const void *pb) {
  const row *a = pa, *b = pb;
  int c = strcmp(a->task, b->task);
  if (c) return c;
  if (a->speedup != b->speedup) return a->speedup > b->speedup ? -1 : 1;
  return (a->sol > b->sol) - (a->sol < b->sol);
}

typedef struct {
  char hex[65];
  int i;
} keyed;

static int cmp_key(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  int c = strcmp(a->hex, b->hex);
  return c ? c : a->i - b->i;
}

int cl1_dataset_split(char *const *ids, int n, double split, uint64_t seed, bool *eval,
                      cl1_err *err) {
  for (int i = 0; i < n; i++) eval[i] = false;
  if (!(split > 0) || n < 2) return 0;
  keyed *k = calloc((size_t)n, sizeof *k);
  if (!k) return cl1_err_set(err, "out of memory");
  char s[32];
  snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
  for (int i = 0; i < n; i++) {
    cl1_sha *h = cl1_sha_new();
    if (!h) {
      free(k);
      return cl1_err_set(err, "out of memory");
    }
    cl1_sha_add_str(h, s);
    cl1_sha_add_str(h, ids[i]);
    cl1_sha_hex(h, k[i].hex);
    k[i].i = i;
  }
  qsort(k, (size_t)n, sizeof *k, cmp_key);
  int n_eval = (int)floor(split * n + 0.5);
  if (n_eval < 1) n_eval = 1;
  if (n_eval > n - 1) n_eval = n - 1;
  for (int j = 0; j < n_eval; j++) eval[k[j].i] = true;
  free(k);
  return 0;
}

/* The reply the model learns to write: the answer format's last section, its one code block
 * fenced longer than any backtick run inside the code (as the prompt fences exemplars). */
static char *assistant_reply(const char *code, bool host) {
  int run = 0, longest = 0;
  for (const char *p = code; *p; p++) {
    run = *p == '`' ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  int fence = longest + 1 < 3 ? 3 : longest + 1;
  size_t n = strlen(code);
  while (n && (code[n - 1] == '\n' || code[n - 1] == '\r')) n--;
  size_t cap = n + 2 * (size_t)fence + 64;
  char *out = malloc(cap), *p = out;
  if (!out) return NULL;
  p += sprintf(p, "## Code Implementation\n\n");
  for (int i = 0; i < fence; i++) *p++ = '`';
  p += sprintf(p, "%s\n", host ? "c" : "cuda");
  memcpy(p, code, n);
  p += n;
  *p++ = '\n';
  for (int i = 0; i < fence; i++) *p++ = '`';
  *p++ = '\n';
  *p = 0;
  return out;
}

static int put_sft_row(const cl1_dataset_sft_opts *o, const row *r, const char *sys,
                       const char *usr, const char *exemplar_ids, cl1_dataset_buf *b,
                       cl1_err *err) {
  char *reply = assistant_reply(r->code, !strcmp(o->device, "host"));
  cJSON *j = cJSON_CreateObject();
  if (!reply || !j) {
    free(reply);
    cJSON_Delete(j);
    return cl1_err_set(err, "out of memory");
  }
  /* the prompt as the service and the RL rows give it; the reply after it or beside it */
  cJSON *prompt = cl1_prompt_messages(sys, usr);
  if (o->format == CL1_DATASET_MESSAGES) {
    cJSON_AddItemToObject(j, "messages", prompt);
    cl1_dataset_msg(prompt, "assistant", reply);
  } else {
    cJSON_AddItemToObject(j, "prompt", prompt);
    cl1_dataset_msg(cJSON_AddArrayToObject(j, "completion"), "assistant", reply);
  }
  cJSON_AddStringToObject(j, "task", r->task);
  cJSON_AddNumberToObject(j, "speedup", r->speedup);
  cJSON_AddNumberToObject(j, "solution_id", (double)r->sol);
  if (exemplar_ids) {
    cJSON *ids = cJSON_Parse(exemplar_ids);
    if (!ids || !cJSON_AddItemToObject(j, "exemplar_ids", ids)) {
      cJSON_Delete(ids);
      cJSON_Delete(j);
      free(reply);
      return cl1_err_set(err, "out of memory");
    }
  }
  int rc = cl1_dataset_put_row(b, j, err);
  cJSON_Delete(j);
  free(reply);
  return rc;
}

/* Appends task ids[t]'s passing C ABI solutions at or above min_speedup to *rows. */
static int collect(const cl1_dataset_sft_opts *o, char *const *ids, int t, row **rows, int *n, int *cap,
                   cl1_dataset_sft_stats *st, cl1_err *err) {
  cl1_store_success *s = NULL;
  int k = 0;
  if (cl1_store_successes(o->store, ids[t], o->device, o->shapes, &s, &k, err)) return -1;
  for (int i = 0; i < k; i++) {
    /* the rows' prompt asks for the C ABI: a KernelBench module is no answer to it */
    if (cl1_format_of_source(s[i].source) != CL1_FORMAT_CABI) continue;
    if (s[i].speedup < o->min_speedup) {
      st->below_min++;
      continue;
    }
    if (*n == *cap) {
      int c = *cap ? 2 * *cap : 64;
      row *g = realloc(*rows, (size_t)c * sizeof *g);
      if (!g) {
        cl1_store_successes_free(s, k);
        return cl1_err_set(err, "out of memory");
      }
      *rows = g, *cap = c;
    }
    (*rows)[(*n)++] = (row){ids[t], s[i].solution_id, s[i].speedup, s[i].source, t};
    s[i].source = NULL; /* moved into the row */
  }
  cl1_store_successes_free(s, k);
  return 0;
}

/* Task id from the suite into *ref; 0, or -1 with err naming it. */
static int resolve(const char *id, cl1_task_ref *ref, cl1_err *err) {
  memset(ref, 0, sizeof *ref);
  int rc = cl1_task_resolve(cl1_suite_root(), id, ref, err);
  if (rc == 1)
    return cl1_err_set(err, "task %s (in the store) is not in the suite at %s", id,
                       cl1_suite_root());
  return rc ? -1 : 0;
}

/* Task t's prompt: the optimizer's builder with no exemplars (k 0: the round-1 prompt) or with up
 * to k of the store's passing solutions (the contrastive prompt stage 3 shows; stream varies the
 * pick between rows); *ids the exemplars' solution ids (JSON) when k > 0. */
static int task_prompt(const cl1_dataset_sft_opts *o, const cl1_task *t, int k, uint64_t stream,
                       char **sys, char **usr, char **ids, cl1_err *err) {
  cl1_prompt_req req = {.in = {.task = t, .device = o->device, .shapes = o->shapes,
                               .template_path = o->template_path},
                        .store = k ? o->store : NULL, .k = k, .tau = o->tau > 0 ? o->tau : 1.0,
                        .seed = o->seed, .stream = stream};
  return cl1_prompt_for_task(&req, sys, usr, k ? ids : NULL, err);
}

/* Streams tried per contrastive row wanted: picks repeat (a task with two solutions has two
 * exemplar sets for k = 1), so a solution gets fewer rows than asked when fewer sets exist. */
#define CL1_SFT_PICK_TRIES 8

/* Row i again under contrastive prompts, so a model meets stage 3's prompt format in training:
 * up to o->exemplar_rows of them (at least one), each showing another set of exemplars. Why
 * several: on the H100 (train-demo-3rounds, 2026-12-07) a model trained on one exemplar set
 * per solution answered each contrastive prompt with the one solution it had seen under it, and
 * some of those prompts with broken text every time: GRPO's groups there held eight failures
 * (no advantage), and no group held both of a task's solutions to choose between. */
static int put_contrastive_rows(const cl1_dataset_sft_opts *o, const cl1_task *t, const row *r,
                                int i, cl1_dataset_buf *b, int *n_rows, cl1_err *err) {
  int want = o->exemplar_rows > 1 ? o->exemplar_rows : 1, got = 0, rc = 0;
  char **seen = calloc((size_t)want, sizeof *seen);
  if (!seen) return cl1_err_set(err, "out of memory");
  /* row i's first stream is i + 1, as with one row (those files stay as they were); the picker
   * keeps a stream's low 16 bits, where an odd step gives each try of a row another stream */
  for (int a = 0; !rc && got < want && a < want * CL1_SFT_PICK_TRIES; a++) {
    uint64_t stream = (uint64_t)(i + 1) + (uint64_t)a * 4099u;
    char *sys = NULL, *usr = NULL, *ids = NULL;
    rc = task_prompt(o, t, o->exemplars, stream, &sys, &usr, &ids, err);
    assert(rc || ids); /* k > 0: the builder always says which exemplars it showed */
    bool dup = false;
    for (int j = 0; !rc && j < got && !dup; j++) dup = !strcmp(seen[j], ids);
    if (!rc && !dup) rc = put_sft_row(o, r, sys, usr, ids, b, err);
    if (!rc && !dup) seen[got++] = ids, ids = NULL;
    free(sys), free(usr), free(ids);
  }
  for (int j = 0; j < got; j++) free(seen[j]);
  free(seen);
  *n_rows += got;
  return rc;
}

static int render(const cl1_dataset_sft_opts *o, int n_ids, row *rows, int n,
                  const bool *held, cl1_dataset_buf *train, cl1_dataset_buf *eval,
                  cl1_dataset_sft_stats *st, cl1_err *err) {
  char *sys = NULL, *usr = NULL;
  int cur = -1, rc = 0;
  cl1_task_ref ref = {0};
  bool have_ref = false, contrastive = o->exemplars > 0;
  bool *seen = calloc((size_t)n_ids + 1, sizeof *seen);
  if (!seen) return cl1_err_set(err, "out of memory");
  for (int i = 0; !rc && i < n; i++) {
    if (rows[i].tix != cur) {
      free(sys), free(usr);
      sys = usr = NULL;
      if (have_ref) cl1_task_ref_release(&ref);
      cur = rows[i].tix;
      if ((rc = resolve(rows[i].task, &ref, err))) break;
      have_ref = true;
      if ((rc = task_prompt(o, ref.task, 0, 0, &sys, &usr, NULL, err))) break;
    }
    bool ev = held[cur];
    cl1_dataset_buf *b = ev ? eval : train;
    int n_rows = 1;
    rc = put_sft_row(o, &rows[i], sys, usr, NULL, b, err);
    if (!rc && contrastive) rc = put_contrastive_rows(o, ref.task, &rows[i], i, b, &n_rows, err);
    *(ev ? &st->eval_rows : &st->train_rows) += n_rows;
    if (!seen[cur]) *(ev ? &st->eval_tasks : &st->train_tasks) += 1;
    seen[cur] = true;
  }
  if (have_ref) cl1_task_ref_release(&ref);
  free(sys), free(usr), free(seen);
  return rc;
}

int cl1_dataset_sft(const cl1_dataset_sft_opts *o, char **train, char **eval,
                    cl1_dataset_sft_stats *st, cl1_err *err) {
  *train = NULL;
  if (eval) *eval = NULL;
  memset(st, 0, sizeof *st);
  char *const *ids = o->tasks;
  int n_ids = o->n_tasks, n = 0, cap = 0, rc = -1;
  row *rows = NULL;
  bool *held = NULL;
  cl1_dataset_buf tb = {0}, eb = {0};
  for (int t = 1; t < n_ids; t++) /* rows sort by task id: the split's sides follow the ids */
    if (strcmp(ids[t - 1], ids[t]) >= 0)
      return cl1_err_set(err, "dataset: task ids not sorted and distinct: %s, %s", ids[t - 1],
                         ids[t]);
  for (int t = 0; t < n_ids; t++)
    if (collect(o, ids, t, &rows, &n, &cap, st, err)) goto out;
  if (!n) {
    cl1_err_set(err, "%s: no passing %s solution at shapes %s%s", cl1_store_path(o->store),
                o->device, o->shapes, st->below_min ? " at or above --min-speedup" : "");
    goto out;
  }
  qsort(rows, (size_t)n, sizeof *rows, cmp_row);
  /* the split is over the tasks that have rows, so --min-speedup cannot empty a side */
  char **kept = calloc((size_t)n_ids + 1, sizeof *kept);
  int *where = calloc((size_t)n_ids + 1, sizeof *where);
  bool *kheld = calloc((size_t)n_ids + 1, sizeof *kheld);
  held = calloc((size_t)n_ids + 1, sizeof *held);
  int nk = 0;
  if (kept && where && kheld && held) {
    for (int i = 0; i < n; i++)
      if (!i || rows[i].tix != rows[i - 1].tix) where[nk] = rows[i].tix, kept[nk++] = ids[rows[i].tix];
    rc = cl1_dataset_split(kept, nk, eval ? o->split : 0, o->seed, kheld, err);
    for (int j = 0; !rc && j < nk; j++) held[where[j]] = kheld[j];
  } else {
    rc = cl1_err_set(err, "out of memory");
  }
  free(kept), free(where), free(kheld);
  if (!rc) rc = render(o, n_ids, rows, n, held, &tb, &eb, st, err);
  if (!rc) {
    *train = tb.text ? tb.text : strdup("");
    if (eval) *eval = eb.text ? eb.text : strdup("");
    tb.text = eb.text = NULL;
    if (!*train || (eval && !*eval)) rc = cl1_err_set(err, "out of memory");
  }
out:
  free(tb.text), free(eb.text), free(held);
  for (int i = 0; i < n; i++) free(rows[i].code);
  free(rows);
  return rc;
}
