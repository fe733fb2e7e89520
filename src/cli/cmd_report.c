/* cmd_report.c — `cudal1 report`: the results table from the store, as Markdown (stdout by
 * default), one self-contained HTML file, and JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "base/file.h"
#include "report/report.h"

static const char usage[] =
    "usage: cudal1 report [--db PATH] [--run ID|latest] [--shapes test|small|large]\n"
    "                     [--device cuda|host] [--md FILE] [--html FILE] [--json FILE]\n"
    "\n"
    "The CUDA-L1 results table from the store: per level and overall, over each task's best\n"
    "passing solution, the mean / geomean / median / max speedup, the share faster than 1.01x,\n"
    "fast_p for p in {0, 1, 1.5, 2} and the success rate, against the C reference and each\n"
    "baseline in the store; a per-task table and the best speedup per round. Then the training\n"
    "view: per `cudal1 train` run, each stage's rounds (success rate, reward mean, mean and best\n"
    "speedup of the sampled solutions), its evaluations and GRPO steps (curves in the HTML).\n"
    "\n"
    "  --db PATH       the store (default ./cudal1.db); opened read-only\n"
    "  --run ID        one run (its solutions and rounds; no training view); 'latest' = the\n"
    "                  newest; default: all\n"
    "  --shapes S      one shape set; default: every one in the data, a table each\n"
    "  --device D      one backend (cuda | host); default: every one in the data\n"
    "  --md FILE       write the Markdown there ('-' = stdout)\n"
    "  --html FILE     write one self-contained HTML file with SVG plots\n"
    "  --json FILE     write the numbers as JSON\n"
    "With no output flag the Markdown goes to stdout. Exit status 2 on a missing or foreign\n"
    "store, an unknown run, or nothing to report.\n";

static int write_out(const char *path, const char *text) {
  if (!strcmp(path, "-")) {
    fputs(text, stdout);
    return fflush(stdout) ? 2 : 0;
  }
  cl1_err err = {{0}};  /* atomically: a failed write leaves the old report, not half of one */
  if (cl1_file_write_atomic(path, text, &err)) {
    fprintf(stderr, "cudal1 report: %s\n", err.msg);
    return 2;
  }
  return 0;
}

/* Renders r with one renderer and writes it to path. */
static int emit(const cl1_report *r, int (*render)(const cl1_report *, char **, cl1_err *),
                const char *path) {
  cl1_err err = {{0}};
  char *text = NULL;
  if (render(r, &text, &err)) {
    fprintf(stderr, "cudal1 report: %s\n", err.msg);
    return 3;
  }
  int rc = write_out(path, text);
  free(text);
  return rc;
}

static int one_of(const char *flag, const char *v, const char *a, const char *b, const char *c) {
  if (!strcmp(v, a) || !strcmp(v, b) || (c && !strcmp(v, c))) return 0;
  fprintf(stderr, "cudal1 report: %s: expected %s, %s%s%s, got '%s'\n", flag, a, b,
          c ? " or " : "", c ? c : "", v);
  return 2;
}

int cl1_cmd_report(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage)) return 0;
  cl1_report_opts o = {.db_path = "cudal1.db"};
  const char *md = NULL, *html = NULL, *json = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = !strcmp(a, "--db") ? &o.db_path : !strcmp(a, "--run") ? &o.run
                        : !strcmp(a, "--shapes") ? &o.shapes : !strcmp(a, "--device") ? &o.backend
                        : !strcmp(a, "--md") ? &md : !strcmp(a, "--html") ? &html
                        : !strcmp(a, "--json") ? &json : NULL;
    if (!slot) return cl1_cli_unknown("report", a);
    if (i + 1 >= argc) {
      fprintf(stderr, "cudal1 report: %s needs a value\n", a);
      return 2;
    }
    *slot = argv[++i];
  }
  if (o.shapes && one_of("--shapes", o.shapes, "test", "small", "large")) return 2;
  if (o.backend && one_of("--device", o.backend, "cuda", "host", NULL)) return 2;
  cl1_err err = {{0}};
  cl1_report *r = NULL;
  if (cl1_report_load(&o, &r, &err)) {
    fprintf(stderr, "cudal1 report: %s\n", err.msg);
    return 2;
  }
  int rc = 0;
  if (!md && !html && !json) md = "-";
  if (!rc && md) rc = emit(r, cl1_report_markdown, md);
  if (!rc && html) rc = emit(r, cl1_report_html, html);
  if (!rc && json) rc = emit(r, cl1_report_json, json);
  cl1_report_free(r);
  return rc;
}
