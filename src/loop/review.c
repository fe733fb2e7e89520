/* review.c — the optional LLM review (review.h): prompt from prompts/review.txt (the solution as
 * the template's one exemplar), one completion, the VERDICT line read from the reply. */
#include "review.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prompt.h"

bool cl1_review_wanted(const cl1_eval_result *r, double threshold) {
  return !strcmp(r->verdict, "pass") && r->speedup >= threshold;
}

/* "VERDICT: honest" / "VERDICT: suspicious" on a line of its own, anywhere (the model may put
 * a heading first); otherwise "unclear". */
static void read_verdict(const char *text, char *out, size_t n) {
  snprintf(out, n, "unclear");
  for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    while (*line == ' ' || *line == '*' || *line == '#' || *line == '`') line++;
    if (strncasecmp(line, "verdict", 7)) continue;
    const char *v = line + 7;
    while (*v == ':' || *v == ' ' || *v == '*') v++;
    if (!strncasecmp(v, "honest", 6)) snprintf(out, n, "honest");
    else if (!strncasecmp(v, "suspicious", 10)) snprintf(out, n, "suspicious");
    return;
  }
}

int cl1_review_run(cl1_policy *p, const cl1_task *task, const char *device, const char *shapes,
                   const char *source, const cl1_eval_result *r, const char *template_path,
                   cl1_review *out, cl1_err *err) {
  memset(out, 0, sizeof *out);
  char tpl[4200];
  if (!template_path) {
    snprintf(tpl, sizeof tpl, "%s/review.txt", cl1_prompt_dir());
    template_path = tpl;
  }
  cl1_exemplar ex = {source, r->speedup > 0 ? r->speedup : 1e-9, 0};
  cl1_prompt_in in = {.task = task, .device = device, .shapes = shapes,
                      .template_path = template_path, .exemplars = &ex, .n_exemplars = 1};
  char *sys = NULL, *usr = NULL;
  if (cl1_prompt_build(&in, &sys, &usr, err)) return cl1_err_wrap(err, "the review prompt");
  /* what the evaluator measured and flagged, below the template's text */
  size_t extra = 512 + (size_t)r->n_flags * 40;
  char *full = malloc(strlen(usr) + extra);
  if (!full) {
    free(sys);
    free(usr);
    return cl1_err_set(err, "out of memory");
  }
  int k = sprintf(full, "%s\n\nMeasured: reference %.4f ms, solution %.4f ms (median), %.2fx; flags:",
                  usr, r->ref.median, r->cand.median, r->speedup);
  for (int i = 0; i < r->n_flags; i++) k += sprintf(full + k, " %s", r->flags[i]);
  if (!r->n_flags) sprintf(full + k, " none");
  cl1_completion c;
  memset(&c, 0, sizeof c);
  int rc = cl1_policy_generate(p, task->id, sys, full, 1, &c, err);
  free(sys);
  free(usr);
  free(full);
  if (rc) return -1;
  out->latency_s = c.latency_s;
  if (!c.ok || !c.content) {
    snprintf(out->error, sizeof out->error, "%s", c.ok ? "the reviewer sent an empty reply" : c.error);
  } else {
    out->ok = true;
    out->opinion = c.content;
    c.content = NULL;
    read_verdict(out->opinion, out->verdict, sizeof out->verdict);
  }
  cl1_completion_clear(&c);
  return 0;
}

cJSON *cl1_review_json(const cl1_review *rv, const char *model) {
  cJSON *o = cJSON_CreateObject();
  if (model) cJSON_AddStringToObject(o, "model", model);
  cJSON_AddBoolToObject(o, "ok", rv->ok);
  if (rv->ok) {
    cJSON_AddStringToObject(o, "verdict", rv->verdict);
    cJSON_AddStringToObject(o, "opinion", rv->opinion);
  } else {
    cJSON_AddStringToObject(o, "error", rv->error);
  }
  cJSON_AddNumberToObject(o, "latency_s", rv->latency_s);
  return o;
}

void cl1_review_free(cl1_review *rv) {
  free(rv->opinion);
  memset(rv, 0, sizeof *rv);
}
