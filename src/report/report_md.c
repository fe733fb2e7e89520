/* report_md.c — the report as Markdown: per (backend, shape set) a summary table per column (the
 * C reference, then each baseline) with a row per level and one for all, the per-task table, and
 * the best speedup per round of each run; then the training view (report_train_view.c). */
#include "report_int.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void md_header(cl1_rep_buf *b, const cl1_report *r) {
  char title[512];
  cl1_report_title(r, title, sizeof title);
  cl1_rep_puts(b, "# ");
  cl1_rep_md(b, title);
  cl1_rep_puts(b, "\n\nStore: ");
  cl1_rep_md(b, r->db_path);
  cl1_rep_puts(b, "\n\n");
  for (int i = 0; i < r->n_runs; i++) {
    const cl1_report_run *u = &r->runs[i];
    cl1_rep_printf(b, "- run %lld: policy ", u->id);
    cl1_rep_run_line(b, u, cl1_rep_md);
    cl1_rep_puts(b, "\n");
  }
  cl1_rep_puts(b, (r->n_runs ? "\n" : ""));
  if (!r->n_sec) return; /* the training view alone */
  cl1_rep_puts(b, "Each task's best passing solution. Mean, geomean, median and max are over the "
                  "tasks with a correct solution; success, >1.01x and fast_p (correct and faster "
                  "than p) are shares of all tasks. " CL1_REP_DAGGER " marks a degenerate task.\n");
}

static void md_stats_row(cl1_rep_buf *b, const char *label, const cl1_report_stats *a,
                         const cl1_report_stats *x) {
  char cell[CL1_REP_STATS_CELLS][32];
  cl1_rep_stats_cells(a, x, cell);
  cl1_rep_printf(b, "| %s |", label);
  for (int i = 0; i < CL1_REP_STATS_CELLS; i++) cl1_rep_printf(b, " %s |", cell[i]);
  cl1_rep_puts(b, "\n");
}

static int md_summary(cl1_rep_buf *b, const cl1_report_section *s, int col, cl1_err *err) {
  cl1_rep_puts(b, "\n### Summary vs ");
  cl1_rep_md(b, cl1_report_col_label(s, col));
  cl1_rep_puts(b, "\n\n");
  int left_out = cl1_rep_left_out(s, col);
  if (left_out)
    cl1_rep_printf(b, "%d task%s without a time for this baseline left out (see the per-task "
                   "table).\n\n", left_out, left_out == 1 ? "" : "s");
  cl1_rep_puts(b, "| level | tasks | correct | success | mean | mean excl. " CL1_REP_DAGGER
                  " | geomean | median | median excl. " CL1_REP_DAGGER " | max | >1.01x |");
  for (int p = 0; p < CL1_REPORT_N_FAST; p++) cl1_rep_printf(b, " fast_%g |", cl1_report_fast_p[p]);
  cl1_rep_puts(b, "\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  int lv[CL1_REP_MAX_LEVELS];
  int nl = cl1_report_levels(s, lv, CL1_REP_MAX_LEVELS);
  for (int k = 0; k <= nl; k++) {
    int level = k < nl ? lv[k] : 0;
    cl1_report_stats a, x;
    if (cl1_rep_level_stats(s, col, level, &a, &x, err)) return -1;
    char label[32];
    if (level) snprintf(label, sizeof label, "%d", level);
    else snprintf(label, sizeof label, "all");
    md_stats_row(b, label, &a, &x);
  }
  return 0;
}

static void md_tasks(cl1_rep_buf *b, const cl1_report_section *s) {
  cl1_rep_puts(b, "\n### Per task\n\n| task | level | best vs C reference |");
  for (int c = 1; c < s->n_cols; c++) {
    cl1_rep_puts(b, " vs ");
    cl1_rep_md(b, s->col[c]);
    cl1_rep_puts(b, " |");
  }
  cl1_rep_puts(b, " samples passed/evaluated/all | evaluations passed/all | rounds | flags |\n|---|---:|");
  for (int c = 0; c < s->n_cols; c++) cl1_rep_puts(b, "---:|");
  cl1_rep_puts(b, "---:|---:|---:|---|\n");
  for (int i = 0; i < s->n_tasks; i++) {
    const cl1_report_task *t = &s->tasks[i];
    char f[32];
    cl1_rep_puts(b, "| ");
    cl1_rep_md(b, t->id);
    cl1_rep_printf(b, "%s | %d |", t->degenerate ? " " CL1_REP_DAGGER : "", t->level);
    for (int c = 0; c < s->n_cols; c++) {
      if (!t->has[c]) {
        cl1_rep_puts(b, " n/a (");
        cl1_rep_md(b, t->note[c] ? t->note[c] : "");
        cl1_rep_puts(b, ") |");
      } else {
        cl1_rep_printf(b, " %s |", t->correct ? cl1_rep_fmt_x(t->speedup[c], f) : "failed");
      }
    }
    cl1_rep_printf(b, " %d/%d/%d | %d/%d | %d | ", t->n_passed, t->n_evaluated, t->n_samples,
                   t->n_evals_passed, t->n_evals, t->n_rounds);
    cl1_rep_md(b, *t->flags ? t->flags : CL1_REP_DASH);
    cl1_rep_puts(b, " |\n");
  }
}

/* One table per run: a row per task, a column per round; "—" while no solution passed. */
static void md_rounds(cl1_rep_buf *b, const cl1_report_section *s) {
  for (int i = 0; i < s->n_rounds;) {
    long long run = s->rounds[i].run;
    int j = i, last = 0;
    while (j < s->n_rounds && s->rounds[j].run == run) {
      if (s->rounds[j].round > last) last = s->rounds[j].round;
      j++;
    }
    cl1_rep_printf(b, "\n### Best speedup per round, run %lld\n\n| task |", run);
    for (int k = 1; k <= last; k++) cl1_rep_printf(b, " %d |", k);
    cl1_rep_puts(b, "\n|---|");
    for (int k = 1; k <= last; k++) cl1_rep_puts(b, "---:|");
    cl1_rep_puts(b, "\n");
    for (int a = i; a < j;) {
      int task = s->rounds[a].task, k = 1;
      cl1_rep_puts(b, "| ");
      cl1_rep_md(b, s->tasks[task].id);
      cl1_rep_puts(b, s->tasks[task].degenerate ? " " CL1_REP_DAGGER " |" : " |");
      for (; a < j && s->rounds[a].task == task; a++) {
        for (; k < s->rounds[a].round; k++) cl1_rep_puts(b, " |");
        char f[32];
        cl1_rep_printf(b, " %s |", cl1_rep_fmt_x(s->rounds[a].best, f));
        k++;
      }
      for (; k <= last; k++) cl1_rep_puts(b, " |");
      cl1_rep_puts(b, "\n");
    }
    i = j;
  }
}

int cl1_report_markdown(const cl1_report *r, char **out, cl1_err *err) {
  cl1_rep_buf b = {0};
  md_header(&b, r);
  for (int i = 0; i < r->n_sec; i++) {
    const cl1_report_section *s = &r->sec[i];
    cl1_rep_puts(&b, "\n## ");
    cl1_rep_md(&b, s->backend);
    cl1_rep_puts(&b, ", shapes ");
    cl1_rep_md(&b, s->shapes);
    cl1_rep_printf(&b, "\n\n%d task%s; evaluated on: ", s->n_tasks, s->n_tasks == 1 ? "" : "s");
    cl1_rep_md(&b, *s->gpus ? s->gpus : CL1_REP_DASH);
    cl1_rep_puts(&b, ".\n");
    for (int c = 0; c < s->n_cols; c++)
      if (md_summary(&b, s, c, err)) {
        free(b.p);
        return -1;
      }
    md_tasks(&b, s);
    md_rounds(&b, s);
  }
  cl1_rep_train_md(&b, r);
  return cl1_rep_take(&b, "Markdown report", out, err);
}
