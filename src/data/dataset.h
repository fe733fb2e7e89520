/* dataset.h — the store turned into training data, as JSONL files the training engines read:
 * `cudal1 dataset sft` (passing solutions as chat rows for supervised fine-tuning: TRL's
 * SFTTrainer, CUDA-L1's stage 1) and `cudal1 dataset rl` (one prompt row per task for GRPO: TRL's
 * GRPOTrainer, or verl's row layout). Prompts come from the optimizer's own builder
 * (cl1_prompt_for_task), so a model is trained on the text the loop and the service show it.
 * Functions render whole files in memory; the command writes them atomically. */
#ifndef CL1_DATASET_H
#define CL1_DATASET_H
#include <stdbool.h>
#include <stdint.h>
#include "../base/err.h"
#include "../store/store.h"
#include "../task/task.h"

typedef enum {
  CL1_DATASET_MESSAGES,           /* sft: {"messages":[system,user,assistant], ...} */
  CL1_DATASET_PROMPT_COMPLETION,  /* sft: {"prompt":[system,user],"completion":[assistant], ...} */
  CL1_DATASET_TRL,                /* rl:  {"prompt":[system,user],"task","prompt_id", ...} */
  CL1_DATASET_VERL                /* rl:  verl's data_source/prompt/ability/reward_model/extra_info */
} cl1_dataset_format;

/* Opens an existing store (a missing file is an error naming it: never an empty store created by
 * a typo). */
int cl1_dataset_open_store(const char *path, cl1_store **out, cl1_err *err);

/* ---- sft ---------------------------------------------------------------------------------- */

typedef struct {
  cl1_store *store;
  char *const *tasks;         /* the task ids to export (the suite's), sorted, distinct */
  int n_tasks;
  const char *device;         /* "cuda" | "host": the solutions' backend */
  const char *shapes;         /* the shape set their passing evaluation was measured at */
  const char *template_path;  /* NULL: the default prompt */
  double min_speedup;         /* rows below it are left out; 0: none */
  double split;               /* 0: all to train; in (0, 1): that fraction of the tasks to eval */
  uint64_t seed;              /* which tasks the split holds out; the exemplars' pick */
  cl1_dataset_format format;  /* MESSAGES | PROMPT_COMPLETION */
  int exemplars;              /* > 0: each solution twice, the second time under a contrastive
                               * prompt with up to this many of the task's passing solutions */
  int exemplar_rows;          /* with exemplars: up to this many contrastive rows per solution,
                               * each with another pick of exemplars (0 or 1: one row) */
  double tau;                 /* their pick's temperature (0: 1) */
} cl1_dataset_sft_opts;

typedef struct {
  int train_rows, train_tasks, eval_rows, eval_tasks;
  int below_min;              /* passing solutions left out by min_speedup */
} cl1_dataset_sft_stats;

/* One row per passing solution of o->device at o->shapes (verdict pass only: never a hack, a
 * failure or an infrastructure error), at the speedup of its latest passing evaluation. The store
 * keeps one solution per (task, backend, SHA-256 of the code), so code stored twice is one row.
 * The user message is the task's round-1 prompt (no exemplars); with o->exemplars each solution
 * has a second row under stage 3's contrastive prompt (with "exemplar_ids"), or up to
 * o->exemplar_rows such rows, each with a distinct set of exemplars. The assistant
 * message holds the code in the "Code Implementation" section's fenced block, so the optimizer's
 * reply parser gets the code back byte for byte. Rows sorted by task id, speedup (highest
 * first), solution id.
 * *train and *eval (NULL when o->split is 0) are malloc'd JSONL. Nothing passing: an error. */
int cl1_dataset_sft(const cl1_dataset_sft_opts *o, char **train, char **eval,
                    cl1_dataset_sft_stats *st, cl1_err *err);

/* The tasks the split holds out: the n_eval = round(split * n) (at least 1 and at most n - 1 when
 * n >= 2) whose SHA-256 of (seed, task id) sorts lowest. A task's side depends only on the seed,
 * its id and the number of tasks, never on the rows. eval[i] is set for the held-out ids[i]. */
int cl1_dataset_split(char *const *ids, int n, double split, uint64_t seed, bool *eval,
                      cl1_err *err);

/* ---- rl ----------------------------------------------------------------------------------- */

typedef struct {
  cl1_task *const *tasks;     /* loaded tasks, rows in this order */
  int n_tasks;
  cl1_store *store;           /* NULL: no exemplars (plain prompts) */
  int exemplars, n;           /* exemplars per prompt (0..26); rows per task (>= 1) */
  double tau;                 /* the exemplar sampler's temperature (> 0) */
  uint64_t seed;
  const char *device, *shapes, *template_path;
  cl1_dataset_format format;  /* TRL | VERL */
} cl1_dataset_rl_opts;

/* One prompt row per task and index 0..n-1; row i's exemplars are picked from stream i + 1 of
 * the optimizer's sampler (round i + 1's draw). prompt_id: the first 16 hex digits of the
 * SHA-256 of the system and user messages (the same prompt, the same id). *out: malloc'd JSONL. */
int cl1_dataset_rl(const cl1_dataset_rl_opts *o, char **out, int *rows, cl1_err *err);

/* ---- shared by both (dataset.c) ----------------------------------------------------------- */

/* A chat message object {"role","content"} added to the array. */
void cl1_dataset_msg(void *cjson_array, const char *role, const char *content);
/* A growing JSONL text: each row printed unformatted on its own line. */
typedef struct {
  char *text;
  size_t len, cap;
} cl1_dataset_buf;
int cl1_dataset_put_row(cl1_dataset_buf *b, void *cjson_row, cl1_err *err);

#endif
