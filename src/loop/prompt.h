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
 *                         has notes), gpu (a GPU name was given). Sections nest.
 *   {{! text }}           a comment (may span lines).
 *   A section or comment tag alone on its line takes the whole line with it, so conditional
 *   blocks leave no blank lines. "{{" not followed by a name (e.g. "{{0}}") is plain text.
 *
 * Placeholders: task_id, task_name, level, description, notes, twin (twin.py), reference
 * (reference.c), abi (include/cudal1/solution.h), rules (the rules file, itself rendered with
 * these placeholders and conditions, except {{rules}}), language ("CUDA C++ (.cu)" | "C11 (.c)"),
 * fence ("cuda" | "c": the code block tag), device ("cuda" | "host"), gpu, shapes_name, shapes
 * (the dims of the shape set and every tensor's shape, in call order, and the attrs), tolerance,
 * exemplars (each: "### Solution A — 1.84x the reference" and its code in a fenced block, slowest
 * first), n_exemplars, best_speedup ("1.84x"; "" with no exemplars). */
#ifndef CL1_PROMPT_H
#define CL1_PROMPT_H
#include <stdint.h>
#include "../base/err.h"
#include "../task/task.h"

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
  const char *template_path;   /* NULL: contrastive.txt in cl1_prompt_dir() */
  const char *rules_path;      /* NULL: rules.txt in cl1_prompt_dir() (read only if used) */
  const char *gpu;             /* optional device name for {{gpu}}, e.g. "NVIDIA H200"; NULL */
  const cl1_exemplar *exemplars;
  int n_exemplars;             /* 0 on the first round */
} cl1_prompt_in;

/* Renders the template. *system and *user are malloc'd, NUL-terminated (free them); both are
 * NULL after an error. Errors name the file and cause: an unreadable template, twin.py or
 * reference.c, an unknown placeholder or condition, an unbalanced section, a bad exemplar. */
int cl1_prompt_build(const cl1_prompt_in *in, char **system, char **user, cl1_err *err);

/* The prompts folder: $CUDAL1_PROMPTS, else <exe dir>/../prompts, else ./prompts (as
 * cl1_suite_root finds suite/). */
const char *cl1_prompt_dir(void);

#endif
