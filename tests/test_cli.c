/* test_cli.c — the command line as a user meets it: help texts, usage errors with exit 2 and a
 * message naming the flag or file, `task check` on good and bad files, `suite list/show`, and
 * `eval --device cuda` on a machine without a GPU: one line saying so, exit 3. And the same
 * behaviour everywhere: every command and verb answers --help (anywhere among its arguments) on
 * stdout with exit 0 and does nothing else, names an unknown option in one line with exit 2, lists
 * only options it takes; every task argument takes a suite id, a folder or a task.json, and eval
 * and optimize reach (and optimize stores) the same task id whichever form was used. */
#include <limits.h>
#include <sqlite3.h>
#include "harness.h"

static char out[1 << 16], err_out[1 << 14];

static int cli(const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s/cudal1 %s 2>&1", th_build(), args);
  return th_run(cmd, out, sizeof out);
}

/* Like cli(), with stdout in out and stderr in err_out. */
static int cli_split(const char *args) {
  static char errf[300];
  if (!errf[0]) snprintf(errf, sizeof errf, "%s/stderr", th_tmpdir());
  char cmd[2400];
  snprintf(cmd, sizeof cmd, "%s/cudal1 %s 2>%s", th_build(), args, errf);
  int rc = th_run(cmd, out, sizeof out);
  FILE *f = fopen(errf, "r");
  assert_non_null(f);
  size_t n = fread(err_out, 1, sizeof err_out - 1, f);
  err_out[n] = 0;
  fclose(f);
  return rc;
}

static int lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}


static void test_help(void **st) {
  (void)st;
  assert_int_equal(cli("--help"), 0);
  assert_non_null(strstr(out, "eval"));
  assert_int_equal(cli("eval --help"), 0);
  assert_non_null(strstr(out, "--solution"));
  assert_non_null(strstr(out, "--warm-cache"));
  assert_int_equal(cli(""), 2);
  assert_int_equal(cli("frobnicate"), 2);
  assert_non_null(strstr(out, "unknown command 'frobnicate'"));
}

static void test_eval_usage_errors(void **st) {
  (void)st;
  assert_int_equal(cli("eval --task level1/19_ReLU"), 2);
  assert_non_null(strstr(out, "--solution"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution x.c --device host --shapes huge"), 2);
  assert_non_null(strstr(out, "--shapes"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution x.c --device tpu"), 2);
  assert_non_null(strstr(out, "--device"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution /nonexistent/s.c --device host"), 2);
  assert_non_null(strstr(out, "cannot read the solution: /nonexistent/s.c: No such file"));
  assert_int_equal(cli("eval --task level9/nothing --solution x.c --device host"), 2);
  assert_non_null(strstr(out, "level9/nothing"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution tests/legit/host/19_ReLU.c --device cuda"), 2);
  assert_non_null(strstr(out, ".cu"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution x.c --min-trials abc"), 2);
  assert_non_null(strstr(out, "--min-trials"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution x.c --time-sets 9"), 2);
  assert_non_null(strstr(out, "--time-sets"));
}

static void test_task_check(void **st) {
  (void)st;
  assert_int_equal(cli("task check suite/level1/19_ReLU"), 0);
  assert_non_null(strstr(out, "ok level1/19_ReLU"));
  char *d = th_tmpdir();
  char p[512];
  snprintf(p, sizeof p, "%s/task.json", d);
  th_write(p, "{\"name\": \"1_x\", \"level\": 1, \"number\": 1, \"description\": \"d\", "
              "\"dims\": {\"test\": {\"N\": 1}, \"small\": {\"N\": 2}, \"large\": {\"N\": 3}}, "
              "\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"dtype\": \"f99\", \"shape\": [\"N\"]}]}");
  char args[600];
  snprintf(args, sizeof args, "task check %s", d);
  assert_int_equal(cli(args), 2);
  assert_non_null(strstr(out, "outputs[0].dtype"));
  assert_non_null(strstr(out, "task.json"));
}

static void test_suite_list_show(void **st) {
  (void)st;
  assert_int_equal(cli("suite list"), 0);
  assert_non_null(strstr(out, "level1/19_ReLU"));
  assert_non_null(strstr(out, "level2/76_Gemm_Add_ReLU"));
  assert_int_equal(cli("suite list --level 2"), 0);
  assert_null(strstr(out, "level1/19_ReLU"));
  assert_int_equal(cli("suite show level1/23_Softmax"), 0);
  assert_non_null(strstr(out, "small:"));
  assert_non_null(strstr(out, "large:"));
  assert_int_equal(cli("suite show nothing_here"), 2);
}

static void test_no_gpu_is_infra_error(void **st) {
  (void)st;
  if (access("/dev/nvidia0", F_OK) == 0) skip(); /* this test is for machines without a GPU */
  int rc = cli("eval --task level1/19_ReLU --solution tests/gpu/candidates/19_ReLU.cu --shapes test");
  assert_int_equal(rc, 3);
  assert_non_null(strstr(out, "no CUDA GPU"));
}

/* Every command and verb: what follows `cudal1`, the usage line that names it, and arguments that
 * would make it do something (open or create a store under @, export there, run, fail) were
 * --help not among them; @ is a fresh folder. */
static const struct {
  const char *cmd, *usage, *before;
} commands[] = {
    {"eval", "usage: cudal1 eval", "--task level1/19_ReLU --solution x.cu --baseline eager --db @/s.db"},
    {"optimize", "usage: cudal1 optimize", "--task level1/19_ReLU --backend replay --replay x --db @/s.db"},
    {"report", "usage: cudal1 report", "--db @/s.db"},
    {"baselines", "usage: cudal1 baselines", "import /nonexistent/b.json --db @/s.db"},
    {"baselines import", "usage: cudal1 baselines import", "/nonexistent/b.json --db @/s.db"},
    {"task", "usage: cudal1 task", "check suite/level1/19_ReLU"},
    {"task check", "usage: cudal1 task check", "suite/level1/19_ReLU"},
    {"task import", "usage: cudal1 task import", "tests/python/problems/1_Linear_ReLU.py @/t"},
    {"suite", "usage: cudal1 suite", "list"},
    {"suite list", "usage: cudal1 suite list", "--level 2"},
    {"suite show", "usage: cudal1 suite show", "level1/19_ReLU"},
    {"suite export", "usage: cudal1 suite export", "level1/19_ReLU --shapes test --seed 1 @/exported"},
    {"suite audit", "usage: cudal1 suite audit", "level1/19_ReLU --device host --json @/audit.json"},
    {"gpu", "usage: cudal1 gpu", "peaks --force --cache @"},
    {"gpu peaks", "usage: cudal1 gpu peaks", "--force --cache @"},
    {"doctor", "usage: cudal1 doctor", "--json"},
};
#define N_COMMANDS (int)(sizeof commands / sizeof *commands)

/* s with each @ replaced by dir. */
static void subst(char *buf, size_t n, const char *s, const char *dir) {
  size_t k = 0;
  for (; *s && k + 1 < n; s++) {
    if (*s != '@') { buf[k++] = *s; continue; }
    int w = snprintf(buf + k, n - k, "%s", dir);
    k += w > 0 ? (size_t)w : 0;
  }
  buf[k < n ? k : n - 1] = 0;
}

static void test_help_everywhere(void **st) {
  (void)st;
  const char *top[] = {"--help", "-h"};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(cli_split(top[k]), 0);
    assert_non_null(strstr(out, "usage: cudal1 <command>"));
    assert_string_equal(err_out, "");
  }
  char *d = th_tmpdir(), before[600], args[800];
  for (int i = 0; i < N_COMMANDS; i++) {
    subst(before, sizeof before, commands[i].before, d);
    const char *forms[] = {"%s --help", "%s -h", "%s %s --help", "%s --help %s", "%s %s -h"};
    for (int f = 0; f < 5; f++) {
      snprintf(args, sizeof args, forms[f], commands[i].cmd, before);
      int rc = cli_split(args);
      if (rc != 0 || !strstr(out, commands[i].usage) || err_out[0])
        fail_msg("cudal1 %s: exit %d, stdout '%.200s', stderr '%s'", args, rc, out, err_out);
    }
  }
  /* nothing was done: no store, no export, no audit file, no peaks cache */
  snprintf(args, sizeof args, "ls -A %s", d);
  assert_int_equal(th_run(args, out, sizeof out), 0);
  assert_string_equal(out, "");
}

static void test_unknown_option_or_verb(void **st) {
  (void)st;
  char args[300], want[300];
  assert_int_equal(cli_split("--no-such-option"), 2);
  assert_non_null(strstr(err_out, "unknown option '--no-such-option'"));
  assert_non_null(strstr(err_out, "cudal1 --help"));
  for (int i = 0; i < N_COMMANDS; i++) {
    snprintf(args, sizeof args, "%s --no-such-option", commands[i].cmd);
    int rc = cli_split(args);
    if (rc != 2 || !strstr(err_out, "'--no-such-option'") || lines(err_out) != 1)
      fail_msg("cudal1 %s: exit %d, stderr '%s'", args, rc, err_out);
    /* a command with verbs reads it as an unknown verb; either way the pointer is to its help */
    snprintf(want, sizeof want, "(see cudal1 %s --help)", commands[i].cmd);
    if (!strstr(err_out, want)) fail_msg("cudal1 %s: '%s' does not say %s", args, err_out, want);
  }
  const char *verbs[][2] = {{"suite frob", "suite"}, {"gpu frob", "gpu"}, {"task frob", "task"},
                            {"baselines frob", "baselines"}};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(cli_split(verbs[i][0]), 2);
    assert_non_null(strstr(err_out, "unknown verb 'frob'"));
    snprintf(want, sizeof want, "(see cudal1 %s --help)", verbs[i][1]);
    assert_non_null(strstr(err_out, want));
    assert_int_equal(lines(err_out), 1);
  }
  assert_int_equal(cli_split("suite show level1/19_ReLU extra"), 2);
  assert_non_null(strstr(err_out, "'extra'"));
}

/* Every --option a usage text lists is one the command takes: given with a value and followed by
 * an unknown option, the complaint is about the unknown one. */
static void test_usage_lists_real_options(void **st) {
  (void)st;
  static char help[sizeof out];
  for (int i = 0; i < N_COMMANDS; i++) {
    char args[600];
    snprintf(args, sizeof args, "%s --help", commands[i].cmd);
    assert_int_equal(cli_split(args), 0);
    snprintf(help, sizeof help, "%s", out);
    int n = 0;
    for (const char *p = strstr(help, "--"); p; p = strstr(p + 2, "--")) {
      char opt[64];
      size_t k = 0;
      while (k + 1 < sizeof opt && (p[k] == '-' || (p[k] >= 'a' && p[k] <= 'z') || (p[k] >= '0' && p[k] <= '9')))
        opt[k] = p[k], k++;
      opt[k] = 0;
      if (k < 3 || !strcmp(opt, "--help")) continue;
      char bad[96];
      snprintf(bad, sizeof bad, "unknown option '%s'", opt);
      snprintf(args, sizeof args, "%s %s 1 --zzz-unknown", commands[i].cmd, opt);
      int rc = cli(args);
      if (rc != 2 || strstr(out, bad)) fail_msg("cudal1 %s: exit %d: %s", args, rc, out);
      if (!strcmp(commands[i].cmd, "optimize")) {
        /* alone at the end: a missing value, not an unknown option */
        snprintf(args, sizeof args, "optimize %s", opt);
        rc = cli(args);
        if (rc != 2 || strstr(out, bad)) fail_msg("cudal1 %s: exit %d: %s", args, rc, out);
      }
      n++;
    }
    if (!strcmp(commands[i].cmd, "eval") || !strcmp(commands[i].cmd, "optimize")) assert_true(n > 20);
  }
}

/* The task forms: a suite id, a folder (relative, trailing slash, absolute) and a task.json. */
static const char *const task_forms[] = {
    "level1/19_ReLU", "suite/level1/19_ReLU", "suite/level1/19_ReLU/", "ABS/suite/level1/19_ReLU",
    "suite/level1/19_ReLU/task.json", "ABS/suite/level1/19_ReLU/task.json"};

static void task_form(int i, char *buf, size_t n) {
  char cwd[PATH_MAX];
  assert_non_null(getcwd(cwd, sizeof cwd));
  const char *f = task_forms[i];
  int w = !strncmp(f, "ABS/", 4) ? snprintf(buf, n, "%s/%s", cwd, f + 4) : snprintf(buf, n, "%s", f);
  assert_true(w > 0 && (size_t)w < n);
}

static void test_task_forms(void **st) {
  (void)st;
  char t[PATH_MAX], args[PATH_MAX + 200];
  for (int i = 0; i < 6; i++) {
    task_form(i, t, sizeof t);
    snprintf(args, sizeof args, "suite show %s", t);
    assert_int_equal(cli_split(args), 0);
    if (strncmp(out, "level1/19_ReLU — ", strlen("level1/19_ReLU — "))) fail_msg("%s: %s", args, out);
    snprintf(args, sizeof args, "task check %s", t);
    assert_int_equal(cli_split(args), 0);
    assert_non_null(strstr(out, "ok level1/19_ReLU"));
  }
  /* a file other than task.json does not stand for its folder */
  assert_int_equal(cli_split("suite show suite/level1/19_ReLU/reference.c"), 2);
  assert_non_null(strstr(err_out, "no task 'suite/level1/19_ReLU/reference.c'"));
  /* an unknown task: the same line from every command that takes one */
  const char *cmds[] = {"eval --solution x.c --device host --task %s", "optimize --backend replay --replay x --task %s",
                        "suite show %s", "suite export %s /tmp/x --shapes test --seed 1", "suite audit --device host %s",
                        "task check %s"};
  const char *names[] = {"eval", "optimize", "suite show", "suite export", "suite audit", "task check"};
  for (int i = 0; i < 6; i++) {
    char want[300];
    snprintf(args, sizeof args, cmds[i], "level9/nothing");
    snprintf(want, sizeof want, "cudal1 %s: no task 'level9/nothing' (a suite id like level1/19_ReLU, "
             "a task folder, or a task.json; see cudal1 suite list)\n", names[i]);
    int rc = cli_split(args);
    if (rc != 2 || strcmp(err_out, want)) fail_msg("cudal1 %s: exit %d, stderr '%s'", args, rc, err_out);
  }
}

static void test_eval_task_forms(void **st) {
  (void)st;
  char t[PATH_MAX], args[PATH_MAX + 300];
  const int forms[] = {0, 2, 5}; /* id, relative folder with a slash, absolute task.json */
  for (int i = 0; i < 3; i++) {
    task_form(forms[i], t, sizeof t);
    snprintf(args, sizeof args, "eval --task %s --solution tests/legit/host/19_ReLU.c --device host "
             "--shapes test --json --min-trials 5 --max-trials 5 --time-budget 0.05", t);
    int rc = cli_split(args);
    if (rc) fail_msg("cudal1 %s: exit %d: %s", args, rc, err_out);
    assert_non_null(strstr(out, "\"task\":\t\"level1/19_ReLU\""));
  }
}

static int q_int(sqlite3 *db, const char *sql, char *text, size_t n) {
  sqlite3_stmt *s;
  int v = -1;
  if (text) text[0] = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    v = sqlite3_column_int(s, 0);
    if (text && sqlite3_column_text(s, 0)) snprintf(text, n, "%s", sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  return v;
}

/* One replayed sample per run, three runs into one store, the task named three ways: one task in
 * the store, under its suite id, which report shows. */
static void test_optimize_task_forms(void **st) {
  (void)st;
  char *d = th_tmpdir(), cwd[PATH_MAX], p[PATH_MAX + 64], t[PATH_MAX], args[3 * PATH_MAX];
  assert_non_null(getcwd(cwd, sizeof cwd));
  snprintf(p, sizeof p, "%s/replay.jsonl", d);
  char line[PATH_MAX + 100];
  snprintf(line, sizeof line, "{\"task\": \"level1/19_ReLU\", \"file\": \"%s/tests/legit/host/19_ReLU.c\"}\n", cwd);
  assert_int_equal(th_write(p, line), 0);
  const int forms[] = {3, 4, 0}; /* absolute folder, relative task.json, id */
  for (int i = 0; i < 3; i++) {
    task_form(forms[i], t, sizeof t);
    snprintf(args, sizeof args, "optimize --task %s --backend replay --replay %s --device host "
             "--shapes test --rounds 1 --samples 1 --min-trials 5 --max-trials 5 --time-budget 0.05 "
             "--db %s/s.db --out %s/out --no-progress", t, p, d, d);
    int rc = cli(args);
    if (rc) fail_msg("cudal1 %s: exit %d: %s", args, rc, out);
  }
  snprintf(p, sizeof p, "%s/s.db", d);
  sqlite3 *db;
  assert_int_equal(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  char text[256];
  assert_int_equal(q_int(db, "select count(*) from runs where status='done'", NULL, 0), 3);
  assert_int_equal(q_int(db, "select count(*) from tasks", NULL, 0), 1);
  q_int(db, "select id from tasks", text, sizeof text);
  assert_string_equal(text, "level1/19_ReLU");
  assert_int_equal(q_int(db, "select count(distinct task_id) from rounds", NULL, 0), 1);
  q_int(db, "select task_id from rounds", text, sizeof text);
  assert_string_equal(text, "level1/19_ReLU");
  assert_int_equal(q_int(db, "select count(*) from runs where config like '%\"tasks\":%[\"level1/19_ReLU\"]%'", NULL, 0), 3);
  sqlite3_close(db);
  snprintf(args, sizeof args, "report --db %s/s.db", d);
  assert_int_equal(cli_split(args), 0);
  assert_non_null(strstr(out, "level1/19_ReLU"));
  assert_null(strstr(out, "suite/"));

  /* a copy of the task outside the suite carries the suite's id: refused, not stored as the
     suite's task */
  snprintf(args, sizeof args, "cp -r suite/level1/19_ReLU %s/copy", d);
  assert_int_equal(system(args), 0);
  snprintf(args, sizeof args, "optimize --task %s/copy --backend replay --replay x --db %s/s2.db", d, d);
  assert_int_equal(cli_split(args), 2);
  assert_non_null(strstr(err_out, "not the suite's"));
  /* and one task named twice */
  assert_int_equal(cli_split("optimize --task level1/19_ReLU suite/level1/19_ReLU --backend replay --replay x"), 2);
  assert_non_null(strstr(err_out, "a second time"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help), cmocka_unit_test(test_eval_usage_errors),
      cmocka_unit_test(test_task_check), cmocka_unit_test(test_suite_list_show),
      cmocka_unit_test(test_no_gpu_is_infra_error), cmocka_unit_test(test_help_everywhere),
      cmocka_unit_test(test_unknown_option_or_verb), cmocka_unit_test(test_usage_lists_real_options),
      cmocka_unit_test(test_task_forms), cmocka_unit_test(test_eval_task_forms),
      cmocka_unit_test(test_optimize_task_forms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
