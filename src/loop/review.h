/* review.h — the optional LLM review of a passing solution with a large speedup (issue 4): the
 * task, the solution and its measured speedup go to a reviewer model through a policy backend
 * with prompts/review.txt, which lists the known ways to fake a speedup; the opinion is kept
 * beside the verdict (a "review" object in the evaluation's JSON) and never changes it. */
#ifndef CL1_REVIEW_H
#define CL1_REVIEW_H
#include <cjson/cJSON.h>
#include <stdbool.h>
#include "../base/err.h"
#include "../eval/eval.h"
#include "../policy/policy.h"
#include "../task/task.h"

#define CL1_REVIEW_DEFAULT_THRESHOLD 3.0

typedef struct {
  bool ok;              /* the reviewer answered */
  char verdict[16];     /* "honest" | "suspicious" | "unclear" (no VERDICT line); "" if !ok */
  char *opinion;        /* the reply (owned; NULL if !ok) */
  char error[600];      /* why there is no opinion */
  double latency_s;
} cl1_review;

/* Whether a result is reviewed: a pass at or above the threshold. */
bool cl1_review_wanted(const cl1_eval_result *r, double threshold);

/* Asks the reviewer about `source` (the solution file) for task at the shape set (name). A
 * reviewer that fails (unreachable, an error reply) gives ok = false with the reason, not an
 * error: the review is advisory. Returns -1 with err only for a usage problem (the review
 * template missing or broken). template_path NULL: review.txt in the prompts folder. */
int cl1_review_run(cl1_policy *p, const cl1_task *task, const char *device, const char *shapes,
                   const char *source, const cl1_eval_result *r, const char *template_path,
                   cl1_review *out, cl1_err *err);

/* The review as a JSON object ({"model", "ok", "verdict", "opinion" | "error", "latency_s"}). */
cJSON *cl1_review_json(const cl1_review *rv, const char *model);
void cl1_review_free(cl1_review *rv);
#endif
