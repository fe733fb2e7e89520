/* report_int.h — what the report's files share (report.c: statistics and text helpers;
 * report_db.c: reading the store; report_md.c, report_json.c, report_html.c: the renderers;
 * report_train.c, report_train_view.c: the training view): a
 * growing text buffer with escaping, and number formatting. Private to the report. */
#ifndef CL1_REPORT_INT_H
#define CL1_REPORT_INT_H
#include <stdbool.h>
#include <stddef.h>
#include "report.h"

/* A growing text buffer; after a failed allocation it stays failed and cl1_rep_take says so. */
typedef struct {
  char *p;
  size_t n, cap;
  bool oom;
} cl1_rep_buf;

void cl1_rep_printf(cl1_rep_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cl1_rep_puts(cl1_rep_buf *b, const char *s);
/* Text for a Markdown table cell: '|' and '\' escaped, '<' '>' '&' as entities, newlines as
 * spaces. */
void cl1_rep_md(cl1_rep_buf *b, const char *s);
/* Text for HTML content or a double-quoted attribute. */
void cl1_rep_html(cl1_rep_buf *b, const char *s);
/* The text of one run's description ("policy replay (...), model m, cuda/small, done, started
 * ...") after the caller's opening, each field through esc (cl1_rep_md or cl1_rep_html). */
void cl1_rep_run_line(cl1_rep_buf *b, const cl1_report_run *u, void (*esc)(cl1_rep_buf *, const char *));
/* Hands the text over (*out, caller frees) or fails naming what was being rendered. */
int cl1_rep_take(cl1_rep_buf *b, const char *what, char **out, cl1_err *err);

/* "2.50x", or "—" for NAN. */
const char *cl1_rep_fmt_x(double v, char buf[32]);
/* "66.7%", or "—" for NAN. */
const char *cl1_rep_fmt_pct(double v, char buf[32]);

/* The most levels a section's summary lists. */
#define CL1_REP_MAX_LEVELS 16
/* A level's statistics (level 0: all) in column col: *a over every task, *x without the
 * degenerate ones. */
int cl1_rep_level_stats(const cl1_report_section *s, int col, int level, cl1_report_stats *a,
                        cl1_report_stats *x, cl1_err *err);
/* The tasks without a time in column col (left out of its summary). */
int cl1_rep_left_out(const cl1_report_section *s, int col);
/* A summary row's cells after its level, in the tables' column order: tasks, correct, success,
 * mean, mean excl. degenerate, geomean, median, median excl., max, >1.01x, then fast_p. */
#define CL1_REP_STATS_CELLS (10 + CL1_REPORT_N_FAST)
void cl1_rep_stats_cells(const cl1_report_stats *a, const cl1_report_stats *x,
                         char cell[CL1_REP_STATS_CELLS][32]);

/* Whether any covered run used the replay policy; all_replayed says whether every one did. */
bool cl1_rep_replayed(const cl1_report *r, bool *all_replayed);

/* The training view (report_train.c loads it, report_train_view.c renders it): read from the
 * store's train_runs and train_events when the file has them (schema v5), none otherwise. */
int cl1_rep_train_load(void *sqlite_db, const char *path, cl1_report *r, cl1_err *err);
void cl1_rep_train_free(cl1_report *r);
void cl1_rep_train_md(cl1_rep_buf *b, const cl1_report *r);
int cl1_rep_train_html(cl1_rep_buf *b, const cl1_report *r, cl1_err *err);
/* Adds "training": [...] to the JSON document (a cJSON object). */
void cl1_rep_train_json(void *cjson_doc, const cl1_report *r);
/* "1.23", or "—" for NAN. */
const char *cl1_rep_fmt_num(double v, char buf[32]);

/* The degenerate-task mark (a dagger) used by every renderer. */
#define CL1_REP_DAGGER "\xe2\x80\xa0"
/* The em dash printed for an undefined number. */
#define CL1_REP_DASH "\xe2\x80\x94"

#endif
