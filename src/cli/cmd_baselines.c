/* cmd_baselines.c — `cudal1 baselines import FILE... [--db PATH]`: loads the PyTorch baseline
 * files tools/baselines.py writes (bench/results/h200/baselines-<shapes>.json) into the store,
 * where `cudal1 report` and `cudal1 eval --baseline NAME` find them. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "loop/baselines.h"
#include "store/store.h"

static const char usage[] =
    "usage: cudal1 baselines import FILE... [--db PATH]\n"
    "\n"
    "Loads PyTorch baseline files (tools/baselines.py, run on the GPU machine: per task and\n"
    "shape set the C reference's time and eager / compile / reduce-overhead / graph times, or\n"
    "why a mode failed) into the store (default ./cudal1.db). A file with an error is named\n"
    "with the field and not imported at all.\n";

int cl1_cmd_baselines(int argc, char **argv) {
  if (cl1_cli_help(argc, argv, usage)) return 0;
  if (argc < 2) { fputs(usage, stderr); return 2; }
  if (strcmp(argv[1], "import")) return cl1_cli_verb("baselines", argv[1], "import");
  const char *db = "cudal1.db", *files[256];
  int n = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--db")) {
      if (i + 1 >= argc) { fprintf(stderr, "cudal1 baselines import: --db needs a path\n"); return 2; }
      db = argv[++i];
    } else if (argv[i][0] == '-') {
      return cl1_cli_unknown("baselines import", argv[i]);
    } else if (n == (int)(sizeof files / sizeof *files)) {
      fprintf(stderr, "cudal1 baselines import: at most %d files at once\n", n);
      return 2;
    } else {
      files[n++] = argv[i];
    }
  }
  if (!n) { fprintf(stderr, "cudal1 baselines import: no file given\n"); return 2; }
  cl1_err err = {{0}};
  cl1_store *s = NULL;
  if (cl1_store_open(db, &s, &err)) {
    fprintf(stderr, "cudal1 baselines: %s\n", err.msg);
    return 3;
  }
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    int ok = 0, failed = 0;
    if (cl1_baselines_import(s, files[i], &ok, &failed, &err)) {
      fprintf(stderr, "cudal1 baselines: %s\n", err.msg);
      rc = 2;
    } else {
      printf("%s: %d baseline times, %d failed modes imported into %s\n", files[i], ok, failed, db);
    }
  }
  cl1_store_close(s);
  return rc;
}
