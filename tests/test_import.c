/* test_import.c — `cudal1 import cuda-l1|jsonl` (issue 22): rows of small fixture files written
 * here (never CUDA-L1's own data) become tasks, solutions of origin 'import' and their claims
 * with file and line; bad rows are named FILE:LINE: reason and skipped; the same problem is made
 * into a task folder once; a second import adds nothing; a row the store refuses leaves none of
 * its task, solution or claim; `--list` touches nothing; the v6 migration keeps a v5 store's rows.
 * The task importer is a shell stand-in ($CUDAL1_TASK_IMPORTER: PROGRAM PROBLEM.py DIR, the
 * interface of `cudal1 task import`) that logs its calls and refuses problems marked for it.
 * Each test has its own folder and store (store_fixture.h) and runs the built binary. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include "store_query.h"
#include "harness.h"
#include "base/file.h"
#include "base/hash.h"
#include "data/import.h"
#include "store/store_int.h"
#include "store_fixture.h"

#define RELU_REF                                                                           \
  "import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n"                       \
  "    def forward(self, x):\n        return torch.relu(x)\n\n"                            \
  "def get_inputs():\n    return [torch.randn(4, 8)]\n\ndef get_init_inputs():\n    return []\n"
#define CONV_REF                                                                           \
  "import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n"                       \
  "    def __init__(self, c):\n        super().__init__()\n        self.conv = nn.Conv2d(c, c, 3)\n" \
  "    def forward(self, x):\n        return self.conv(x)\n\n"                               \
  "def get_inputs():\n    return [torch.randn(1, 3, 8, 8)]\n\ndef get_init_inputs():\n    return [3]\n"
#define RELU_NEW "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n" \
                 "        return x.clamp_min(0)\n"
#define RELU_NEW2 "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n" \
                  "        return torch.where(x > 0, x, 0)\n"
#define CONV_NEW "import torch\nclass ModelNew(torch.nn.Module):\n    pass  # conv\n"

/* The stand-in task importer: logs PROBLEM, refuses one marked REFUSE_ME the way a Python error
 * ends (last line), exits 0 without a task.json for NO_TASK_JSON, else makes DIR (which must not
 * exist yet) with task.json (its name, and the --level given, else 3; 0 for BAD_LEVEL) and
 * reference.py. */
static const char fake_importer[] =
    "#!/bin/sh\n"
    "echo \"$1\" >> \"$(dirname \"$0\")/calls.log\"\n"
    "echo \"$3 $4\" >> \"$(dirname \"$0\")/options.log\"\n"
    "echo \"$5 $6\" >> \"$(dirname \"$0\")/names.log\"\n"
    "if grep -q REFUSE_ME \"$1\"; then\n"
    "  echo 'Traceback (most recent call last):' >&2\n"
    "  echo 'ValueError: cannot trace this model' >&2\n"
    "  exit 1\n"
    "fi\n"
    "grep -q NO_TASK_JSON \"$1\" && exit 0\n"
    "[ -e \"$2\" ] && exit 9\n"
    "mkdir \"$2\" || exit 9\n"
    "lv=3; [ \"$3\" = --level ] && lv=$4; grep -q BAD_LEVEL \"$1\" && lv=0\n"
    "cp \"$1\" \"$2/reference.py\" && printf '{\"name\":\"%s\",\"level\":%s}\\n' \"$(basename \"$2\")\" "
    "\"$lv\" > \"$2/task.json\"\n";

static void put_importer(th_store *f) {
  char path[400];
  snprintf(path, sizeof path, "%s/fake_import.sh", f->dir);
  assert_int_equal(th_write(path, fake_importer), 0);
  assert_int_equal(chmod(path, 0755), 0);
}

/* How many problems the stand-in was given. */
static int importer_calls(th_store *f) {
  char path[400], line[PATH_MAX];
  snprintf(path, sizeof path, "%s/calls.log", f->dir);
  FILE *fp = fopen(path, "r");
  int n = 0;
  while (fp && fgets(line, sizeof line, fp)) n++;
  if (fp) fclose(fp);
  return n;
}

/* One CUDA-L1 row: code NULL writes null; score NAN leaves score_default null. */
static char *l1_row(int level, int task, const char *ref, const char *code, double score) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "level_id", level);
  cJSON_AddNumberToObject(o, "task_id", task);
  cJSON_AddStringToObject(o, "ref_code", ref);
  if (code) cJSON_AddStringToObject(o, "custom_code", code);
  else cJSON_AddNullToObject(o, "custom_code");
  if (isnan(score)) cJSON_AddNullToObject(o, "score_default");
  else cJSON_AddNumberToObject(o, "score_default", score);
  cJSON_AddNullToObject(o, "score_cuda_graph");
  char *t = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return t;
}

/* Writes lines (NULL-terminated list; each freed when owned[i]) as the file name in f->dir. */
static void write_lines(th_store *f, const char *name, char **lines, const bool *owned, int n) {
  char path[400];
  snprintf(path, sizeof path, "%s/%s", f->dir, name);
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  for (int i = 0; i < n; i++) {
    fprintf(fp, "%s\n", lines[i]);
    if (owned[i]) free(lines[i]);
  }
  fclose(fp);
}

/* Runs `cudal1 import ARGS` with the stand-in importer from the repository root: stdout into
 * out, stderr into err; returns the exit status. */
static int run_import(th_store *f, char *out, size_t cap, char *err, size_t ecap,
                      const char *fmt, ...) {
  char args[2048], cmd[4096], epath[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(epath, sizeof epath, "%s/stderr.txt", f->dir);
  snprintf(cmd, sizeof cmd, "CUDAL1_TASK_IMPORTER=%s/fake_import.sh %s/cudal1 import %s 2>%s",
           f->dir, th_build(), args, epath);
  int rc = th_run(cmd, out, cap);
  err[0] = 0;
  char *text = NULL;
  size_t n;
  cl1_err e;
  if (!cl1_file_read_text(epath, 1 << 20, &text, &n, &e)) {
    snprintf(err, ecap, "%s", text);
    free(text);
  }
  unlink(epath);
  return rc;
}

static void raw_exec(const char *db_path, const char *sql) {
  sqlite3 *db;
  assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) fail_msg("%s: %s", sql, msg);
  sqlite3_close(db);
}

/* The folder name part a problem's text gets: the first 8 hex digits of its SHA-256. */
static void hash8(const char *text, char out[9]) {
  cl1_sha *h = cl1_sha_new();
  char hex[65];
  cl1_sha_add(h, text, strlen(text));
  cl1_sha_hex(h, hex);
  memcpy(out, hex, 8);
  out[8] = 0;
}

static bool exists(const char *fmt, ...) {
  char path[PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(path, sizeof path, fmt, ap);
  va_end(ap);
  return access(path, F_OK) == 0;
}

/* Entries of a folder whose name starts with prefix. */
static int entries(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += !strncmp(e->d_name, prefix, strlen(prefix)) && strcmp(e->d_name, ".") &&
         strcmp(e->d_name, "..");
  if (d) closedir(d);
  return n;
}

#define ASSERT_HAS(text, want)                                                \
  do {                                                                        \
    if (!strstr((text), (want))) fail_msg("wanted '%s' in:\n%s", (want), (text)); \
  } while (0)

/* ---- cuda-l1 ------------------------------------------------------------------------------ */

/* Twelve lines: three good rows (two share a problem), two without code, six bad, one blank. */
static void write_l1_fixture(th_store *f) {
  char *lines[] = {
      l1_row(1, 19, RELU_REF, RELU_NEW, 1.5),
      l1_row(1, 20, CONV_REF "# 20\n", NULL, NAN),
      l1_row(1, 21, CONV_REF "# 21\n", "None", 2.0),
      "{\"level_id\": 1, \"task_id\": 4,",
      "{\"level_id\": 1, \"task_id\": 5, \"custom_code\": \"class ModelNew: pass\"}",
      "{\"level_id\": 1, \"task_id\": 6, \"ref_code\": \"x\", \"custom_code\": 42}",
      "{\"level_id\": 1, \"task_id\": 7, \"ref_code\": \"x\", \"custom_code\": null,"
      " \"score_default\": \"fast\"}",
      "",
      NULL, /* line 9: below */
      "{\"level_id\": 1, \"task_id\": 10, \"ref_code\": \"x\", \"custom_code\": \"def f(): pass\"}",
      l1_row(1, 19, RELU_REF, RELU_NEW2, 1.75),
      "[1, 2]",
  };
  bool owned[12] = {true, true, true, false, false, false, false, false, true, false, true, false};
  /* line 9: a named task of level 2 */
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "level_id", 2);
  cJSON_AddNumberToObject(o, "task_id", 5);
  cJSON_AddStringToObject(o, "name", "Conv 2D+bias");
  cJSON_AddStringToObject(o, "ref_code", CONV_REF);
  cJSON_AddStringToObject(o, "custom_code", CONV_NEW);
  cJSON_AddNumberToObject(o, "score_default", 3.25);
  lines[8] = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  write_lines(f, "l1.jsonl", lines, owned, 12);
}

/* Good rows become tasks, solutions and claims; bad rows are named with their line and field;
 * the summary adds them up; the task folders sit in imported/ beside the store. */
static void test_cuda_l1_rows_become_tasks_solutions_and_claims(void **state) {
  th_store *f = *state;
  put_importer(f);
  write_l1_fixture(f);
  char out[4096], err[8192], buf[1024], want[PATH_MAX + 200];
  int rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/l1.jsonl --db %s", f->dir,
                      f->path);
  if (rc != 0) fail_msg("exit %d\nstdout: %s\nstderr: %s", rc, out, err);
  ASSERT_HAS(out, "imported 3, skipped 8 (malformed 6, no custom code 2, task refused 0)");
  static const char *const bad[] = {":4: not valid JSON", ":5: ref_code: missing",
                                    ":6: custom_code: not a string (got a number)",
                                    ":7: score_default: not a number (got a string)",
                                    ":10: custom_code: no class ModelNew",
                                    ":12: not a JSON object (got an array)"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    snprintf(want, sizeof want, "%s/l1.jsonl%s", f->dir, bad[i]);
    ASSERT_HAS(err, want);
  }
  assert_null(strstr(err, ":2:")); /* no code is not an error */
  assert_null(strstr(err, ":3:"));
  char h1[9], h2[9];
  hash8(RELU_REF, h1);
  hash8(CONV_REF, h2);
  assert_true(exists("%s/imported/cuda-l1/level1/19_%s/task.json", f->dir, h1));
  assert_true(exists("%s/imported/cuda-l1/level1/19_%s/reference.py", f->dir, h1));
  assert_true(exists("%s/imported/cuda-l1/level2/5_Conv_2D_bias_%s/task.json", f->dir, h2));
  assert_int_equal(importer_calls(f), 2); /* line 11's problem is line 1's */
  /* each row's level reaches the importer (a problem file does not say it) */
  char opts[400], got[256] = "";
  snprintf(opts, sizeof opts, "%s/options.log", f->dir);
  FILE *of = fopen(opts, "r");
  assert_non_null(of);
  size_t gn = fread(got, 1, sizeof got - 1, of);
  got[gn] = 0;
  fclose(of);
  ASSERT_HAS(got, "--level 1\n");
  ASSERT_HAS(got, "--level 2\n");
  char names[400];
  snprintf(names, sizeof names, "%s/names.log", f->dir);
  of = fopen(names, "r");
  assert_non_null(of);
  gn = fread(got, 1, sizeof got - 1, of);
  got[gn] = 0;
  fclose(of);
  snprintf(want, sizeof want, "--name 19_%s\n", h1);  /* the folder's name, not the file's */
  ASSERT_HAS(got, want);
  snprintf(want, sizeof want, "%s/imported/cuda-l1/level1", f->dir);
  assert_int_equal(entries(want, "."), 0); /* no stage folder left */
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM tasks"), 2);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM solutions WHERE origin = 'import'"
                                  " AND backend = 'cuda' AND run_id IS NULL"), 3);
  snprintf(want, sizeof want, "level1/19_%s|1|19_%s", h1, h1);
  assert_string_equal(q_text(f->path, "SELECT id || '|' || level || '|' || name FROM tasks"
                                      " ORDER BY level", buf, sizeof buf), want);
  snprintf(want, sizeof want, "SELECT source FROM solutions WHERE task_id ="
           " 'level2/5_Conv_2D_bias_%s'", h2);
  assert_string_equal(q_text(f->path, want, buf, sizeof buf), CONV_NEW);
  /* claims and provenance: the file's real path, the line, the row's level and task */
  char real[PATH_MAX];
  snprintf(want, sizeof want, "%s/l1.jsonl", f->dir);
  assert_non_null(realpath(want, real));
  snprintf(want, sizeof want, "cuda-l1|%s|1|1|19|kernelbench|"
           "{\"score_default\":1.5,\"score_cuda_graph\":null}", real);
  assert_string_equal(q_text(f->path, "SELECT kind || '|' || source_file || '|' || line || '|' ||"
                                      " level || '|' || task || '|' || format || '|' || claims"
                                      " FROM import_claims ORDER BY line", buf, sizeof buf), want);
  assert_string_equal(q_text(f->path, "SELECT group_concat(line) FROM (SELECT line FROM"
                                      " import_claims ORDER BY line)", buf, sizeof buf), "1,9,11");
  assert_string_equal(q_text(f->path, "SELECT claims FROM import_claims WHERE line = 9", buf,
                             sizeof buf), "{\"score_default\":3.25}");
}

/* A second import of the same file adds no task, solution or claim and runs no importer. */
static void test_cuda_l1_reimport_adds_nothing(void **state) {
  th_store *f = *state;
  put_importer(f);
  write_l1_fixture(f);
  char out[4096], err[8192];
  for (int i = 0; i < 2; i++) {
    int rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/l1.jsonl --db %s",
                        f->dir, f->path);
    assert_int_equal(rc, 0);
    ASSERT_HAS(out, "imported 3, skipped 8 (malformed 6, no custom code 2, task refused 0)");
    assert_int_equal(q_num(f->path, "SELECT count(*) FROM tasks"), 2);
    assert_int_equal(q_num(f->path, "SELECT count(*) FROM solutions"), 3);
    assert_int_equal(q_num(f->path, "SELECT count(*) FROM import_claims"), 3);
    assert_int_equal(importer_calls(f), 2);
  }
}

/* A problem the importer refuses is skipped with its last line of output; one it "imports"
 * without a task.json too, and one whose task.json gives no task id; nothing of theirs reaches
 * the store. */
static void test_refused_problems_are_skipped_with_the_reason(void **state) {
  th_store *f = *state;
  put_importer(f);
  char *lines[] = {l1_row(1, 1, RELU_REF, RELU_NEW, 1.1),
                   l1_row(1, 2, RELU_REF "# REFUSE_ME\n", RELU_NEW, 9.0),
                   l1_row(1, 3, RELU_REF "# NO_TASK_JSON\n", RELU_NEW, 9.0),
                   l1_row(1, 4, RELU_REF "# BAD_LEVEL\n", RELU_NEW, 9.0)};
  bool owned[] = {true, true, true, true};
  write_lines(f, "r.jsonl", lines, owned, 4);
  char out[4096], err[8192], want[600];
  int rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/r.jsonl --db %s "
                      "--tasks-dir %s/tasks", f->dir, f->path, f->dir);
  if (rc != 0) fail_msg("exit %d\nstdout: %s\nstderr: %s", rc, out, err);
  ASSERT_HAS(out, "imported 1, skipped 3 (malformed 0, no custom code 0, task refused 3)");
  snprintf(want, sizeof want, "%s/r.jsonl:2: ref_code: the task importer refused it (exit 1): "
           "ValueError: cannot trace this model\n", f->dir);
  ASSERT_HAS(err, want);
  snprintf(want, sizeof want, "%s/r.jsonl:3: ref_code: the task importer exited 0 but wrote no "
           "task.json\n", f->dir);
  ASSERT_HAS(err, want);
  /* a task.json the loader could not give an id: no id of a made-up form in the store */
  snprintf(want, sizeof want, "%s/r.jsonl:4: ref_code: %s/tasks/cuda-l1/level1/4_", f->dir,
           f->dir);
  ASSERT_HAS(err, want);
  ASSERT_HAS(err, "/task.json has no \"level\" 1-3 and a plain \"name\"\n");
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM tasks"), 1);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM import_claims WHERE line = 1"), 1);
  snprintf(want, sizeof want, "%s/tasks/cuda-l1/level1", f->dir);
  /* task 1's folder and the unusable task 4's (the importer's own output, kept as it made it);
     no stage folder left */
  assert_int_equal(entries(want, ""), 2);
  assert_int_equal(entries(want, "1_"), 1);
  assert_int_equal(entries(want, "4_"), 1);
  assert_false(exists("%s/imported", f->dir)); /* --tasks-dir was used */
  /* only refused rows: nothing imported, exit 2 */
  char *only[] = {l1_row(1, 2, RELU_REF "# REFUSE_ME\n", RELU_NEW, 9.0)};
  bool own1[] = {true};
  write_lines(f, "r2.jsonl", only, own1, 1);
  rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/r2.jsonl --db %s", f->dir,
                  f->path);
  assert_int_equal(rc, 2);
  ASSERT_HAS(out, "imported 0, skipped 1 (malformed 0, no custom code 0, task refused 1)");
}

/* A row the store refuses (a trigger stands in for a failing write) leaves none of its task,
 * solution or claim; the import stops there with exit 3, the rows before it kept; once the
 * store takes writes again, importing the file again completes it. */
static void test_a_failed_row_leaves_nothing_half_written(void **state) {
  th_store *f = *state;
  put_importer(f);
  char *lines[] = {l1_row(1, 1, RELU_REF, RELU_NEW, 1.1), l1_row(1, 2, CONV_REF, CONV_NEW, 2.2),
                   l1_row(1, 3, CONV_REF "# 3\n", CONV_NEW, 3.3)};
  bool owned[] = {true, true, true};
  write_lines(f, "a.jsonl", lines, owned, 3);
  cl1_err e = {{0}};
  assert_int_equal(cl1_store_open(f->path, &f->s, &e), 0);
  th_store_close(f);
  raw_exec(f->path, "CREATE TRIGGER refuse_line_2 BEFORE INSERT ON import_claims"
                    " WHEN NEW.line = 2 BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
  char out[4096], err[8192], buf[256];
  int rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/a.jsonl --db %s", f->dir,
                      f->path);
  assert_int_equal(rc, 3);
  ASSERT_HAS(err, "refused by the test");
  ASSERT_HAS(out, "imported 1, skipped 0");
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM tasks"), 1);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM solutions"), 1);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM import_claims"), 1);
  assert_string_equal(q_text(f->path, "SELECT source FROM solutions", buf, sizeof buf), RELU_NEW);
  raw_exec(f->path, "DROP TRIGGER refuse_line_2");
  rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/a.jsonl --db %s", f->dir,
                  f->path);
  assert_int_equal(rc, 0);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM solutions"), 3);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM import_claims"), 3);
}

/* --list: one JSON line a good row, bad rows on stderr, no store, no folder, no importer. */
static void test_list_touches_nothing(void **state) {
  th_store *f = *state;
  put_importer(f);
  write_l1_fixture(f);
  char out[8192], err[8192];
  int rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/l1.jsonl --list --db %s",
                      f->dir, f->path);
  assert_int_equal(rc, 0);
  static const char *const want[] = {
      "{\"level\":1,\"task_id\":19,\"line\":1,\"has_custom_code\":true,\"score_default\":1.5}",
      "{\"level\":1,\"task_id\":20,\"line\":2,\"has_custom_code\":false,\"score_default\":null}",
      "{\"level\":1,\"task_id\":21,\"line\":3,\"has_custom_code\":false,\"score_default\":2}",
      "{\"level\":2,\"task_id\":5,\"line\":9,\"has_custom_code\":true,\"score_default\":3.25}",
      "{\"level\":1,\"task_id\":19,\"line\":11,\"has_custom_code\":true,\"score_default\":1.75}"};
  char all[4096] = "";
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    snprintf(all + strlen(all), sizeof all - strlen(all), "%s\n", want[i]);
  assert_string_equal(out, all);
  ASSERT_HAS(err, "l1.jsonl:4: not valid JSON");
  assert_false(exists("%s", f->path));
  assert_false(exists("%s/imported", f->dir));
  assert_int_equal(importer_calls(f), 0);
}

/* Exit status: an unreadable file is 2 and creates no store; a file of bad rows only is 2; an
 * empty file or one of rows without code is 0; usage errors are 2. */
static void test_exit_status(void **state) {
  th_store *f = *state;
  put_importer(f);
  char out[4096], err[4096];
  int rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/missing.jsonl --db %s",
                      f->dir, f->path);
  assert_int_equal(rc, 2);
  ASSERT_HAS(err, "missing.jsonl: cannot read: No such file or directory");
  rc = run_import(f, out, sizeof out, err, sizeof err, "jsonl %s --db %s", f->dir, f->path);
  assert_int_equal(rc, 2);
  ASSERT_HAS(err, "cannot read: it is a folder");
  assert_false(exists("%s", f->path));
  char *bad[] = {"not json"}, *none[] = {l1_row(1, 1, RELU_REF, NULL, NAN)};
  bool no[] = {false}, yes[] = {true};
  write_lines(f, "bad.jsonl", bad, no, 1);
  write_lines(f, "none.jsonl", none, yes, 1);
  char empty[400];
  snprintf(empty, sizeof empty, "%s/empty.jsonl", f->dir);
  assert_int_equal(th_write(empty, "\n\n"), 0);
  rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/bad.jsonl --db %s", f->dir,
                  f->path);
  assert_int_equal(rc, 2);
  ASSERT_HAS(out, "imported 0, skipped 1 (malformed 1, no custom code 0, task refused 0)");
  rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s --db %s", empty, f->path);
  assert_int_equal(rc, 0);
  ASSERT_HAS(out, "imported 0, skipped 0 (malformed 0, no custom code 0, task refused 0)");
  rc = run_import(f, out, sizeof out, err, sizeof err, "cuda-l1 %s/none.jsonl --db %s", f->dir,
                  f->path);
  assert_int_equal(rc, 0);
  ASSERT_HAS(out, "imported 0, skipped 1 (malformed 0, no custom code 1, task refused 0)");
  assert_int_equal(importer_calls(f), 0);
  static const char *const usage[] = {"", "foo x", "jsonl", "jsonl x --list", "cuda-l1 x --db",
                                      "cuda-l1 x y"};
  for (size_t i = 0; i < sizeof usage / sizeof *usage; i++) {
    rc = run_import(f, out, sizeof out, err, sizeof err, "%s", usage[i]);
    if (rc != 2 || !strstr(err, "cudal1 import"))
      fail_msg("import %s: exit %d, said: %s", usage[i], rc, err);
  }
  rc = run_import(f, out, sizeof out, err, sizeof err, "jsonl --help");
  assert_int_equal(rc, 0);
  ASSERT_HAS(out, "usage: cudal1 import cuda-l1 FILE");
}

/* ---- jsonl -------------------------------------------------------------------------------- */

static char *jl_row(const char *task, const char *code, const char *extra_json) {
  cJSON *o = extra_json ? cJSON_Parse(extra_json) : cJSON_CreateObject();
  assert_non_null(o);
  if (task) cJSON_AddStringToObject(o, "task", task);
  if (code) cJSON_AddStringToObject(o, "code", code);
  char *t = cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return t;
}

/* Suite ids through the resolver, a problem .py through the importer, a folder the importer
 * made under its own id; format inferred or checked, backend and meta kept; bad rows named. */
static void test_jsonl_rows(void **state) {
  th_store *f = *state;
  put_importer(f);
  char prob[400], missing[400], folder[600], h[9];
  snprintf(prob, sizeof prob, "%s/my prob.py", f->dir);
  snprintf(missing, sizeof missing, "%s/missing.py", f->dir);
  assert_int_equal(th_write(prob, CONV_REF), 0);
  hash8(CONV_REF, h);
  snprintf(folder, sizeof folder, "%s/imported/jsonl/my_prob_%s", f->dir, h);
  char *lines[] = {
      jl_row("level1/19_ReLU", "// cabi relu\n", "{\"meta\":{\"speedup\":2.0,\"by\":\"x\"}}"),
      jl_row(prob, CONV_NEW, NULL),
      jl_row(folder, CONV_NEW "# second\n", "{\"format\":\"kernelbench\"}"),
      jl_row("level1/no_such_task", "// x\n", NULL),
      jl_row("level1/19_ReLU", "// x\n", "{\"format\":\"kernelbench\"}"),
      jl_row("level1/19_ReLU", "// x\n", "{\"format\":\"ptx\"}"),
      jl_row("level1/19_ReLU", NULL, NULL),
      jl_row("level1/19_ReLU", "// host relu\n", "{\"backend\":\"host\"}"),
      jl_row(missing, CONV_NEW, NULL),
      jl_row("level1/19_ReLU", "// x\n", "{\"meta\":[1]}"),
  };
  bool owned[10];
  for (int i = 0; i < 10; i++) owned[i] = true;
  write_lines(f, "g.jsonl", lines, owned, 10);
  char out[4096], err[8192], buf[512], want[1200];
  int rc = run_import(f, out, sizeof out, err, sizeof err, "jsonl %s/g.jsonl --db %s", f->dir,
                      f->path);
  if (rc != 0) fail_msg("exit %d\nstdout: %s\nstderr: %s", rc, out, err);
  ASSERT_HAS(out, "imported 4, skipped 6 (malformed 6, no custom code 0, task refused 0)");
  static const char *const bad[] = {":4: task: no task 'level1/no_such_task'",
                                    ":5: code: format kernelbench, but no class ModelNew",
                                    ":6: format: 'ptx' is not cabi or kernelbench",
                                    ":7: code: missing", ":9: task: cannot read the problem",
                                    ":10: meta: not an object (got an array)"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    snprintf(want, sizeof want, "%s/g.jsonl%s", f->dir, bad[i]);
    ASSERT_HAS(err, want);
  }
  assert_int_equal(importer_calls(f), 1);
  assert_true(exists("%s/task.json", folder));
  snprintf(want, sizeof want, "level1/19_ReLU|1|19_ReLU;level3/my_prob_%s|3|my_prob_%s", h, h);
  assert_string_equal(q_text(f->path, "SELECT group_concat(x, ';') FROM (SELECT id || '|' ||"
                                      " level || '|' || name AS x FROM tasks ORDER BY id)", buf,
                             sizeof buf), want);
  snprintf(want, sizeof want, "level1/19_ReLU|cuda|cabi|1|{\"speedup\":2,\"by\":\"x\"};"
           "level1/19_ReLU|host|cabi|8|{};level3/my_prob_%s|cuda|kernelbench|2|{}", h);
  assert_string_equal(q_text(f->path, "SELECT group_concat(x, ';') FROM (SELECT s.task_id || '|'"
                                      " || s.backend || '|' || c.format || '|' || min(c.line) ||"
                                      " '|' || c.claims AS x FROM solutions s JOIN import_claims c"
                                      " ON c.solution_id = s.id GROUP BY s.task_id, s.backend"
                                      " ORDER BY s.task_id, s.backend)", buf, sizeof buf), want);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM import_claims WHERE kind = 'jsonl'"
                                  " AND level IS NULL"), 4);
  snprintf(want, sizeof want, "SELECT count(*) FROM solutions WHERE task_id = 'level3/my_prob_%s'",
           h);
  assert_int_equal(q_num(f->path, want), 2); /* the problem and its folder: one task */
}

/* ---- the store ---------------------------------------------------------------------------- */

/* A suite task keeps its row; a solution is stored once and claimed once per line; a bad
 * import is refused before anything is written. */
static void test_store_import_put(void **state) {
  th_store *f = *state;
  cl1_store *s = f->s;
  cl1_err err = {{0}};
  assert_int_equal(cl1_store_task_put(s, TH_TASK, 1, "19_ReLU", true, &err), 0);
  cl1_store_import im = {.task_id = TH_TASK, .task_name = "other", .level = 2, .backend = "cuda",
                         .source = "// a\n", .kind = "jsonl", .source_file = "/x/g.jsonl",
                         .line = 1, .task = TH_TASK, .format = "cabi",
                         .claims_json = "{\"speedup\":2}"};
  int64_t id, id2;
  bool existed;
  assert_int_equal(cl1_store_import_put(s, &im, &id, &existed, &err), 0);
  assert_false(existed);
  char buf[256];
  assert_string_equal(q_text(f->path, "SELECT name || level || degenerate FROM tasks", buf,
                             sizeof buf), "19_ReLU11");
  im.claims_json = "{\"speedup\":3}";
  assert_int_equal(cl1_store_import_put(s, &im, &id2, &existed, &err), 0);
  assert_true(existed);
  assert_int_equal(id2, id);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM import_claims"), 1);
  assert_string_equal(q_text(f->path, "SELECT claims FROM import_claims", buf, sizeof buf),
                      "{\"speedup\":3}");
  im.line = 2;
  assert_int_equal(cl1_store_import_put(s, &im, &id2, &existed, &err), 0);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM import_claims"), 2);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM solutions"), 1);
  /* refused before the transaction: no new task, solution or claim */
  cl1_store_import bad = im;
  bad.task_id = "level9/new", bad.source = "// b\n", bad.claims_json = "[1]";
  assert_int_equal(cl1_store_import_put(s, &bad, &id2, &existed, &err), -1);
  ASSERT_HAS(err.msg, "not a JSON object");
  bad.claims_json = "{}", bad.kind = "other";
  assert_int_equal(cl1_store_import_put(s, &bad, &id2, &existed, &err), -1);
  ASSERT_HAS(err.msg, "kind 'other'");
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM tasks"), 1);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM solutions"), 1);
}

/* A v5 store (before import_claims) gains the table when opened and keeps its rows. */
static void test_migration_from_v5(void **state) {
  th_store *f = *state;
  th_store_seed_task_run(f->s);
  th_store_close(f);
  raw_exec(f->path, "DROP TABLE import_claims;"
                    "UPDATE meta SET value = '5' WHERE key = 'schema_version'");
  cl1_err err = {{0}};
  assert_int_equal(cl1_store_open(f->path, &f->s, &err), 0);
  int v;
  assert_int_equal(cl1_store_version(f->s, &v, &err), 0);
  assert_int_equal(v, CL1_STORE_SCHEMA_VERSION);
  th_store_close(f);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM runs"), 1);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM tasks"), 1);
  assert_int_equal(q_num(f->path, "SELECT count(*) FROM sqlite_master WHERE name ="
                                  " 'import_claims'"), 1);
}

static void test_kernelbench_detection(void **state) {
  (void)state;
  assert_true(cl1_import_is_kernelbench("class ModelNew(nn.Module):"));
  assert_true(cl1_import_is_kernelbench("x = 1\nclass ModelNew:\n  pass"));
  assert_false(cl1_import_is_kernelbench("class ModelNewer(nn.Module):"));
  assert_false(cl1_import_is_kernelbench("subclass ModelNew(nn.Module):"));
  assert_false(cl1_import_is_kernelbench("__global__ void k() {}"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      th_store_path_test(test_cuda_l1_rows_become_tasks_solutions_and_claims),
      th_store_path_test(test_cuda_l1_reimport_adds_nothing),
      th_store_path_test(test_refused_problems_are_skipped_with_the_reason),
      th_store_path_test(test_a_failed_row_leaves_nothing_half_written),
      th_store_path_test(test_list_touches_nothing),
      th_store_path_test(test_exit_status),
      th_store_path_test(test_jsonl_rows),
      th_store_test(test_store_import_put),
      th_store_test(test_migration_from_v5),
      cmocka_unit_test(test_kernelbench_detection),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
