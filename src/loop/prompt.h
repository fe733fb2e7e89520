/* prompt.h — CUDA-L1's contrastive prompt: the task (description, PyTorch twin, C reference,
 * shapes, tolerance), the solution ABI and its rules, and earlier solutions with their measured
 * speedups, rendered from a template file users can replace, as a system and a user message.
 *
 * Template syntax (prompts/contrastive.txt is the default and the example):
 *   === system ===        a line alone: the system message follows
 *   === user ===          a line alone: the user message follows (both required, in this order;
 *                         before "=== system ===" only comments and blank lines)
 *   {{name}}              a placeholder (table below); an unknown name is an error naming the
 *                         template file, line and placeholder. Values are inserted verbatim and
 *                         never scanned again, so code holding "{{" is safe.
 *   {{#name}}..{{/name}}  rendered when the condition holds; {{^name}}..{{/name}} when it does
 *                         not. Conditions: cuda, host, exemplars (at least one), notes (the task
 *                         has notes), gpu (a GPU name was given), cabi, kernelbench (the
 *                         format), make_helper (the PyTorch reference shown is twin.py, whose
 *                         make(dims, attrs) builds the suite's Model). Sections nest.
 *   {{! text }}           a comment (may span lines).
 *   A section or comment tag alone on its line takes the whole line with it, so conditional
 *   blocks leave no blank lines. "{{" not followed by a name (e.g. "{{0}}") is plain text.
 *
 * Placeholders: task_id, task_name, level, description, notes, twin (twin.py), reference
 * (reference.c), abi (include/cudal1/solution.h), rules (the rules file, itself rendered with
 * these placeholders and conditions, except {{rules}}), language ("CUDA C++ (.cu)" | "C11 (.c)"
 * | "Python (.py)"), fence ("cuda" | "c" | "python": the code block tag), device ("cuda" |
 * "host"), gpu, shapes_name, shapes (the dims of the shape set and every tensor's shape, in call
 * order, and the attrs), tolerance, exemplars (each: "### Solution A — 1.84x the reference" and
 * its code in a fenced block, slowest first), n_exemplars, best_speedup ("1.84x"; "" with no
 * exemplars), format ("cabi" | "kernelbench"), model (the task's PyTorch reference: reference.py
 * in an imported KernelBench task folder, else twin.py), model_file ("reference.py" |
 * "twin.py"), model_shapes (the shape set as a PyTorch module sees it: forward's inputs and
 * outputs, Model's parameters, the attrs it is built from).
 *
 * Formats (format.h): cabi renders contrastive.txt with rules.txt; kernelbench renders
 * contrastive_kernelbench.txt with rules_kernelbench.txt (both in cl1_prompt_dir()), and shows
 * exemplars as python blocks. */
#ifndef CL1_PROMPT_H
#define CL1_PROMPT_H
#include <stdint.h>
#include "../base/err.h"
#include "../task/task.h"
#include "format.h"

/* An earlier solution shown to the policy. */
typedef struct {
  const char *code;      /* the whole solution file */
  double speedup;        /* measured against the reference: > 0, finite */
  int64_t solution_id;   /* the store's id (not shown in the prompt) */
} cl1_exemplar;

#define CL1_PROMPT_MAX_EXEMPLARS 26 /* labelled A..Z */

typedef struct {
  const cl1_task *task;
  const char *device;          /* "cuda" | "host" */
  const char *shapes;          /* "test" | "small" | "large" */
  const char *template_path;   /* NULL: the format's default in cl1_prompt_dir() */
  const char *rules_path;      /* NULL: the format's rules file (read only if used) */
  const char *gpu;             /* optional device name for {{gpu}}, e.g. "NVIDIA H200"; NULL */
  const cl1_exemplar *exemplars;
  int n_exemplars;             /* 0 on the first round */
  cl1_format format;           /* the solutions asked for and shown (0: cabi) */
} cl1_prompt_in;

/* Renders the template. *system and *user are malloc'd, NUL-terminated (free them); both are
 * NULL after an error. Errors name the file and cause: an unreadable template, twin.py or
 * reference.c, an unknown placeholder or condition, an unbalanced section, a bad exemplar. */
int cl1_prompt_build(const cl1_prompt_in *in, char **system, char **user, cl1_err *err);

/* The prompts folder: $CUDAL1_PROMPTS, else <exe dir>/../prompts, else ./prompts (as
 * cl1_suite_root finds suite/). */
const char *cl1_prompt_dir(void);

/* The optimizer's prompt for a task with exemplars from the store: up to k of the task's passing
 * solutions in in->format (told by the source: cl1_format_of_source; backend in->device,
 * evaluated at in->shapes; each at its latest passing speedup) picked
 * by cl1_exemplar_pick at temperature tau from a Philox stream seeded by (seed, task id, stream),
 * then cl1_prompt_build. `cudal1 optimize` (stream = the round), `cudal1 dataset` and the service
 * all build prompts here, so they show the policy the same text. store NULL or k 0: no exemplars
 * (round 1's prompt). in->exemplars is ignored. *ids_json (may be NULL: not wanted) is the JSON
 * array of the shown solutions' ids, in pick order. All outputs malloc'd, NULL after an error. */
typedef struct cl1_store cl1_store;
typedef struct {
  cl1_prompt_in in;   /* task, device, shapes, template, gpu */
  cl1_store *store;   /* NULL: no exemplars */
  int k;              /* exemplars wanted (0..CL1_PROMPT_MAX_EXEMPLARS) */
  double tau;         /* > 0 when k > 0 */
  uint64_t seed, stream;
} cl1_prompt_req;
int cl1_prompt_for_task(const cl1_prompt_req *r, char **system, char **user, char **ids_json,
                        cl1_err *err);
/* A prompt's id: the first 16 hex digits of the SHA-256 of system and user (each with its NUL),
 * so the same prompt has the same id in a dataset, in the service and in the store. */
void cl1_prompt_id(const char *system, const char *user, char out[17]);
/* The prompt as a chat: [{"role":"system",...},{"role":"user",...}] (a cJSON array, the
 * caller's; NULL out of memory), as datasets and the service hand prompts to trainers. */
struct cJSON *cl1_prompt_messages(const char *system, const char *user);

#endif
