/* test_collect.c — `cudal1 collect` (stage 1 of training) end to end on the host backend with
 * two replay policies: A replies with a correct ReLU, a wrong one and a reply without code; B
 * with code that does not compile, a correct ReLU, and then nothing (its file runs out: an infra
 * error, never counted against it). Checked: the per-policy counts and rates (JSON and table),
 * the store's rows with their policy names in one run labelled 'collect', `cudal1 dataset sft`
 * exporting the collected solutions, Ctrl-C (the report so far, exit 130); every malformed
 * --policy with its message (exit 2), an unreachable openai server (exit 3, nothing recorded);
 * the spec parser's split of URL and MODEL; schema v4's migration from a v3 store. */
#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include "store_query.h"
#include "harness.h"
#include "fake_llm.h"
#include "store_fixture.h"
#include "loop/collect.h"
#include "store/store_int.h"

#define RELU "level1/19_ReLU"
#define EVAL_OPTS "--device host --shapes test --min-trials 10 --max-trials 30 --time-budget 0.3"

/* One replay line: {"task": RELU, "content": text} or {"task": RELU, "file": abs(path)}. */
static void line(FILE *f, const char *content, const char *file) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "task", RELU);
  char abs[PATH_MAX];
  if (file) assert_non_null(realpath(file, abs));
  cJSON_AddStringToObject(o, file ? "file" : "content", file ? abs : content);
  char *s = cJSON_PrintUnformatted(o);
  fprintf(f, "%s\n", s);
  free(s);
  cJSON_Delete(o);
}

static const char no_code[] = "## Performance Analysis\nThe reference is memory bound.\n"
                              "## Algorithm Design\nFuse the loads.\n";

/* dir/a.jsonl: correct, wrong, no code (reps times); dir/b.jsonl: compile error, correct. */
static void write_replays(const char *dir, int reps) {
  char p[600];
  snprintf(p, sizeof p, "%s/a.jsonl", dir);
  FILE *a = fopen(p, "w");
  assert_non_null(a);
  for (int i = 0; i < reps; i++) {
    line(a, NULL, "tests/hacks/host/correct.c");
    line(a, NULL, "tests/hacks/host/wrong_values.c");
    line(a, no_code, NULL);
  }
  fclose(a);
  snprintf(p, sizeof p, "%s/b.jsonl", dir);
  FILE *b = fopen(p, "w");
  assert_non_null(b);
  line(b, NULL, "tests/hacks/host/compile_error.c");
  line(b, NULL, "tests/legit/host/19_ReLU.c");
  fclose(b);
}

static int collect(char *out, size_t cap, const char *dir, const char *extra) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "%s/cudal1 collect --db %s/s.db --policy A=replay:%s/a.jsonl --policy B=replay:%s/b.jsonl "
           "--tasks " RELU " -n 3 " EVAL_OPTS " --no-progress %s 2>&1",
           th_build(), dir, dir, dir, extra);
  return th_run(cmd, out, cap);
}

static const cJSON *policy(const cJSON *doc, int i, const char *name) {
  const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "policies"), i);
  assert_non_null(p);
  assert_string_equal(cJSON_GetObjectItem(p, "name")->valuestring, name);
  return p;
}

static int num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(o, k);
  if (!cJSON_IsNumber(v)) fail_msg("%s is not a number", k);
  return v->valueint;
}

static double rate(const cJSON *p, const char *k) {
  const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "rates"), k);
  assert_true(cJSON_IsNumber(v));
  return v->valuedouble;
}

/* A and B as the file comment says; faster is whatever the store measured (timing), and must
 * agree with it. */
static void check_counts(const cJSON *doc, const char *db) {
  const cJSON *a = policy(doc, 0, "A"), *b = policy(doc, 1, "B");
  assert_int_equal(num(a, "asked"), 3);
  assert_int_equal(num(a, "infra"), 0);
  assert_int_equal(num(a, "with_code"), 2);
  assert_int_equal(num(a, "executable"), 2);
  assert_int_equal(num(a, "correct"), 1);
  assert_true(fabs(rate(a, "with_code") - 2.0 / 3) < 1e-9);
  assert_true(fabs(rate(a, "correct") - 1.0 / 3) < 1e-9);
  assert_int_equal(num(b, "asked"), 3);
  assert_int_equal(num(b, "infra"), 1);         /* the replay file had two lines */
  assert_int_equal(num(b, "gen_errors"), 1);
  assert_int_equal(num(b, "judged"), 2);
  assert_int_equal(num(b, "with_code"), 2);
  assert_int_equal(num(b, "executable"), 1);    /* the compile error did not run */
  assert_int_equal(num(b, "correct"), 1);
  assert_true(fabs(rate(b, "with_code") - 1.0) < 1e-9);
  assert_true(fabs(rate(b, "executable") - 0.5) < 1e-9);
  assert_true(fabs(rate(b, "correct") - 0.5) < 1e-9);
  char sql[300];
  for (int i = 0; i < 2; i++) {
    const cJSON *p = i ? b : a;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM samples s JOIN evaluations e ON e.id ="
             " s.evaluation_id WHERE s.policy = '%s' AND e.verdict = 'pass' AND e.speedup > 1.0",
             i ? "B" : "A");
    assert_int_equal(num(p, "faster"), (int)q_num(db, sql));
    assert_true(num(p, "faster") <= num(p, "correct"));
  }
}

static void test_two_policies_counted_recorded_and_exported(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  char out[1 << 16], db[600];
  snprintf(db, sizeof db, "%s/s.db", dir);
  write_replays(dir, 1);
  int rc = collect(out, sizeof out, dir, "--json");
  if (rc) fail_msg("collect exited %d: %s", rc, out);
  cJSON *doc = cJSON_Parse(out);
  if (!doc) fail_msg("not one JSON object: %s", out);
  assert_int_equal(num(doc, "run"), 1);
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(doc, "interrupted")));
  assert_string_equal(cJSON_GetObjectItem(doc, "status")->valuestring, "done");
  check_counts(doc, db);
  cJSON_Delete(doc);
  /* the store: one run labelled collect, every sample with its policy, the verdicts */
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM runs WHERE policy = 'collect' AND status = 'done'"), 1);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM samples WHERE policy = 'A' AND model IS NULL"), 3);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM samples WHERE policy = 'B'"), 3);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM samples WHERE policy = 'A' AND status = 'no_code'"), 1);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM samples WHERE policy = 'B' AND status = 'gen_error'"), 1);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM samples s JOIN evaluations e ON"
                                  " e.id = s.evaluation_id WHERE s.policy = 'B' AND e.verdict = 'compile_error'"), 1);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM samples s JOIN evaluations e ON"
                                  " e.id = s.evaluation_id WHERE s.policy = 'A' AND e.verdict = 'incorrect'"), 1);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM solutions WHERE origin = 'replayed'"), 4);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM rounds WHERE status = 'done'"), 1);
  /* the same collection again as a table: a second run, the same counts */
  rc = collect(out, sizeof out, dir, "");
  if (rc) fail_msg("collect exited %d: %s", rc, out);
  assert_non_null(strstr(out, "collect run 2: 1 task x 3 completions per policy, host/test"));
  assert_non_null(strstr(out, "policy  model"));
  assert_non_null(strstr(out, "A       (replay)       3       0  2 (66.7%)       2 (66.7%)       1 (33.3%)"));
  assert_non_null(strstr(out, "B       (replay)       3       1  2 (100.0%)      1 (50.0%)       1 (50.0%)"));
  /* dataset sft reads the collected solutions: two correct codes of one task */
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s/cudal1 dataset sft --db %s --out %s/sft.jsonl --device host "
           "--shapes test 2>&1", th_build(), db, dir);
  rc = th_run(cmd, out, sizeof out);
  if (rc) fail_msg("dataset sft exited %d: %s", rc, out);
  assert_non_null(strstr(out, "2 rows, 1 tasks"));
  /* optimize does not take a collection for a run of its own */
  snprintf(cmd, sizeof cmd, "%s/cudal1 optimize --db %s --resume latest 2>&1", th_build(), db);
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "run 2 is a collection (cudal1 collect), not an optimize run"));
}

/* Ctrl-C once something is evaluated: the report so far on stdout, exit 130, the run marked
 * interrupted, and what was recorded kept. */
static void test_ctrl_c_prints_the_report_so_far(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  char db[600], cmd[2048], outp[600];
  snprintf(db, sizeof db, "%s/s.db", dir);
  snprintf(outp, sizeof outp, "%s/out.txt", dir);
  write_replays(dir, 8); /* A: 24 replies, 16 to evaluate at >= 0.3 s each */
  snprintf(cmd, sizeof cmd,
           "exec %s/cudal1 collect --db %s --policy A=replay:%s/a.jsonl --tasks " RELU
           " -n 24 " EVAL_OPTS " --no-progress --json > %s 2>&1",
           th_build(), db, dir, outp);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  int n = 0;
  for (int i = 0; i < 1200 && n < 1; i++) {
    usleep(50000);
    if (access(db, F_OK)) continue;
    n = (int)q_num(db, "SELECT count(*) FROM samples WHERE status = 'evaluated'");
  }
  assert_true(n >= 1);
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 130);
  FILE *f = fopen(outp, "r");
  assert_non_null(f);
  static char text[1 << 16];
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = 0;
  const char *obj = strchr(text, '{');
  assert_non_null(obj);
  cJSON *doc = cJSON_Parse(obj);
  if (!doc) fail_msg("no report: %s", text);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "interrupted")));
  assert_string_equal(cJSON_GetObjectItem(doc, "status")->valuestring, "interrupted");
  const cJSON *a = policy(doc, 0, "A");
  assert_int_equal(num(a, "asked"), (int)q_num(db, "SELECT count(*) FROM samples"));
  assert_int_equal(num(a, "judged") + num(a, "infra"), num(a, "asked"));
  assert_int_equal(num(a, "correct"),
                   (int)q_num(db, "SELECT count(*) FROM evaluations WHERE verdict = 'pass'"));
  cJSON_Delete(doc);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM runs WHERE status = 'interrupted'"), 1);
}

/* An evaluator that cannot judge (its workers do not start): exit 3 naming why, the report of
 * what was recorded with the unevaluated code counted as infra, not against the policy. */
static void test_evaluator_failure_is_infra_not_the_policys(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  char cmd[2048], out[1 << 16], db[600];
  snprintf(db, sizeof db, "%s/s.db", dir);
  write_replays(dir, 1);
  snprintf(cmd, sizeof cmd, "env CUDAL1_WORKER=/bin/false %s/cudal1 collect --db %s --policy "
           "A=replay:%s/a.jsonl --tasks " RELU " -n 3 " EVAL_OPTS " --no-progress --json "
           "2>%s/err.txt", th_build(), db, dir, dir);
  assert_int_equal(th_run(cmd, out, sizeof out), 3);
  cJSON *doc = cJSON_Parse(out);
  if (!doc) fail_msg("no report: %s", out);
  assert_string_equal(cJSON_GetObjectItem(doc, "status")->valuestring, "failed");
  const cJSON *a = policy(doc, 0, "A");
  assert_int_equal(num(a, "asked"), 3);
  assert_int_equal(num(a, "infra"), 2);        /* the two replies with code, never judged */
  assert_int_equal(num(a, "unevaluated"), 2);
  assert_int_equal(num(a, "judged"), 1);       /* the reply without code */
  assert_int_equal(num(a, "with_code"), 0);
  assert_true(fabs(rate(a, "with_code")) < 1e-9);
  cJSON_Delete(doc);
  snprintf(cmd, sizeof cmd, "cat %s/err.txt", dir);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "cudal1 collect: evaluating sample"));
  assert_non_null(strstr(out, "the evaluator could not judge it (infra_error)"));
  assert_null(strstr(out, "--resume"));
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM runs WHERE status = 'failed'"), 1);
  assert_int_equal((int)q_num(db, "SELECT count(*) FROM evaluations"), 0);
}

/* Every malformed or conflicting --policy: exit 2, one line naming the spec and the cause. */
static void test_bad_policies_fail_in_one_line(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  write_replays(dir, 1);
  static const struct { const char *args, *want; } bad[] = {
      {"--policy A", "--policy 'A': expected NAME=openai:URL:MODEL or NAME=replay:FILE"},
      {"--policy =replay:x", "--policy '=replay:x': the NAME before '=' must be"},
      {"--policy 'a b=replay:x'", "--policy 'a b=replay:x': the NAME before '=' must be"},
      {"--policy A=replay", "--policy 'A=replay': no FILE"},
      {"--policy A=replay:", "--policy 'A=replay:': no FILE"},
      {"--policy A=ftp:x", "--policy 'A=ftp:x': unknown kind 'ftp'"},
      {"--policy A=openai", "--policy 'A=openai': no URL and MODEL"},
      {"--policy A=openai:localhost:8000/v1:m", "must start with http:// or https://"},
      {"--policy A=openai:http://h:8000/v1", "--policy 'A=openai:http://h:8000/v1': no MODEL after the URL"},
      {"--policy A=openai:http://h:8000/v1:", "no MODEL after the URL 'http://h:8000/v1'"},
      {"--policy A=openai:#m", "--policy 'A=openai:#m': no URL"},
      {"--policy A=openai:ftp://h#m", "the URL 'ftp://h' does not start with http:// or https://"},
      {"--policy A=replay:x --policy A=replay:y", "--policy 'A=replay:y': the name A is taken"},
      {"--policy A=replay:DIR/none.jsonl", "--policy A: policy replay: cannot open"},
      {"", "--policy NAME=openai:URL:MODEL or NAME=replay:FILE is required"},
      {"--policy A=openai:http://127.0.0.1:9/v1:m --api-key-env CL1_TEST_NO_SUCH_VAR",
       "--api-key-env CL1_TEST_NO_SUCH_VAR: $CL1_TEST_NO_SUCH_VAR is not set"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char args[512], cmd[2048], out[8192];
    const char *d = strstr(bad[i].args, "DIR");
    if (d) snprintf(args, sizeof args, "%.*s%s%s", (int)(d - bad[i].args), bad[i].args, dir, d + 3);
    else snprintf(args, sizeof args, "%s", bad[i].args);
    snprintf(cmd, sizeof cmd, "env -u CL1_TEST_NO_SUCH_VAR %s/cudal1 collect --db %s/bad.db %s "
             "--tasks " RELU " --device host --shapes test --no-progress 2>&1", th_build(), dir, args);
    int rc = th_run(cmd, out, sizeof out);
    if (rc != 2) fail_msg("'%s' exited %d: %s", bad[i].args, rc, out);
    const char *nl = strchr(out, '\n');
    if (strncmp(out, "cudal1 collect: ", 16) || !nl || nl[1]) fail_msg("'%s': not one line: %s", bad[i].args, out);
    if (!strstr(out, bad[i].want)) fail_msg("'%s': %s", bad[i].args, out);
  }
  char p[600];
  snprintf(p, sizeof p, "%s/bad.db", dir);
  if (!access(p, F_OK)) assert_int_equal((int)q_num(p, "SELECT count(*) FROM runs"), 0);
}

/* An openai policy whose server nobody listens on: exit 3 before a run is recorded, the message
 * naming the policy and the URL. */
static void test_unreachable_server_exits_3(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  write_replays(dir, 1);
  int port = fake_llm_closed_port();
  assert_true(port > 0);
  char cmd[2048], out[8192], want[300], db[600];
  snprintf(db, sizeof db, "%s/u.db", dir);
  snprintf(cmd, sizeof cmd, "env no_proxy=127.0.0.1 %s/cudal1 collect --db %s --policy "
           "A=replay:%s/a.jsonl --policy L=openai:http://127.0.0.1:%d/v1:qwen2.5:7b --tasks " RELU
           " --device host --shapes test --no-progress 2>&1", th_build(), db, dir, port);
  assert_int_equal(th_run(cmd, out, sizeof out), 3);
  snprintf(want, sizeof want, "cudal1 collect: --policy L: cannot reach http://127.0.0.1:%d/v1: "
           "connection refused (is the server running?)\n", port);
  assert_string_equal(out, want);
  if (!access(db, F_OK)) assert_int_equal((int)q_num(db, "SELECT count(*) FROM runs"), 0);
}

/* The spec's URL and MODEL split: colons in the model, a model with '/', no path, IPv6, '#'. */
static void test_policy_spec_split(void **state) {
  (void)state;
  static const struct { const char *spec, *url, *model; } ok[] = {
      {"A=openai:http://127.0.0.1:8000/v1:qwen2.5:7b", "http://127.0.0.1:8000/v1", "qwen2.5:7b"},
      {"b.2=openai:http://h:8000:meta-llama/Llama-3.1-8B", "http://h:8000", "meta-llama/Llama-3.1-8B"},
      {"c_=openai:https://api.example.com/v1:gpt-4o", "https://api.example.com/v1", "gpt-4o"},
      {"d-=openai:http://[::1]:8000/v1:m", "http://[::1]:8000/v1", "m"},
      {"E=openai:http://h:8000/v1#qwen:7b", "http://h:8000/v1", "qwen:7b"},
      {"F=openai:http://h/a:b/v1#m", "http://h/a:b/v1", "m"},
      {"G=openai:http://h:qwen2.5:7b", "http://h", "qwen2.5:7b"},
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    cl1_collect_policy p;
    cl1_err err = {{0}};
    if (cl1_collect_policy_parse(ok[i].spec, &p, &err)) fail_msg("%s: %s", ok[i].spec, err.msg);
    assert_string_equal(p.kind, "openai");
    assert_string_equal(p.url, ok[i].url);
    assert_string_equal(p.model, ok[i].model);
  }
  cl1_collect_policy p;
  cl1_err err = {{0}};
  assert_int_equal(cl1_collect_policy_parse("R=replay:dir/with:colon.jsonl", &p, &err), 0);
  assert_string_equal(p.name, "R");
  assert_string_equal(p.kind, "replay");
  assert_string_equal(p.file, "dir/with:colon.jsonl");
}

/* A v3 store (today's schema without v4's columns and v5's tables, at version 3) with an optimize
 * sample: opened, it gains samples.policy and .model, the old sample taking its run's policy. */
static void test_migration_from_v3(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  int64_t run = th_store_seed_task_run(f->s);
  int64_t rid = th_store_seed_round(f->s, run, 1);
  int64_t sid;
  cl1_store_sample m = {.round_id = rid, .idx = 0, .prompt = "p", .status = "no_code", .gen_s = 1};
  assert_int_equal(cl1_store_sample_add(f->s, &m, &sid, &err), 0);
  th_store_close(f);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db, "ALTER TABLE samples DROP COLUMN policy;"
                                    "ALTER TABLE samples DROP COLUMN model;"
                                    "DROP TABLE train_events; DROP TABLE train_runs;" /* v5 */
                                    "DROP TABLE import_claims;" /* v6 */
                                    "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
                                NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
  assert_int_equal(cl1_store_open(f->path, &f->s, &err), 0);
  int v;
  assert_int_equal(cl1_store_version(f->s, &v, &err), 0);
  assert_int_equal(v, CL1_STORE_SCHEMA_VERSION);
  th_store_close(f);
  assert_int_equal((int)q_num(f->path, "SELECT count(*) FROM samples WHERE policy = 'replay' AND model IS NULL"), 1);
  assert_int_equal(cl1_store_open(f->path, &f->s, &err), 0);
  m.idx = 1;
  m.policy = "X";
  m.model = "qwen2.5:7b";
  assert_int_equal(cl1_store_sample_add(f->s, &m, &sid, &err), 0);
  th_store_close(f);
  assert_int_equal((int)q_num(f->path, "SELECT count(*) FROM samples WHERE policy = 'X' AND model = 'qwen2.5:7b'"), 1);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_policy_spec_split),
      th_store_test(test_migration_from_v3),
      th_store_path_test(test_bad_policies_fail_in_one_line),
      th_store_path_test(test_unreachable_server_exits_3),
      th_store_path_test(test_two_policies_counted_recorded_and_exported),
      th_store_path_test(test_ctrl_c_prints_the_report_so_far),
      th_store_path_test(test_evaluator_failure_is_infra_not_the_policys),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
