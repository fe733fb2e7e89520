/* report.c — the report's numeric core (the CUDA-L1 summary of per-task rows), the report's
 * lifetime, and the text helpers its renderers share. Reading the store is report_db.c. */
#include "report_int.h"
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double cl1_report_fast_p[CL1_REPORT_N_FAST] = {0, 1, 1.5, 2};

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static bool in_set(const cl1_report_task *t, int col, int level, bool excl_degenerate) {
  return t->has[col] && (level == 0 || t->level == level) && !(excl_degenerate && t->degenerate);
}

int cl1_report_stats_compute(const cl1_report_task *rows, int n, int col, int level,
                             bool excl_degenerate, cl1_report_stats *out, cl1_err *err) {
  assert(col >= 0 && col < CL1_REPORT_MAX_COLS && n >= 0);
  memset(out, 0, sizeof *out);
  out->success = out->mean = out->geomean = out->median = out->max = out->over_1_01 = NAN;
  for (int p = 0; p < CL1_REPORT_N_FAST; p++) out->fast[p] = NAN;
  double *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
  if (!v) return cl1_err_set(err, "report: out of memory summarising %d tasks", n);
  int over = 0, fast[CL1_REPORT_N_FAST] = {0};
  double sum = 0, sum_log = 0;
  for (int i = 0; i < n; i++) {
    const cl1_report_task *t = &rows[i];
    if (!in_set(t, col, level, excl_degenerate)) continue;
    out->n_tasks++;
    if (!t->correct) continue;
    double s = t->speedup[col];
    assert(s > 0); /* a pass always has a positive speedup (report_db.c refuses others) */
    v[out->n_correct++] = s;
    sum += s;
    sum_log += log(s);
    over += s > 1.01;
    for (int p = 0; p < CL1_REPORT_N_FAST; p++) fast[p] += s > cl1_report_fast_p[p];
  }
  int nt = out->n_tasks, nc = out->n_correct;
  if (nt > 0) {
    out->success = (double)nc / nt;
    out->over_1_01 = (double)over / nt;
    for (int p = 0; p < CL1_REPORT_N_FAST; p++) out->fast[p] = (double)fast[p] / nt;
  }
  if (nc > 0) {
    qsort(v, (size_t)nc, sizeof *v, cmp_double);
    out->mean = sum / nc;
    out->geomean = exp(sum_log / nc);
    out->median = nc % 2 ? v[nc / 2] : 0.5 * (v[nc / 2 - 1] + v[nc / 2]);
    out->max = v[nc - 1];
  }
  free(v);
  return 0;
}

double cl1_report_vs_baseline(double baseline_ms, double cand_ms) {
  if (!(baseline_ms > 0) || !(cand_ms > 0) || isinf(baseline_ms) || isinf(cand_ms)) return NAN;
  return baseline_ms / cand_ms;
}

int cl1_report_levels(const cl1_report_section *s, int *levels, int max) {
  int k = 0;
  for (int i = 0; i < s->n_tasks; i++) {
    int lv = s->tasks[i].level, j = 0;
    while (j < k && levels[j] != lv) j++;
    if (j < k || k == max) continue;
    int at = k++;
    while (at > 0 && levels[at - 1] > lv) { levels[at] = levels[at - 1]; at--; }
    levels[at] = lv;
  }
  return k;
}

bool cl1_rep_replayed(const cl1_report *r, bool *all_replayed) {
  int k = 0;
  for (int i = 0; i < r->n_runs; i++) k += !strcmp(r->runs[i].policy, "replay");
  if (all_replayed) *all_replayed = k > 0 && k == r->n_runs;
  return k > 0;
}

void cl1_report_title(const cl1_report *r, char *buf, size_t n) {
  char what[64];
  if (r->run) snprintf(what, sizeof what, "run %lld", r->run);
  else snprintf(what, sizeof what, "all runs");
  bool all;
  if (!cl1_rep_replayed(r, &all)) {
    snprintf(buf, n, "cudal1 results: %s", what);
    return;
  }
  if (all) {
    snprintf(buf, n, "cudal1 results: %s, replayed completions (not generated)", what);
    return;
  }
  char ids[256] = "";
  size_t k = 0;
  int many = 0;
  for (int i = 0; i < r->n_runs && k < sizeof ids - 24; i++)
    if (!strcmp(r->runs[i].policy, "replay")) {
      k += (size_t)snprintf(ids + k, sizeof ids - k, "%s%lld", k ? ", " : "", r->runs[i].id);
      many++;
    }
  snprintf(buf, n, "cudal1 results: %s (run%s %s: replayed completions (not generated))", what,
           many > 1 ? "s" : "", ids);
}

const char *cl1_report_col_label(const cl1_report_section *s, int c) {
  assert(c >= 0 && c < s->n_cols);
  return c == 0 ? "C reference" : s->col[c];
}

static void free_section(cl1_report_section *s) {
  for (int i = 0; i < s->n_tasks; i++) {
    cl1_report_task *t = &s->tasks[i];
    free(t->id);
    free(t->name);
    free(t->flags);
    for (int c = 0; c < CL1_REPORT_MAX_COLS; c++) free(t->note[c]);
  }
  free(s->tasks);
  free(s->rounds);
  for (int c = 0; c < s->n_cols; c++) free(s->col[c]);
  free(s->backend);
  free(s->shapes);
  free(s->gpus);
}

void cl1_report_free(cl1_report *r) {
  if (!r) return;
  for (int i = 0; i < r->n_sec; i++) free_section(&r->sec[i]);
  free(r->sec);
  for (int i = 0; i < r->n_runs; i++) {
    cl1_report_run *u = &r->runs[i];
    free(u->policy);
    free(u->model);
    free(u->device);
    free(u->shapes);
    free(u->status);
    free(u->started_at);
    free(u->finished_at);
  }
  free(r->runs);
  cl1_rep_train_free(r);
  free(r->db_path);
  free(r);
}

/* ---- text helpers ---- */

static bool reserve(cl1_rep_buf *b, size_t more) {
  if (b->oom) return false;
  if (b->n + more + 1 <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->n + more + 1) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    b->oom = true;
    return false;
  }
  b->p = p;
  b->cap = cap;
  return true;
}

void cl1_rep_printf(cl1_rep_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[512];
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (k < 0) {
    b->oom = true;
    return;
  }
  if ((size_t)k < sizeof tmp) {
    cl1_rep_puts(b, tmp);
    return;
  }
  if (!reserve(b, (size_t)k)) return;
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

void cl1_rep_puts(cl1_rep_buf *b, const char *s) {
  size_t k = strlen(s);
  if (!reserve(b, k)) return;
  memcpy(b->p + b->n, s, k + 1);
  b->n += k;
}

static void put_char(cl1_rep_buf *b, char c) {
  if (!reserve(b, 1)) return;
  b->p[b->n++] = c;
  b->p[b->n] = 0;
}

void cl1_rep_md(cl1_rep_buf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '|': cl1_rep_puts(b, "\\|"); break;
    case '\\': cl1_rep_puts(b, "\\\\"); break;
    case '<': cl1_rep_puts(b, "&lt;"); break;
    case '>': cl1_rep_puts(b, "&gt;"); break;
    case '&': cl1_rep_puts(b, "&amp;"); break;
    case '\n': case '\r': case '\t': put_char(b, ' '); break;
    default: put_char(b, *s);
    }
  }
}

void cl1_rep_html(cl1_rep_buf *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '<': cl1_rep_puts(b, "&lt;"); break;
    case '>': cl1_rep_puts(b, "&gt;"); break;
    case '&': cl1_rep_puts(b, "&amp;"); break;
    case '"': cl1_rep_puts(b, "&quot;"); break;
    case '\'': cl1_rep_puts(b, "&#39;"); break;
    default: put_char(b, *s);
    }
  }
}

int cl1_rep_take(cl1_rep_buf *b, const char *what, char **out, cl1_err *err) {
  if (!b->oom && !b->p) reserve(b, 0); /* an empty document is still a string */
  if (b->oom) {
    free(b->p);
    *b = (cl1_rep_buf){0};
    return cl1_err_set(err, "report: out of memory rendering the %s", what);
  }
  if (b->n == 0) b->p[0] = 0;
  *out = b->p;
  *b = (cl1_rep_buf){0};
  return 0;
}

const char *cl1_rep_fmt_x(double v, char buf[32]) {
  if (isnan(v)) snprintf(buf, 32, CL1_REP_DASH);
  else snprintf(buf, 32, "%.2fx", v);
  return buf;
}

const char *cl1_rep_fmt_pct(double v, char buf[32]) {
  if (isnan(v)) snprintf(buf, 32, CL1_REP_DASH);
  else snprintf(buf, 32, "%.1f%%", 100.0 * v);
  return buf;
}

int cl1_rep_level_stats(const cl1_report_section *s, int col, int level, cl1_report_stats *a,
                        cl1_report_stats *x, cl1_err *err) {
  return cl1_report_stats_compute(s->tasks, s->n_tasks, col, level, false, a, err) ||
                 cl1_report_stats_compute(s->tasks, s->n_tasks, col, level, true, x, err)
             ? -1
             : 0;
}

int cl1_rep_left_out(const cl1_report_section *s, int col) {
  int n = 0;
  for (int i = 0; i < s->n_tasks; i++) n += !s->tasks[i].has[col];
  return n;
}

void cl1_rep_stats_cells(const cl1_report_stats *a, const cl1_report_stats *x,
                         char cell[CL1_REP_STATS_CELLS][32]) {
  snprintf(cell[0], 32, "%d", a->n_tasks);
  snprintf(cell[1], 32, "%d", a->n_correct);
  cl1_rep_fmt_pct(a->success, cell[2]);
  cl1_rep_fmt_x(a->mean, cell[3]);
  cl1_rep_fmt_x(x->mean, cell[4]);
  cl1_rep_fmt_x(a->geomean, cell[5]);
  cl1_rep_fmt_x(a->median, cell[6]);
  cl1_rep_fmt_x(x->median, cell[7]);
  cl1_rep_fmt_x(a->max, cell[8]);
  cl1_rep_fmt_pct(a->over_1_01, cell[9]);
  for (int p = 0; p < CL1_REPORT_N_FAST; p++) cl1_rep_fmt_pct(a->fast[p], cell[10 + p]);
}

void cl1_rep_run_line(cl1_rep_buf *b, const cl1_report_run *u, void (*esc)(cl1_rep_buf *, const char *)) {
  esc(b, u->policy);
  if (!strcmp(u->policy, "replay")) cl1_rep_puts(b, " (replayed completions, not generated)");
  cl1_rep_puts(b, ", model ");
  esc(b, u->model ? u->model : CL1_REP_DASH);
  cl1_rep_puts(b, ", ");
  esc(b, u->device);
  cl1_rep_puts(b, "/");
  esc(b, u->shapes);
  cl1_rep_puts(b, ", ");
  esc(b, u->status);
  cl1_rep_puts(b, ", started ");
  esc(b, u->started_at ? u->started_at : CL1_REP_DASH);
}
