/* cli_evalopts.c — the evaluation options `cudal1 eval` and `cudal1 optimize` both take, defined
 * once: name, value, help, bounds and the cl1_eval_opts field each sets. Both commands parse them
 * here and list them in --help from here, so their limits cannot drift apart again (they had:
 * --min-trials accepted [5, 4096] in one and [1, 100000] in the other). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

#define FIELD(f) offsetof(cl1_eval_opts, f)

/* Trial counts: 4096 is what the judge holds of one side's trials in a pass (MAX_SAMPLES in
 * src/eval/judge_int.h, CL1_EVAL_MAX_TRIALS); it never runs more, so a larger bound only promised
 * what was not done. 5: the fewest pairs whose median of ratios the verdict may rest on (the
 * judge adds one re-verified pair after them). The time budget starts at 0.01 s because 0 is what
 * an optimize run's stored config says for "the evaluator's default" in runs before this table. */
const cl1_cli_eval_opt cl1_cli_eval_opts[] = {
    {"--device", "cuda|host", "backend: CUDA C++ (.cu) on the GPU, or C (.c) on the CPU",
     CL1_CLI_BACKEND, 0, 0, FIELD(backend)},
    {"--shapes", "test|small|large", "shape set (small: KernelBench's original sizes)",
     CL1_CLI_SHAPES, 0, 0, FIELD(shapes)},
    {"--min-trials", "N", "timed pairs before the timing may stop", CL1_CLI_INT, 5,
     CL1_EVAL_MAX_TRIALS, FIELD(min_trials)},
    {"--max-trials", "N", "timed pairs at most, raised to --min-trials", CL1_CLI_INT, 5,
     CL1_EVAL_MAX_TRIALS, FIELD(max_trials)},
    {"--time-budget", "S", "seconds of timing after --min-trials pairs", CL1_CLI_SECONDS, 0.01,
     3600, FIELD(time_budget_s)},
};
const int cl1_cli_n_eval_opts = (int)(sizeof cl1_cli_eval_opts / sizeof *cl1_cli_eval_opts);

static const cl1_cli_eval_opt *find(const char *name) {
  for (int k = 0; k < cl1_cli_n_eval_opts; k++)
    if (!strcmp(cl1_cli_eval_opts[k].name, name)) return &cl1_cli_eval_opts[k];
  return NULL;
}

/* val parsed as option e into o; 0, or 2 with the message printed. */
static int set_value(const char *cmd, const cl1_cli_eval_opt *e, const char *val, cl1_eval_opts *o) {
  char *field = (char *)o + e->field;
  long long v;
  double d;
  switch (e->kind) {
  case CL1_CLI_BACKEND:
    if (strcmp(val, "cuda") && strcmp(val, "host")) break;
    *(cl1_backend *)field = strcmp(val, "cuda") ? CL1_BACKEND_HOST : CL1_BACKEND_CUDA;
    return 0;
  case CL1_CLI_SHAPES:
    if (cl1_shapes_parse(val) < 0) break;
    *(int *)field = cl1_shapes_parse(val);
    return 0;
  case CL1_CLI_INT:
    if (cl1_cli_int(e->name, val, (long long)e->lo, (long long)e->hi, &v)) return 2;
    *(int *)field = (int)v;
    return 0;
  case CL1_CLI_SECONDS:
    if (cl1_cli_double(e->name, val, e->lo, e->hi, &d)) return 2;
    *(double *)field = d;
    return 0;
  }
  fprintf(stderr, "cudal1 %s: %s: expected %s, got '%s'\n", cmd, e->name,
          e->kind == CL1_CLI_BACKEND ? "cuda or host" : "test, small or large", val);
  return 2;
}

int cl1_cli_eval_opt_parse(const char *cmd, int argc, char **argv, int *i, cl1_eval_opts *o) {
  const cl1_cli_eval_opt *e = find(argv[*i]);
  if (!e) return -1;
  if (*i + 1 >= argc) {
    fprintf(stderr, "cudal1 %s: %s needs a value (see cudal1 %s --help)\n", cmd, e->name, cmd);
    return 2;
  }
  return set_value(cmd, e, argv[++*i], o);
}


void cl1_cli_eval_opts_finish(cl1_eval_opts *o) {
  if (o->max_trials < o->min_trials) o->max_trials = o->min_trials;
}

void cl1_cli_eval_opts_usage(FILE *f) {
  cl1_eval_opts d;
  cl1_eval_opts_default(&d);
  for (int k = 0; k < cl1_cli_n_eval_opts; k++) {
    const cl1_cli_eval_opt *e = &cl1_cli_eval_opts[k];
    const char *field = (const char *)&d + e->field;
    char left[64], def[64];
    snprintf(left, sizeof left, "%s %s", e->name, e->value);
    switch (e->kind) {
    case CL1_CLI_BACKEND: snprintf(def, sizeof def, "default %s", cl1_backend_name(*(const cl1_backend *)field)); break;
    case CL1_CLI_SHAPES: snprintf(def, sizeof def, "default %s", cl1_shapes_name(*(const int *)field)); break;
    case CL1_CLI_INT:
      snprintf(def, sizeof def, "%g-%g, default %d", e->lo, e->hi, *(const int *)field);
      break;
    case CL1_CLI_SECONDS:
      snprintf(def, sizeof def, "%g-%g, default %g", e->lo, e->hi, *(const double *)field);
      break;
    }
    fprintf(f, strlen(left) > 20 ? "  %s   %s (%s)\n" : "  %-20s %s (%s)\n", left, e->help, def);
  }
}
