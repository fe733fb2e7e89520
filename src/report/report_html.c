/* report_html.c — the report as one self-contained HTML file: inline CSS, the same tables as the
 * Markdown, and inline SVG plots drawn here (no scripts, no external references): the speedup
 * distribution per level on a log2 axis, and the best speedup per round of each run (the training
 * view's curves: report_train_view.c). Every text from the store is HTML-escaped. */
#include "report_int.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINES 12 /* up to this many tasks a run's plot draws a line per task, else per level */

static const char *palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define N_PALETTE (int)(sizeof palette / sizeof *palette)

static const char css[] =
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em}"
    "th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;font-variant-numeric:tabular-nums}"
    "th{background:#f2f2f2}td.l,th.l{text-align:left}"
    "td.fail{color:#b00}p.note{color:#555;font-size:90%}"
    "svg{display:block;margin:0.5em 0 1.5em;background:#fcfcfc;border:1px solid #ddd}"
    "svg text{font-size:11px;fill:#333}";

/* ---- tables ---- */

static void stats_cells(cl1_rep_buf *b, const cl1_report_stats *a, const cl1_report_stats *x) {
  char cell[CL1_REP_STATS_CELLS][32];
  cl1_rep_stats_cells(a, x, cell);
  for (int i = 0; i < CL1_REP_STATS_CELLS; i++) cl1_rep_printf(b, "<td>%s</td>", cell[i]);
}

static int html_summary(cl1_rep_buf *b, const cl1_report_section *s, int col, cl1_err *err) {
  cl1_rep_puts(b, "<h3>Summary vs ");
  cl1_rep_html(b, cl1_report_col_label(s, col));
  cl1_rep_puts(b, "</h3>\n");
  int left_out = cl1_rep_left_out(s, col);
  if (left_out)
    cl1_rep_printf(b, "<p class=\"note\">%d task%s without a time for this baseline left out "
                   "(see the per-task table).</p>\n", left_out, left_out == 1 ? "" : "s");
  cl1_rep_puts(b, "<table><tr><th class=\"l\">level</th><th>tasks</th><th>correct</th>"
                  "<th>success</th><th>mean</th><th>mean excl. " CL1_REP_DAGGER "</th>"
                  "<th>geomean</th><th>median</th><th>median excl. " CL1_REP_DAGGER "</th>"
                  "<th>max</th><th>&gt;1.01x</th>");
  for (int p = 0; p < CL1_REPORT_N_FAST; p++)
    cl1_rep_printf(b, "<th>fast_%g</th>", cl1_report_fast_p[p]);
  cl1_rep_puts(b, "</tr>\n");
  int lv[CL1_REP_MAX_LEVELS];
  int nl = cl1_report_levels(s, lv, CL1_REP_MAX_LEVELS);
  for (int k = 0; k <= nl; k++) {
    int level = k < nl ? lv[k] : 0;
    cl1_report_stats a, x;
    if (cl1_rep_level_stats(s, col, level, &a, &x, err)) return -1;
    if (level) cl1_rep_printf(b, "<tr><td class=\"l\">%d</td>", level);
    else cl1_rep_puts(b, "<tr><td class=\"l\"><b>all</b></td>");
    stats_cells(b, &a, &x);
    cl1_rep_puts(b, "</tr>\n");
  }
  cl1_rep_puts(b, "</table>\n");
  return 0;
}

static void html_tasks(cl1_rep_buf *b, const cl1_report_section *s) {
  cl1_rep_puts(b, "<h3>Per task</h3>\n<table><tr><th class=\"l\">task</th><th>level</th>"
                  "<th>best vs C reference</th>");
  for (int c = 1; c < s->n_cols; c++) {
    cl1_rep_puts(b, "<th>vs ");
    cl1_rep_html(b, s->col[c]);
    cl1_rep_puts(b, "</th>");
  }
  cl1_rep_puts(b, "<th>samples passed/evaluated/all</th><th>evaluations passed/all</th>"
                  "<th>rounds</th><th class=\"l\">flags</th></tr>\n");
  for (int i = 0; i < s->n_tasks; i++) {
    const cl1_report_task *t = &s->tasks[i];
    char f[32];
    cl1_rep_puts(b, "<tr><td class=\"l\">");
    cl1_rep_html(b, t->id);
    cl1_rep_printf(b, "%s</td><td>%d</td>", t->degenerate ? " " CL1_REP_DAGGER : "", t->level);
    for (int c = 0; c < s->n_cols; c++) {
      if (!t->has[c]) {
        cl1_rep_puts(b, "<td>n/a (");
        cl1_rep_html(b, t->note[c] ? t->note[c] : "");
        cl1_rep_puts(b, ")</td>");
      } else if (!t->correct) {
        cl1_rep_puts(b, "<td class=\"fail\">failed</td>");
      } else {
        cl1_rep_printf(b, "<td>%s</td>", cl1_rep_fmt_x(t->speedup[c], f));
      }
    }
    cl1_rep_printf(b, "<td>%d/%d/%d</td><td>%d/%d</td><td>%d</td><td class=\"l\">", t->n_passed,
                   t->n_evaluated, t->n_samples, t->n_evals_passed, t->n_evals, t->n_rounds);
    cl1_rep_html(b, *t->flags ? t->flags : CL1_REP_DASH);
    cl1_rep_puts(b, "</td></tr>\n");
  }
  cl1_rep_puts(b, "</table>\n");
}

/* ---- plots ---- */

/* A log2 axis: [lo, hi] in whole powers of two, always including 0.5x..2x. */
typedef struct {
  int lo, hi;
  double x0, w; /* pixels: left edge and width (horizontal), or bottom edge and -height */
} axis;

static void axis_fit(axis *a, double vmin, double vmax) {
  a->lo = -1;
  a->hi = 1;
  if (vmin > 0 && floor(log2(vmin)) < a->lo) a->lo = (int)floor(log2(vmin));
  if (vmax > 0 && ceil(log2(vmax)) > a->hi) a->hi = (int)ceil(log2(vmax));
}

static double axis_at(const axis *a, double v) {
  return a->x0 + (log2(v) - a->lo) / (a->hi - a->lo) * a->w;
}

static int axis_step(const axis *a) { return (a->hi - a->lo + 9) / 10; }

/* A tick's label: "0.25x", "1x", "16x". */
static void tick_label(int k, char buf[32]) { snprintf(buf, 32, "%gx", ldexp(1.0, k)); }

static void svg_title(cl1_rep_buf *b, const char *task, double v) {
  char f[32];
  cl1_rep_puts(b, "<title>");
  cl1_rep_html(b, task);
  cl1_rep_printf(b, ": %s</title>", cl1_rep_fmt_x(v, f));
}

/* (a) One row per level; a dot per correct task at its speedup (hollow: degenerate), the
 * level's median as a bar, the 1x line dashed. Failed tasks are counted in the row label. */
static int svg_distribution(cl1_rep_buf *b, const cl1_report_section *s, int col, cl1_err *err) {
  int lv[CL1_REP_MAX_LEVELS];
  int nl = cl1_report_levels(s, lv, CL1_REP_MAX_LEVELS);
  double vmin = 0, vmax = 0;
  for (int i = 0; i < s->n_tasks; i++) {
    const cl1_report_task *t = &s->tasks[i];
    if (!t->correct || !t->has[col]) continue;
    double v = t->speedup[col];
    if (vmin == 0 || v < vmin) vmin = v;
    if (v > vmax) vmax = v;
  }
  const double left = 150, right = 20, top = 12, row = 44, width = 760;
  axis a = {.x0 = left, .w = width - left - right};
  axis_fit(&a, vmin, vmax);
  double height = top + row * nl + 34;
  cl1_rep_printf(b, "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">"
                 "<desc>speedup vs ", width, height, width, height);
  cl1_rep_html(b, cl1_report_col_label(s, col));
  cl1_rep_puts(b, " per level, log2 axis</desc>\n");
  double bottom = top + row * nl;
  for (int k = a.lo; k <= a.hi; k += axis_step(&a)) {
    double x = axis_at(&a, ldexp(1.0, k));
    char f[32];
    tick_label(k, f);
    cl1_rep_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                   x, top, x, bottom, x, bottom + 16, f);
  }
  double one = axis_at(&a, 1.0);
  cl1_rep_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
                 "stroke-dasharray=\"4 3\"/>\n", one, top, one, bottom);
  cl1_rep_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">speedup (log2)</text>\n",
                 left + a.w / 2, bottom + 30);
  for (int k = 0; k < nl; k++) {
    cl1_report_stats st;
    if (cl1_report_stats_compute(s->tasks, s->n_tasks, col, lv[k], false, &st, err)) return -1;
    double yc = top + row * k + row / 2;
    const char *color = palette[k % N_PALETTE];
    cl1_rep_printf(b, "<text x=\"8\" y=\"%.1f\">level %d (%d/%d correct)</text>\n", yc + 4, lv[k],
                   st.n_correct, st.n_tasks);
    int j = 0;
    for (int i = 0; i < s->n_tasks; i++) {
      const cl1_report_task *t = &s->tasks[i];
      if (t->level != lv[k] || !t->correct || !t->has[col]) continue;
      double jitter = ((j++ * 7) % 11 - 5) / 5.0 * row * 0.28; /* deterministic spread */
      cl1_rep_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\" "
                     "fill-opacity=\"0.75\">", axis_at(&a, t->speedup[col]), yc + jitter,
                     t->degenerate ? "none" : color, color);
      svg_title(b, t->id, t->speedup[col]);
      cl1_rep_puts(b, "</circle>\n");
    }
    if (st.n_correct)
      cl1_rep_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" "
                     "stroke-width=\"2\"><title>median %.2fx</title></line>\n",
                     axis_at(&a, st.median), yc - row * 0.4, axis_at(&a, st.median),
                     yc + row * 0.4, st.median);
  }
  cl1_rep_puts(b, "</svg>\n");
  return 0;
}

/* One plotted line of a run: a task's best per round, or a level's geomean over its tasks that
 * have a passing solution by that round. v[r - 1] is NAN where there is no point. */
typedef struct {
  char label[160];
  int level;
  double *v;
} series;

static int run_series(const cl1_report_section *s, int i, int j, int last, series **out, int *n) {
  int tasks = 0;
  for (int a = i; a < j; a++) tasks += a == i || s->rounds[a].task != s->rounds[a - 1].task;
  int lv[CL1_REP_MAX_LEVELS];
  int nl = cl1_report_levels(s, lv, CL1_REP_MAX_LEVELS);
  bool per_task = tasks <= MAX_LINES;
  *n = per_task ? tasks : nl;
  series *sr = calloc((size_t)*n, sizeof *sr);
  double *mem = calloc((size_t)(*n * last), sizeof(double));
  int *cnt = calloc((size_t)(*n * last), sizeof(int));
  if (!sr || !mem || !cnt) {
    free(sr);
    free(mem);
    free(cnt);
    return -1;
  }
  for (int k = 0; k < *n; k++) {
    sr[k].v = mem + (size_t)k * last;
    if (!per_task) {
      sr[k].level = lv[k];
      snprintf(sr[k].label, sizeof sr[k].label, "level %d (geomean of solved tasks)", lv[k]);
    }
  }
  int k = -1;
  for (int a = i; a < j; a++) {
    const cl1_report_round *x = &s->rounds[a];
    if (per_task) {
      if (a == i || x->task != s->rounds[a - 1].task) {
        k++;
        snprintf(sr[k].label, sizeof sr[k].label, "%s%s", s->tasks[x->task].id,
                 s->tasks[x->task].degenerate ? " " CL1_REP_DAGGER : "");
        for (int r = 0; r < last; r++) sr[k].v[r] = NAN;
      }
      if (x->round >= 1 && x->round <= last) sr[k].v[x->round - 1] = x->best;
    } else {
      int q = 0;
      while (q < nl && lv[q] != s->tasks[x->task].level) q++;
      if (q < nl && x->round >= 1 && x->round <= last && x->best > 0) {
        sr[q].v[x->round - 1] += log(x->best);
        cnt[q * last + x->round - 1]++;
      }
    }
  }
  if (!per_task)
    for (int q = 0; q < nl; q++)
      for (int r = 0; r < last; r++)
        sr[q].v[r] = cnt[q * last + r] ? exp(sr[q].v[r] / cnt[q * last + r]) : NAN;
  free(cnt);
  *out = sr;
  return 0;
}

/* (b) The best speedup after each round of one run (rounds i..j-1 of the section). */
static int svg_rounds(cl1_rep_buf *b, const cl1_report_section *s, int i, int j, cl1_err *err) {
  long long run = s->rounds[i].run;
  int last = 1;
  for (int a = i; a < j; a++)
    if (s->rounds[a].round > last) last = s->rounds[a].round;
  series *sr;
  int n;
  if (run_series(s, i, j, last, &sr, &n))
    return cl1_err_set(err, "report: out of memory plotting run %lld", run);
  double vmin = 0, vmax = 0;
  for (int k = 0; k < n; k++)
    for (int r = 0; r < last; r++) {
      double v = sr[k].v[r];
      if (!(v > 0)) continue;
      if (vmin == 0 || v < vmin) vmin = v;
      if (v > vmax) vmax = v;
    }
  const double left = 60, right = 30, top = 16, plot_h = 220, width = 760;
  double legend_y = top + plot_h + 40, height = legend_y + 16 * n + 8;
  axis y = {.x0 = top + plot_h, .w = -plot_h};
  axis_fit(&y, vmin, vmax);
  double plot_w = width - left - right;
  cl1_rep_printf(b, "<h4>Run %lld</h4>\n<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f "
                 "%.0f\" role=\"img\"><desc>best speedup per round, run %lld</desc>\n", run,
                 width, height, width, height, run);
  for (int k = y.lo; k <= y.hi; k += axis_step(&y)) {
    double py = axis_at(&y, ldexp(1.0, k));
    char f[32];
    tick_label(k, f);
    cl1_rep_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>"
                   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", left, py,
                   left + plot_w, py, k == 0 ? "#888" : "#e4e4e4",
                   k == 0 ? " stroke-dasharray=\"4 3\"" : "", left - 6, py + 4, f);
  }
#define RX(r) (last == 1 ? left + plot_w / 2 : left + (double)((r) - 1) / (last - 1) * plot_w)
  for (int r = 1; r <= last; r++)
    cl1_rep_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n", RX(r),
                   top + plot_h + 16, r);
  cl1_rep_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">round</text>\n",
                 left + plot_w / 2, top + plot_h + 30);
  for (int k = 0; k < n; k++) {
    const char *color = palette[k % N_PALETTE];
    for (int r = 1; r < last; r++) /* segments between consecutive rounds that both have points */
      if (sr[k].v[r - 1] > 0 && sr[k].v[r] > 0)
        cl1_rep_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                       "stroke-width=\"1.5\"/>\n", RX(r), axis_at(&y, sr[k].v[r - 1]), RX(r + 1),
                       axis_at(&y, sr[k].v[r]), color);
    for (int r = 1; r <= last; r++)
      if (sr[k].v[r - 1] > 0) {
        cl1_rep_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">", RX(r),
                       axis_at(&y, sr[k].v[r - 1]), color);
        svg_title(b, sr[k].label, sr[k].v[r - 1]);
        cl1_rep_puts(b, "</circle>\n");
      }
    bool any = false;
    for (int r = 0; r < last; r++) any |= sr[k].v[r] > 0;
    double ly = legend_y + 16 * k;
    cl1_rep_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\">", left, ly - 9, color, left + 16, ly);
    cl1_rep_html(b, sr[k].label);
    cl1_rep_puts(b, any ? "</text>\n" : " (nothing passed)</text>\n");
  }
#undef RX
  cl1_rep_puts(b, "</svg>\n");
  free(sr ? sr[0].v : NULL);
  free(sr);
  return 0;
}

/* The numbers behind a run's plot: a row per task, a column per round. */
static void html_round_table(cl1_rep_buf *b, const cl1_report_section *s, int i, int j) {
  int last = 1;
  for (int a = i; a < j; a++)
    if (s->rounds[a].round > last) last = s->rounds[a].round;
  cl1_rep_puts(b, "<table><tr><th class=\"l\">task</th>");
  for (int k = 1; k <= last; k++) cl1_rep_printf(b, "<th>round %d</th>", k);
  cl1_rep_puts(b, "</tr>\n");
  for (int a = i; a < j;) {
    int task = s->rounds[a].task, k = 1;
    cl1_rep_puts(b, "<tr><td class=\"l\">");
    cl1_rep_html(b, s->tasks[task].id);
    cl1_rep_puts(b, s->tasks[task].degenerate ? " " CL1_REP_DAGGER "</td>" : "</td>");
    for (; a < j && s->rounds[a].task == task; a++) {
      for (; k < s->rounds[a].round; k++) cl1_rep_puts(b, "<td></td>");
      char f[32];
      cl1_rep_printf(b, "<td>%s</td>", cl1_rep_fmt_x(s->rounds[a].best, f));
      k++;
    }
    for (; k <= last; k++) cl1_rep_puts(b, "<td></td>");
    cl1_rep_puts(b, "</tr>\n");
  }
  cl1_rep_puts(b, "</table>\n");
}

static int html_rounds(cl1_rep_buf *b, const cl1_report_section *s, cl1_err *err) {
  if (!s->n_rounds) return 0;
  cl1_rep_printf(b, "<h3>Best speedup per round</h3>\n<p class=\"note\">A line per task up to "
                 "%d tasks, else the geomean per level of the tasks with a passing solution by "
                 "that round; the dashed line is 1x.</p>\n", MAX_LINES);
  for (int i = 0; i < s->n_rounds;) {
    int j = i;
    while (j < s->n_rounds && s->rounds[j].run == s->rounds[i].run) j++;
    if (svg_rounds(b, s, i, j, err)) return -1;
    html_round_table(b, s, i, j);
    i = j;
  }
  return 0;
}

/* ---- the document ---- */

static void html_head(cl1_rep_buf *b, const cl1_report *r) {
  char title[512];
  cl1_report_title(r, title, sizeof title);
  cl1_rep_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
  cl1_rep_html(b, title);
  cl1_rep_printf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
  cl1_rep_html(b, title);
  cl1_rep_puts(b, "</h1>\n<p>Store: ");
  cl1_rep_html(b, r->db_path);
  cl1_rep_puts(b, "</p>\n");
  if (r->n_runs) cl1_rep_puts(b, "<ul>\n");
  for (int i = 0; i < r->n_runs; i++) {
    const cl1_report_run *u = &r->runs[i];
    cl1_rep_printf(b, "<li>run %lld: policy ", u->id);
    cl1_rep_run_line(b, u, cl1_rep_html);
    cl1_rep_puts(b, "</li>\n");
  }
  if (r->n_runs) cl1_rep_puts(b, "</ul>\n");
  if (!r->n_sec) return; /* the training view alone */
  cl1_rep_puts(b, "<p class=\"note\">Each task's best passing solution. Mean, geomean, median and "
                  "max are over the tasks with a correct solution; success, &gt;1.01x and fast_p "
                  "(correct and faster than p) are shares of all tasks. " CL1_REP_DAGGER
                  " marks a degenerate task.</p>\n");
}

static int html_section(cl1_rep_buf *b, const cl1_report_section *s, cl1_err *err) {
  cl1_rep_puts(b, "<h2>");
  cl1_rep_html(b, s->backend);
  cl1_rep_puts(b, ", shapes ");
  cl1_rep_html(b, s->shapes);
  cl1_rep_printf(b, "</h2>\n<p>%d task%s; evaluated on: ", s->n_tasks, s->n_tasks == 1 ? "" : "s");
  cl1_rep_html(b, *s->gpus ? s->gpus : CL1_REP_DASH);
  cl1_rep_puts(b, ".</p>\n");
  for (int c = 0; c < s->n_cols; c++)
    if (html_summary(b, s, c, err)) return -1;
  cl1_rep_puts(b, "<h3>Speedup distribution per level</h3>\n<p class=\"note\">A dot per task "
                  "with a correct solution (hollow: degenerate), the bar is the level's median, "
                  "the dashed line 1x.</p>\n");
  for (int c = 0; c < s->n_cols; c++) {
    if (s->n_cols > 1) {
      cl1_rep_puts(b, "<h4>vs ");
      cl1_rep_html(b, cl1_report_col_label(s, c));
      cl1_rep_puts(b, "</h4>\n");
    }
    if (svg_distribution(b, s, c, err)) return -1;
  }
  html_tasks(b, s);
  return html_rounds(b, s, err);
}

int cl1_report_html(const cl1_report *r, char **out, cl1_err *err) {
  cl1_rep_buf b = {0};
  html_head(&b, r);
  for (int i = 0; i < r->n_sec; i++)
    if (html_section(&b, &r->sec[i], err)) {
      free(b.p);
      return -1;
    }
  if (cl1_rep_train_html(&b, r, err)) {
    free(b.p);
    return -1;
  }
  cl1_rep_puts(&b, "</body>\n</html>\n");
  return cl1_rep_take(&b, "HTML report", out, err);
}
