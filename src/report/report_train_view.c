/* report_train_view.c — the training view rendered: per `cudal1 train` run a table of its stages'
 * rounds (steps, samples, success rate, reward mean, mean and best speedup), its evaluations
 * (sampling after a stage: stage 1 against stage 2) and its GRPO steps; in the HTML, SVG curves
 * of the GRPO steps' reward mean and mean speedup and of the success rate per round; in the JSON,
 * the same numbers, every step included. Text from the store is escaped for its format. */
#include "report_int.h"
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *or_dash(const char *s) { return s && *s ? s : CL1_REP_DASH; }

const char *cl1_rep_fmt_num(double v, char buf[32]) {
  if (isnan(v)) snprintf(buf, 32, CL1_REP_DASH);
  else snprintf(buf, 32, "%.3f", v);
  return buf;
}

static const char *fmt_int(int v, char buf[32]) {
  if (v < 0) snprintf(buf, 32, CL1_REP_DASH);
  else snprintf(buf, 32, "%d", v);
  return buf;
}

static const char *fmt_s(double v, char buf[32]) {
  if (isnan(v)) snprintf(buf, 32, CL1_REP_DASH);
  else snprintf(buf, 32, "%.2f", v);
  return buf;
}

/* The GRPO steps of a run (the curves' points). */
static int grpo_steps(const cl1_report_train_run *u) {
  int n = 0;
  for (int i = 0; i < u->n_steps; i++) n += !strcmp(u->steps[i].stage, "grpo");
  return n;
}

/* A table's cells, one row each; esc escapes text (Markdown or HTML). */
typedef struct {
  cl1_rep_buf *b;
  bool html;
} table;

static void t_head(table *t, const char *const *cols, int n) {
  if (t->html) {
    cl1_rep_puts(t->b, "<table><tr>");
    for (int i = 0; i < n; i++) cl1_rep_printf(t->b, "<th%s>%s</th>", i ? "" : " class=\"l\"", cols[i]);
    cl1_rep_puts(t->b, "</tr>\n");
    return;
  }
  cl1_rep_puts(t->b, "\n|");
  for (int i = 0; i < n; i++) cl1_rep_printf(t->b, " %s |", cols[i]);
  cl1_rep_puts(t->b, "\n|");
  for (int i = 0; i < n; i++) cl1_rep_puts(t->b, i ? "---:|" : "---|");
  cl1_rep_puts(t->b, "\n");
}

static void t_row(table *t, char cell[][32], int n) {
  cl1_rep_puts(t->b, t->html ? "<tr>" : "|");
  for (int i = 0; i < n; i++) {
    if (t->html) {
      cl1_rep_puts(t->b, i ? "<td>" : "<td class=\"l\">");
      cl1_rep_html(t->b, cell[i]);
      cl1_rep_puts(t->b, "</td>");
    } else {
      cl1_rep_puts(t->b, " ");
      cl1_rep_md(t->b, cell[i]);
      cl1_rep_puts(t->b, " |");
    }
  }
  cl1_rep_puts(t->b, t->html ? "</tr>\n" : "\n");
}

static void t_end(table *t) { cl1_rep_puts(t->b, t->html ? "</table>\n" : ""); }

static void rounds_table(table *t, const cl1_report_train_run *u) {
  static const char *const cols[] = {"stage", "round", "steps", "samples", "success",
                                     "reward mean", "mean speedup", "best speedup"};
  t_head(t, cols, 8);
  for (int i = 0; i < u->n_rounds; i++) {
    const cl1_report_train_round *r = &u->rounds[i];
    char c[8][32];
    snprintf(c[0], 32, "%s%s", r->stage, r->from_steps ? " *" : "");
    snprintf(c[1], 32, "%d", r->round);
    snprintf(c[2], 32, "%d", r->steps);
    fmt_int(r->n_samples, c[3]);
    cl1_rep_fmt_pct(r->success, c[4]);
    cl1_rep_fmt_num(r->reward_mean, c[5]);
    cl1_rep_fmt_x(r->speedup_mean, c[6]);
    cl1_rep_fmt_x(r->speedup_best, c[7]);
    t_row(t, c, 8);
  }
  t_end(t);
}

/* An evaluation without a round (-1) is stage 3's probe before its first round (trl_engine.py
 * probe()). */
static void evals_table(table *t, const cl1_report_train_run *u) {
  static const char *const cols[] = {"stage", "after round", "samples", "success",
                                     "reward mean", "mean speedup"};
  t_head(t, cols, 6);
  for (int i = 0; i < u->n_evals; i++) {
    const cl1_report_train_point *p = &u->evals[i];
    char c[6][32];
    snprintf(c[0], 32, "%s", or_dash(p->stage));
    if (p->round < 0) snprintf(c[1], 32, "before the first");
    else fmt_int(p->round, c[1]);
    fmt_int(p->n_samples, c[2]);
    cl1_rep_fmt_pct(p->success, c[3]);
    cl1_rep_fmt_num(p->reward_mean, c[4]);
    cl1_rep_fmt_x(p->speedup_mean, c[5]);
    t_row(t, c, 6);
  }
  t_end(t);
}

static void steps_table(table *t, const cl1_report_train_run *u) {
  static const char *const cols[] = {"round", "step", "reward mean", "reward std", "success",
                                     "mean speedup", "best speedup", "loss", "generate s",
                                     "reward s", "update s", "GPU busy"};
  t_head(t, cols, 12);
  for (int i = 0; i < u->n_steps; i++) {
    const cl1_report_train_point *p = &u->steps[i];
    if (strcmp(p->stage, "grpo")) continue;
    char c[12][32];
    fmt_int(p->round, c[0]);
    fmt_int(p->step, c[1]);
    cl1_rep_fmt_num(p->reward_mean, c[2]);
    cl1_rep_fmt_num(p->reward_std, c[3]);
    cl1_rep_fmt_pct(p->success, c[4]);
    cl1_rep_fmt_x(p->speedup_mean, c[5]);
    cl1_rep_fmt_x(p->speedup_best, c[6]);
    if (isnan(p->loss)) snprintf(c[7], 32, CL1_REP_DASH);
    else snprintf(c[7], 32, "%.4g", p->loss);
    fmt_s(p->t_generate, c[8]);
    fmt_s(p->t_reward, c[9]);
    fmt_s(p->t_update, c[10]);
    cl1_rep_fmt_pct(p->gpu_busy, c[11]);
    t_row(t, c, 12);
  }
  t_end(t);
}

/* "stage grpo, engine trl, model M, done, created T, output O" after the caller's opening. */
static void run_line(cl1_rep_buf *b, const cl1_report_train_run *u,
                     void (*esc)(cl1_rep_buf *, const char *)) {
  cl1_rep_puts(b, "stage ");
  esc(b, or_dash(u->stage));
  cl1_rep_puts(b, ", engine ");
  esc(b, or_dash(u->engine));
  cl1_rep_puts(b, ", model ");
  esc(b, u->model ? u->model : "embedded");
  cl1_rep_puts(b, ", ");
  esc(b, or_dash(u->status));
  cl1_rep_puts(b, ", created ");
  esc(b, or_dash(u->created));
  cl1_rep_puts(b, ", output ");
  esc(b, or_dash(u->out));
}

static const char note[] =
    "Per stage and round: the round's sampled solutions (success: correct; reward and speedups "
    "of the sampled solutions) as the engine reported them; * marks a round without a round "
    "report, its numbers the mean of its steps' (best: their best). Evaluations: k samples per "
    "task after a stage.";

void cl1_rep_train_md(cl1_rep_buf *b, const cl1_report *r) {
  if (!r->n_train) return;
  cl1_rep_printf(b, "\n## Training\n\n%s\n", note);
  table t = {b, false};
  for (int i = 0; i < r->n_train; i++) {
    const cl1_report_train_run *u = &r->train[i];
    cl1_rep_printf(b, "\n### Training run %lld\n\n", u->id);
    run_line(b, u, cl1_rep_md);
    cl1_rep_puts(b, ".\n");
    if (u->error && u->status && strcmp(u->status, "done")) {
      cl1_rep_puts(b, "\nThe engine's last error: ");
      cl1_rep_md(b, u->error);
      cl1_rep_puts(b, "\n");
    }
    if (!u->n_rounds && !u->n_evals) cl1_rep_puts(b, "\nNo step, round or evaluation recorded.\n");
    if (u->n_rounds) rounds_table(&t, u);
    if (u->n_evals) cl1_rep_puts(b, "\nEvaluations:\n"), evals_table(&t, u);
    if (grpo_steps(u)) cl1_rep_puts(b, "\nGRPO steps:\n"), steps_table(&t, u);
  }
}

/* ---- curves ---- */

static const char *palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"};

typedef struct {
  const char *label;
  const double *y; /* n values; NAN: no point */
} curve;

/* A round tick step for range over about four intervals: 1, 2, 2.5 or 5 times a power of ten. */
static double nice_step(double range) {
  double raw = range / 4, p = pow(10, floor(log10(raw))), m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

/* Lines through consecutive points of each curve over x = 0..n-1 (xlabel(i) under some), on a
 * linear y axis: [lo, hi] fixed when lo < hi, else fitted to the data on round ticks. pct: ticks
 * as percents. */
static void svg_curves(cl1_rep_buf *b, const char *desc, const char *xname, const char *const *xl,
                       int n, const curve *cv, int nc, double lo, double hi, bool pct) {
  if (!(lo < hi)) {
    lo = INFINITY, hi = -INFINITY;
    for (int k = 0; k < nc; k++)
      for (int i = 0; i < n; i++)
        if (!isnan(cv[k].y[i])) lo = fmin(lo, cv[k].y[i]), hi = fmax(hi, cv[k].y[i]);
    if (!(lo <= hi)) lo = 0, hi = 1;
    if (hi - lo < 1e-9) lo -= fabs(lo) * 0.1 + 0.1, hi += fabs(hi) * 0.1 + 0.1;
  }
  double step = nice_step(hi - lo);
  lo = floor(lo / step + 1e-9) * step, hi = ceil(hi / step - 1e-9) * step;
  const double left = 64, right = 56, top = 14, ph = 200, width = 760, pw = width - left - right;
  double legend_y = top + ph + 44, height = legend_y + 16 * nc + 6;
#define PX(i) (n == 1 ? left + pw / 2 : left + (double)(i) / (n - 1) * pw)
#define PY(v) (top + ph - ((v) - lo) / (hi - lo) * ph)
  cl1_rep_printf(b, "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">"
                 "<desc>", width, height, width, height);
  cl1_rep_html(b, desc);
  cl1_rep_puts(b, "</desc>\n");
  for (double v = lo; v <= hi + step * 1e-6; v += step) {
    char f[32];
    if (pct) snprintf(f, sizeof f, "%.0f%%", 100 * v);
    else snprintf(f, sizeof f, "%g", fabs(v) < step * 1e-6 ? 0 : v);
    cl1_rep_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", left, PY(v),
                   left + pw, PY(v), left - 6, PY(v) + 4, f);
  }
  int every = n > 12 ? (n + 11) / 12 : 1;
  for (int i = 0; i < n; i += every) {
    cl1_rep_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", PX(i), top + ph + 16);
    cl1_rep_html(b, xl[i]);
    cl1_rep_puts(b, "</text>\n");
  }
  cl1_rep_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", left + pw / 2, top + ph + 32);
  cl1_rep_html(b, xname);
  cl1_rep_puts(b, "</text>\n");
  for (int k = 0; k < nc; k++) {
    const char *color = palette[k % 5];
    for (int i = 1; i < n; i++)
      if (!isnan(cv[k].y[i - 1]) && !isnan(cv[k].y[i]))
        cl1_rep_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                       "stroke-width=\"1.5\"/>\n", PX(i - 1), PY(cv[k].y[i - 1]), PX(i),
                       PY(cv[k].y[i]), color);
    for (int i = 0; i < n; i++) {
      if (isnan(cv[k].y[i])) continue;
      cl1_rep_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>", PX(i),
                     PY(cv[k].y[i]), color);
      cl1_rep_html(b, cv[k].label);
      cl1_rep_puts(b, ", ");
      cl1_rep_html(b, xl[i]);
      cl1_rep_printf(b, ": %.4g</title></circle>\n", cv[k].y[i]);
    }
    double ly = legend_y + 16 * k;
    cl1_rep_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">", left, ly - 9, color, left + 16, ly);
    cl1_rep_html(b, cv[k].label);
    cl1_rep_puts(b, "</text>\n");
  }
#undef PX
#undef PY
  cl1_rep_puts(b, "</svg>\n");
}

static bool any_point(const double *y, int n) {
  for (int i = 0; i < n; i++)
    if (!isnan(y[i])) return true;
  return false;
}

/* The GRPO steps' reward mean and mean speedup, one chart each. */
static int grpo_curves(cl1_rep_buf *b, const cl1_report_train_run *u) {
  int n = grpo_steps(u), k = 0;
  double *y = calloc((size_t)(2 * n + 1), sizeof *y);
  char (*lab)[32] = calloc((size_t)n + 1, sizeof *lab);
  const char **xl = calloc((size_t)n + 1, sizeof *xl);
  if (!y || !lab || !xl) return free(y), free(lab), free(xl), -1;
  for (int i = 0; i < u->n_steps; i++) {
    const cl1_report_train_point *p = &u->steps[i];
    if (strcmp(p->stage, "grpo")) continue;
    snprintf(lab[k], 32, "r%d s%d", p->round, p->step);
    xl[k] = lab[k];
    y[k] = p->reward_mean, y[n + k] = p->speedup_mean;
    k++;
  }
  char desc[128];
  curve c1 = {"reward mean", y}, c2 = {"mean speedup of the sampled solutions", y + n};
  snprintf(desc, sizeof desc, "GRPO reward mean per step, training run %lld", u->id);
  cl1_rep_puts(b, "<h4>GRPO: reward mean per step</h4>\n");
  if (any_point(y, n)) svg_curves(b, desc, "step (round, step)", xl, n, &c1, 1, 0, 0, false);
  else cl1_rep_puts(b, "<p class=\"note\">No step reported a reward mean.</p>\n");
  snprintf(desc, sizeof desc, "GRPO mean speedup per step, training run %lld", u->id);
  cl1_rep_puts(b, "<h4>GRPO: mean speedup per step</h4>\n");
  if (any_point(y + n, n)) svg_curves(b, desc, "step (round, step)", xl, n, &c2, 1, 0, 0, false);
  else cl1_rep_puts(b, "<p class=\"note\">No sampled solution passed in a GRPO step: no speedup "
                       "to plot.</p>\n");
  free(y), free(lab), free(xl);
  return 0;
}

/* The success rate of each round (a curve per stage) and of each evaluation, over the rounds in
 * stage order. */
static int success_curve(cl1_rep_buf *b, const cl1_report_train_run *u) {
  int n = u->n_rounds + u->n_evals;
  double *y = malloc(sizeof *y * (size_t)(4 * n + 1));
  char (*lab)[32] = calloc((size_t)n + 1, sizeof *lab);
  const char **xl = calloc((size_t)n + 1, sizeof *xl);
  if (!y || !lab || !xl) return free(y), free(lab), free(xl), -1;
  for (int i = 0; i < 4 * n; i++) y[i] = NAN;
  static const char *const names[] = {"sft", "selfsup", "grpo"};
  int x = 0;
  for (int s = 0; s < 3; s++) { /* each stage's rounds, then its evaluations */
    for (int i = 0; i < u->n_rounds; i++)
      if (!strcmp(u->rounds[i].stage, names[s]) && !isnan(u->rounds[i].success)) {
        snprintf(lab[x], 32, "%s r%d", names[s], u->rounds[i].round);
        y[s * n + x++] = u->rounds[i].success;
      }
    for (int i = 0; i < u->n_evals; i++)
      if (!strcmp(u->evals[i].stage, names[s]) && !isnan(u->evals[i].success)) {
        if (u->evals[i].round < 0) snprintf(lab[x], 32, "before %s", names[s]);
        else if (s == 2) snprintf(lab[x], 32, "probe r%d", u->evals[i].round);
        else snprintf(lab[x], 32, "after %s", names[s]);
        y[3 * n + x++] = u->evals[i].success;
      }
  }
  for (int i = 0; i < x; i++) xl[i] = lab[i];
  static const char *const label[] = {"sft rounds", "selfsup rounds", "grpo rounds",
                                      "evaluations (stage 3: its probe)"};
  curve cv[4];
  int nc = 0;
  for (int k = 0; k < 4; k++) { /* the curves with a point */
    bool any = false;
    for (int i = 0; i < x; i++) any |= !isnan(y[k * n + i]);
    if (any) cv[nc++] = (curve){label[k], y + k * n};
  }
  char desc[128];
  snprintf(desc, sizeof desc, "success rate per round, training run %lld", u->id);
  cl1_rep_puts(b, "<h4>Success rate per round</h4>\n");
  if (x && nc) svg_curves(b, desc, "round", xl, x, cv, nc, 0, 1, true);
  free(y), free(lab), free(xl);
  return 0;
}

int cl1_rep_train_html(cl1_rep_buf *b, const cl1_report *r, cl1_err *err) {
  if (!r->n_train) return 0;
  cl1_rep_puts(b, "<h2>Training</h2>\n<p class=\"note\">");
  cl1_rep_html(b, note);
  cl1_rep_puts(b, "</p>\n");
  table t = {b, true};
  for (int i = 0; i < r->n_train; i++) {
    const cl1_report_train_run *u = &r->train[i];
    cl1_rep_printf(b, "<h3>Training run %lld</h3>\n<p>", u->id);
    run_line(b, u, cl1_rep_html);
    cl1_rep_puts(b, ".</p>\n");
    if (u->error && u->status && strcmp(u->status, "done")) {
      cl1_rep_puts(b, "<p class=\"note\">The engine's last error: ");
      cl1_rep_html(b, u->error);
      cl1_rep_puts(b, "</p>\n");
    }
    if (u->n_rounds) rounds_table(&t, u);
    if (u->n_evals) cl1_rep_puts(b, "<p>Evaluations:</p>\n"), evals_table(&t, u);
    if ((u->n_rounds || u->n_evals) && success_curve(b, u))
      return cl1_err_set(err, "report: out of memory plotting training run %lld", u->id);
    if (grpo_steps(u)) {
      if (grpo_curves(b, u))
        return cl1_err_set(err, "report: out of memory plotting training run %lld", u->id);
      cl1_rep_puts(b, "<p>GRPO steps:</p>\n");
      steps_table(&t, u);
    }
  }
  return 0;
}

/* ---- JSON ---- */

static void jnum(cJSON *o, const char *k, double v) {
  if (isnan(v) || isinf(v)) cJSON_AddNullToObject(o, k);
  else cJSON_AddNumberToObject(o, k, v);
}

static void jint(cJSON *o, const char *k, int v) {
  if (v < 0) cJSON_AddNullToObject(o, k);
  else cJSON_AddNumberToObject(o, k, v);
}

static void jstr(cJSON *o, const char *k, const char *v) {
  if (v) cJSON_AddStringToObject(o, k, v);
  else cJSON_AddNullToObject(o, k);
}

static cJSON *point_json(const cl1_report_train_point *p, bool step) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "stage", p->stage);
  jint(o, "round", p->round);
  if (step) jint(o, "step", p->step);
  else jint(o, "n_samples", p->n_samples);
  jnum(o, "success_rate", p->success);
  jnum(o, "speedup_mean", p->speedup_mean);
  if (!step) return o;
  jnum(o, "speedup_best", p->speedup_best);
  jnum(o, "reward_mean", p->reward_mean);
  jnum(o, "reward_std", p->reward_std);
  jnum(o, "loss", p->loss);
  jnum(o, "t_generate", p->t_generate);
  jnum(o, "t_reward", p->t_reward);
  jnum(o, "t_update", p->t_update);
  jnum(o, "t_step", p->t_step);
  jnum(o, "gpu_busy", p->gpu_busy);
  return o;
}

void cl1_rep_train_json(void *cjson_doc, const cl1_report *r) {
  cJSON *arr = cJSON_AddArrayToObject(cjson_doc, "training");
  for (int i = 0; i < r->n_train; i++) {
    const cl1_report_train_run *u = &r->train[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(arr, o);
    cJSON_AddNumberToObject(o, "id", (double)u->id);
    jstr(o, "created", u->created);
    jstr(o, "stage", u->stage);
    jstr(o, "engine", u->engine);
    jstr(o, "model", u->model);
    jstr(o, "out", u->out);
    jstr(o, "status", u->status);
    jstr(o, "error", u->error);
    cJSON *rows = cJSON_AddArrayToObject(o, "rounds");
    for (int k = 0; k < u->n_rounds; k++) {
      const cl1_report_train_round *x = &u->rounds[k];
      cJSON *ro = cJSON_CreateObject();
      cJSON_AddStringToObject(ro, "stage", x->stage);
      cJSON_AddNumberToObject(ro, "round", x->round);
      cJSON_AddNumberToObject(ro, "steps", x->steps);
      jint(ro, "n_samples", x->n_samples);
      jnum(ro, "success_rate", x->success);
      jnum(ro, "reward_mean", x->reward_mean);
      jnum(ro, "speedup_mean", x->speedup_mean);
      jnum(ro, "speedup_best", x->speedup_best);
      cJSON_AddBoolToObject(ro, "from_steps", x->from_steps);
      cJSON_AddItemToArray(rows, ro);
    }
    cJSON *ev = cJSON_AddArrayToObject(o, "evals");
    for (int k = 0; k < u->n_evals; k++) cJSON_AddItemToArray(ev, point_json(&u->evals[k], false));
    cJSON *st = cJSON_AddArrayToObject(o, "steps");
    for (int k = 0; k < u->n_steps; k++) cJSON_AddItemToArray(st, point_json(&u->steps[k], true));
  }
}
