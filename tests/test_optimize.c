/* test_optimize.c — `cudal1 optimize` end to end on the host backend against a scripted
 * OpenAI-compatible server (fake_llm.h): 2 tasks x 2 rounds where round 2 (which sees round 1's
 * solution as an exemplar) improves the best solution; broken replies (HTTP 500, 429, a reply
 * without code) that the run survives; a run killed with SIGKILL mid-way and resumed with nothing
 * lost (checked in the store); and the run failing loudly, one line each: an unreachable server,
 * a refused key, a model the server does not have, a server that fails every request, an
 * evaluator that cannot judge (infra_error); the CLI's errors for bad options. --format
 * kernelbench through the replay policy: the prompt asks for ModelNew and shows the PyTorch
 * reference, the reply's python block is the stored code, the candidate goes to the evaluator as
 * a .py file, a reply with only C code is no_code with the reason, the run's config keeps the
 * format. */
#include <sqlite3.h>
#include <stdbool.h>
#include <sys/stat.h>
#include "harness.h"
#include "fake_llm.h"
#include "store_fixture.h"

#define TASK_RELU "level1/19_ReLU"
#define TASK_MM "level1/1_Square_matrix_multiplication_"

/* ReLU computed 16 times over: correct, and slower than the reference. */
static const char relu_slow[] =
    "## Performance Analysis\nNone yet.\n## Code Implementation\n```c\n"
    "#include <cudal1/solution.h>\n"
    "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
    "  const cl1_tensor *x = &c->inputs[0];\n"
    "  int64_t n = 1;\n"
    "  for (int d = 0; d < x->ndim; d++) n *= x->shape[d];\n"
    "  const float *in = x->data;\n"
    "  volatile float *out = c->outputs[0].data;\n"
    "  for (int r = 0; r < 16; r++)\n"
    "    for (int64_t i = 0; i < n; i++) out[i] = in[i] < 0.f ? 0.f : in[i];\n"
    "  return 0;\n"
    "}\n```\n";

static char *file_reply(const char *path) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *r = malloc(n + 128);
  sprintf(r, "## Algorithm Design\nA plain loop.\n## Code Implementation\n```c\n%s```\n", buf);
  return r;
}

/* Answers by the prompt: round 1 (no exemplars) gets the slow ReLU or the plain matmul, later
 * rounds the plain ReLU loop (faster than the slow one shown to it). */
static char *answer(void *ud, const char *body, int choice) {
  (void)ud;
  (void)choice;
  bool first = strstr(body, "this is the first round") != NULL;
  if (strstr(body, "19_ReLU")) return first ? strdup(relu_slow) : file_reply("tests/legit/host/19_ReLU.c");
  return file_reply("tests/legit/host/1_Square_matrix_multiplication_.c");
}

static double q_num(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  double v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  return v;
}

static sqlite3 *open_db(const char *path) {
  sqlite3 *db;
  assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  return db;
}

/* Starts `sh -c cmd` (its own process group) and returns its pid once the store at db_path
 * has at least `evaluated` evaluated samples (fails the test after 60 s). */
static pid_t start_until_evaluated(const char *cmd, const char *db_path, int evaluated) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  int n = 0;
  for (int i = 0; i < 1200 && n < evaluated; i++) {
    usleep(50000);
    struct stat sb;
    if (stat(db_path, &sb)) continue;
    sqlite3 *db = open_db(db_path);
    n = (int)q_num(db, "select count(*) from samples where status='evaluated'");
    sqlite3_close(db);
  }
  assert_true(n >= evaluated);
  return pid;
}

static void optimize_cmd(char *cmd, size_t n, const char *url, const char *dir, const char *extra) {
  snprintf(cmd, n,
           "env -u CUDAL1_API_KEY -u OPENAI_API_KEY no_proxy=127.0.0.1 %s/cudal1 optimize "
           "--task " TASK_RELU " " TASK_MM " --backend openai --base-url %s --model fake "
           "--device host --shapes test --rounds 2 --samples 2 --parallel-tasks 1 --retries 3 "
           "--db %s/s.db --out %s/out --min-trials 10 --max-trials 30 --time-budget 0.3 "
           "--no-progress %s",
           th_build(), url, dir, dir, extra);
}

static void test_second_round_improves_on_first_despite_broken_replies(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  fake_llm *f = fake_llm_start();
  assert_non_null(f);
  /* the first three requests: a server error (retried), a 429 (retried), then a reply without
     code for both samples of the first prompt's retry */
  fake_llm_push_raw(f, 500, "{\"error\":{\"message\":\"boom\"}}", 0);
  fake_llm_push_raw(f, 429, "{\"error\":{\"message\":\"slow down\"}}", 0);
  const char *nocode[2] = {"I would use shared memory here.", relu_slow};
  fake_llm_push_choices(f, nocode, 2);
  fake_llm_set_default(f, answer, NULL);
  char cmd[2048], out[1 << 16], db_path[512];
  optimize_cmd(cmd, sizeof cmd, fake_llm_url(f), dir, "2>&1");
  int st = th_run(cmd, out, sizeof out);
  if (st) fail_msg("optimize exited %d: %s", st, out);
  assert_non_null(strstr(out, "run 1:"));
  /* the server has no /models route (the fake's default): checked once, and the run went on */
  assert_int_equal(fake_llm_models_requests(f), 1);
  snprintf(db_path, sizeof db_path, "%s/s.db", dir);
  sqlite3 *db = open_db(db_path);
  assert_int_equal((int)q_num(db, "select count(*) from samples"), 8);
  assert_int_equal((int)q_num(db, "select count(*) from samples where status='no_code'"), 1);
  assert_int_equal((int)q_num(db, "select count(*) from samples where status='generated'"), 0);
  assert_int_equal((int)q_num(db, "select count(*) from rounds where status='done'"), 4);
  assert_int_equal((int)q_num(db, "select count(*) from runs where status='done'"), 1);
  /* round 2 of ReLU beat round 1: its best is higher, and the faster solution's parent is the
     slow one the prompt showed */
  double r1 = q_num(db, "select best_speedup from rounds where task_id='" TASK_RELU "' and round=1");
  double r2 = q_num(db, "select best_speedup from rounds where task_id='" TASK_RELU "' and round=2");
  assert_true(r1 > 0 && r2 > r1 * 1.5);
  assert_true(q_num(db, "select count(*) from solutions where task_id='" TASK_RELU
                        "' and parent_ids != '[]'") >= 1);
  assert_true(q_num(db, "select best_speedup from rounds where task_id='" TASK_MM "' and round=2") > 0);
  sqlite3_close(db);
  /* the second prompt of a task showed the first round's solution with its speedup */
  bool saw_exemplar = false;
  for (int i = 0; i < fake_llm_request_count(f); i++)
    saw_exemplar |= strstr(fake_llm_request_body(f, i), "Solution A") != NULL;
  assert_true(saw_exemplar);
  /* the best solutions and the summary */
  char p[600];
  struct stat sb;
  snprintf(p, sizeof p, "%s/out/run-1/level1/19_ReLU.c", dir);
  assert_int_equal(stat(p, &sb), 0);
  snprintf(p, sizeof p, "%s/out/run-1/summary.json", dir);
  assert_int_equal(stat(p, &sb), 0);
  /* the report reads it */
  snprintf(cmd, sizeof cmd, "%s/cudal1 report --db %s/s.db 2>&1", th_build(), dir);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, TASK_RELU));
  fake_llm_stop(f);
}

/* A run slow enough to interrupt: the fake LLM answers after 300 ms; fills the optimize command
 * (output discarded) and the store's path under dir. */
static fake_llm *slow_run_setup(const char *dir, char *cmd, size_t n, char *db_path, size_t dn) {
  fake_llm *f = fake_llm_start();
  fake_llm_set_default(f, answer, NULL);
  fake_llm_set_delay(f, 300);
  snprintf(db_path, dn, "%s/s.db", dir);
  optimize_cmd(cmd, n, fake_llm_url(f), dir, "> /dev/null 2>&1");
  return f;
}

/* Killed mid-run (SIGKILL) once some samples are evaluated; --resume finishes the run, and every
 * sample and evaluation stored before the kill is still there, unchanged or carried forward. */
static void test_sigkill_then_resume_loses_nothing(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  char cmd[2048], out[1 << 16], db_path[512];
  fake_llm *f = slow_run_setup(dir, cmd, sizeof cmd, db_path, sizeof db_path);
  pid_t pid = start_until_evaluated(cmd, db_path, 3);
  kill(-pid, SIGKILL);
  waitpid(pid, NULL, 0);
  sqlite3 *db = open_db(db_path);
  int before = (int)q_num(db, "select count(*) from samples");
  int evals_before = (int)q_num(db, "select count(*) from evaluations");
  double ok = q_num(db, "select count(*) from runs where status='running'");
  sqlite3_close(db);
  assert_true(before >= 3 && before < 8);
  assert_int_equal((int)ok, 1);
  /* save the pre-kill rows to compare */
  snprintf(cmd, sizeof cmd, "cp %s/s.db %s/before.db && cp %s/s.db-wal %s/before.db-wal 2>/dev/null; true",
           dir, dir, dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd,
           "env no_proxy=127.0.0.1 %s/cudal1 optimize --db %s/s.db --resume latest --no-progress "
           "--task " TASK_RELU " 2>&1",
           th_build(), dir);
  /* --resume runs the run's own tasks */
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--resume takes the run's own tasks"));
  snprintf(cmd, sizeof cmd, "env no_proxy=127.0.0.1 %s/cudal1 optimize --db %s/s.db --resume latest --no-progress 2>&1",
           th_build(), dir);
  int st = th_run(cmd, out, sizeof out);
  if (st) fail_msg("resume exited %d: %s", st, out);
  db = open_db(db_path);
  assert_int_equal((int)q_num(db, "select count(*) from samples"), 8);
  assert_int_equal((int)q_num(db, "select count(*) from samples where status='generated'"), 0);
  assert_int_equal((int)q_num(db, "select count(*) from rounds where status='done'"), 4);
  assert_int_equal((int)q_num(db, "select count(*) from runs"), 1);
  assert_int_equal((int)q_num(db, "select count(*) from runs where status='done'"), 1);
  assert_true(q_num(db, "select count(*) from evaluations") >= evals_before);
  /* every pre-kill sample is still there with the same prompt and completion */
  char sql[1024];
  snprintf(sql, sizeof sql, "attach '%s/before.db' as b", dir);
  sqlite3 *rw;
  assert_int_equal(sqlite3_open(db_path, &rw), SQLITE_OK);
  assert_int_equal(sqlite3_exec(rw, sql, NULL, NULL, NULL), SQLITE_OK);
  assert_int_equal((int)q_num(rw, "select count(*) from b.samples o join main.samples n using(id) "
                                  "where n.prompt = o.prompt and n.completion is o.completion "
                                  "and (n.status = o.status or o.status = 'generated')"), before);
  assert_int_equal((int)q_num(rw, "select count(*) from b.evaluations o join main.evaluations n "
                                  "using(id) where n.verdict = o.verdict"), evals_before);
  sqlite3_close(rw);
  sqlite3_close(db);
  fake_llm_stop(f);
}

/* Ctrl-C: the run stops after the evaluation in progress, exits 130, is marked interrupted, and
 * --resume finishes it. */
static void test_sigint_marks_interrupted_and_resume_finishes(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  char cmd[2048], out[1 << 16], db_path[512];
  fake_llm *f = slow_run_setup(dir, cmd, sizeof cmd, db_path, sizeof db_path);
  char exec_cmd[2100];
  snprintf(exec_cmd, sizeof exec_cmd, "exec %s", cmd); /* the shell becomes cudal1 */
  pid_t pid = start_until_evaluated(exec_cmd, db_path, 1);
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 130);
  sqlite3 *db = open_db(db_path);
  assert_int_equal((int)q_num(db, "select count(*) from runs where status='interrupted'"), 1);
  assert_true(q_num(db, "select count(*) from samples") < 8);
  sqlite3_close(db);
  snprintf(cmd, sizeof cmd, "env no_proxy=127.0.0.1 %s/cudal1 optimize --db %s/s.db --resume 1 --no-progress 2>&1",
           th_build(), dir);
  int rc = th_run(cmd, out, sizeof out);
  if (rc) fail_msg("resume exited %d: %s", rc, out);
  db = open_db(db_path);
  assert_int_equal((int)q_num(db, "select count(*) from samples where status='evaluated'"), 8);
  assert_int_equal((int)q_num(db, "select count(*) from runs where status='done'"), 1);
  sqlite3_close(db);
  /* a done run cannot be resumed */
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "done already"));
  fake_llm_stop(f);
}

/* Exactly one line, starting "cudal1 optimize: ". */
static void assert_one_line(const char *out) {
  const char *nl = strchr(out, '\n');
  if (strncmp(out, "cudal1 optimize: ", 17) || !nl || nl[1]) fail_msg("not one line: %s", out);
}

static void test_unreachable_server_and_usage_errors_fail_in_one_line(void **state) {
  char cmd[1024], out[8192], want[200], p[600];
  const char *dir = ((th_store *)*state)->dir;
  /* a server nobody listens on: stopped before the run starts, in one line naming URL and cause */
  int port = fake_llm_closed_port();
  assert_true(port > 0);
  snprintf(cmd, sizeof cmd,
           "env no_proxy=127.0.0.1 %s/cudal1 optimize --task " TASK_RELU " --base-url "
           "http://127.0.0.1:%d/v1 --model m --device host --shapes test --rounds 1 --samples 1 "
           "--db %s/e.db --out %s/out --no-progress 2>&1 >/dev/null",
           th_build(), port, dir, dir);
  double t0 = cl1_now_test();
  assert_int_equal(th_run(cmd, out, sizeof out), 3);
  assert_true(cl1_now_test() - t0 < 10);
  snprintf(want, sizeof want, "cudal1 optimize: cannot reach http://127.0.0.1:%d/v1: connection "
           "refused (is the server running?)\n", port);
  assert_string_equal(out, want);
  snprintf(p, sizeof p, "%s/e.db", dir);
  sqlite3 *db = open_db(p);
  assert_int_equal((int)q_num(db, "select count(*) from runs"), 0);
  sqlite3_close(db);
  /* usage errors: one line, exit 2 */
  const char *bad[] = {
      "--task " TASK_RELU " --device host",                             /* no --base-url */
      "--task " TASK_RELU " --backend replay --device host",            /* no --replay */
      "--task level1/no_such_task --backend replay --replay /dev/null --device host",
      "--suite level9 --backend replay --replay x",
      "--task " TASK_RELU " --rounds 0",
      "--resume 5",                                                     /* no store */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    snprintf(cmd, sizeof cmd, "env -u CUDAL1_BASE_URL %s/cudal1 optimize %s --db %s/none.db "
             "--no-progress 2>&1", th_build(), bad[i], dir);
    int rc = th_run(cmd, out, sizeof out);
    if (rc != 2) fail_msg("'%s' exited %d: %s", bad[i], rc, out);
    /* one line naming the cause */
    char *nl = strchr(out, '\n');
    if (strncmp(out, "cudal1", 6) || !nl || nl[1]) fail_msg("'%s': %s", bad[i], out);
  }
  /* --format: a value it does not know, and --review (a C ABI reviewer) with python modules */
  const char *fmt[][2] = {
      {"--task " TASK_RELU " --backend replay --replay x --format python",
       "cudal1 optimize: --format: expected cabi or kernelbench, got 'python'\n"},
      {"--task " TASK_RELU " --base-url http://127.0.0.1:9/v1 --model m --device host --review "
       "--format kernelbench",
       "cudal1 optimize: --review reviews C ABI solutions (prompts/review.txt); it cannot be "
       "used with --format kernelbench\n"}};
  for (size_t i = 0; i < sizeof fmt / sizeof *fmt; i++) {
    snprintf(cmd, sizeof cmd, "%s/cudal1 optimize %s --db %s/none.db --no-progress 2>&1",
             th_build(), fmt[i][0], dir);
    assert_int_equal(th_run(cmd, out, sizeof out), 2);
    assert_string_equal(out, fmt[i][1]);
  }
}

/* The server answers but will never serve this run: a refused key and a model it does not have
 * each stop the run with exit 2 and one line; nothing is stored for the refused requests. */
static void test_refused_key_or_unknown_model_stops_the_run(void **state) {
  char cmd[2048], out[8192], p[600];
  const char *dir = ((th_store *)*state)->dir;
  fake_llm *f = fake_llm_start();
  fake_llm_set_default(f, answer, NULL);
  fake_llm_set_key(f, "sk-right");
  snprintf(cmd, sizeof cmd, "env CUDAL1_API_KEY=sk-WRONG-77 no_proxy=127.0.0.1 %s/cudal1 optimize "
           "--task " TASK_RELU " --base-url %s --model fake --device host --shapes test --rounds 1 "
           "--samples 1 --db %s/k.db --out %s/out --no-progress 2>&1 >/dev/null",
           th_build(), fake_llm_url(f), dir, dir);
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_one_line(out);
  assert_non_null(strstr(out, "refused the API key (HTTP 401"));
  assert_non_null(strstr(out, "$CUDAL1_API_KEY"));
  assert_null(strstr(out, "WRONG"));
  assert_int_equal(fake_llm_request_count(f), 0); /* stopped at GET /models */
  fake_llm_set_key(f, NULL);
  /* vLLM serving other models: the first answer (a 404 naming the model) stops the run */
  const char *ids[] = {"Qwen/Qwen3-8B", "other-model"};
  fake_llm_set_models(f, ids, 2, 1);
  optimize_cmd(cmd, sizeof cmd, fake_llm_url(f), dir, "2>&1 >/dev/null");
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_one_line(out);
  char want[300];
  snprintf(want, sizeof want, "the server at %s has no model 'fake' (HTTP 404: The model `fake` does not "
           "exist.); it lists: Qwen/Qwen3-8B, other-model\n", fake_llm_url(f));
  if (!strstr(out, want)) fail_msg("'%s' lacks '%s'", out, want);
  snprintf(p, sizeof p, "%s/s.db", dir);
  sqlite3 *db = open_db(p);
  assert_int_equal((int)q_num(db, "select count(*) from samples"), 0);
  assert_int_equal((int)q_num(db, "select count(*) from runs where status='failed'"), 1);
  sqlite3_close(db);
  fake_llm_stop(f);
}

/* A server that fails every request (HTTP 500): every sample is a generation error, and the run
 * says so with the first error and exits 3 instead of "done". */
static char *no_content(void *ud, const char *body, int choice) {
  (void)ud;
  (void)body;
  (void)choice;
  return NULL; /* the fake answers HTTP 500 */
}

static void test_server_failing_every_request_fails_the_run(void **state) {
  char cmd[2048], out[8192], p[600];
  const char *dir = ((th_store *)*state)->dir;
  fake_llm *f = fake_llm_start();
  fake_llm_set_default(f, no_content, NULL);
  optimize_cmd(cmd, sizeof cmd, fake_llm_url(f), dir, "--rounds 1 --retries 0 2>&1 >/dev/null");
  assert_int_equal(th_run(cmd, out, sizeof out), 3);
  assert_one_line(out);
  assert_non_null(strstr(out, "the policy gave no completion: all 4 requested samples failed; the first: "
                              "HTTP 500 from"));
  assert_non_null(strstr(out, "the default handler gave no content"));
  snprintf(p, sizeof p, "%s/s.db", dir);
  sqlite3 *db = open_db(p);
  assert_int_equal((int)q_num(db, "select count(*) from samples where status='gen_error'"), 4);
  assert_int_equal((int)q_num(db, "select count(*) from runs where status='failed'"), 1);
  sqlite3_close(db);
  fake_llm_stop(f);
}

/* An evaluator that cannot judge (the workers cannot start: infra_error) stops the run at once
 * with exit 3 and one line quoting why; the sample stays for --resume, which finishes the run
 * once the evaluator works. */
static void test_infra_error_stops_the_run_and_resume_finishes(void **state) {
  char cmd[2048], out[8192], p[600];
  const char *dir = ((th_store *)*state)->dir;
  const char *run = "%s %s/cudal1 optimize --task " TASK_RELU " --backend replay --replay "
                    "examples/replay-host.jsonl --device host --shapes test --rounds 1 --samples 2 "
                    "--min-trials 10 --max-trials 30 --time-budget 0.3 --db %s/i.db --out %s/out "
                    "--no-progress %s 2>&1 >/dev/null";
  snprintf(cmd, sizeof cmd, run, "env CUDAL1_WORKER=/bin/false", th_build(), dir, dir, "");
  assert_int_equal(th_run(cmd, out, sizeof out), 3);
  assert_one_line(out);
  assert_non_null(strstr(out, "the evaluator could not judge it (infra_error): the reference failed "
                              "during setup"));
  assert_non_null(strstr(out, "--resume 1"));
  snprintf(p, sizeof p, "%s/i.db", dir);
  sqlite3 *db = open_db(p);
  assert_int_equal((int)q_num(db, "select count(*) from evaluations"), 0);
  assert_int_equal((int)q_num(db, "select count(*) from samples where status='generated'"), 2);
  assert_int_equal((int)q_num(db, "select count(*) from runs where status='failed'"), 1);
  sqlite3_close(db);
  snprintf(cmd, sizeof cmd, "%s/cudal1 optimize --db %s/i.db --resume 1 --no-progress 2>&1 >/dev/null",
           th_build(), dir);
  int rc = th_run(cmd, out, sizeof out);
  if (rc) fail_msg("resume exited %d: %s", rc, out);
  db = open_db(p);
  assert_int_equal((int)q_num(db, "select count(*) from evaluations"), 2);
  assert_int_equal((int)q_num(db, "select count(*) from runs where status='done'"), 1);
  sqlite3_close(db);

}

/* --format kernelbench with replayed replies: the module is evaluated as a .py candidate
 * (ModelNew through the Python path) and passes; the C reply is no code in this format. */
static void test_kernelbench_format_asks_for_modelnew_and_writes_a_py_candidate(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  static const char modelnew[] = "import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                                 "    def forward(self, x):\n        return torch.relu(x)\n";
  char replay[600], line[2048], *c_reply = file_reply("tests/legit/host/19_ReLU.c");
  snprintf(replay, sizeof replay, "%s/kb.jsonl", dir);
  cJSON *a = cJSON_CreateObject(), *b = cJSON_CreateObject();
  snprintf(line, sizeof line, "## Algorithm Design\nKeep torch.relu.\n## Code Implementation\n"
           "```python\n%s```\nUsage:\n```python\nModelNew()(torch.randn(4))\n```\n", modelnew);
  cJSON_AddStringToObject(a, "task", TASK_RELU), cJSON_AddStringToObject(a, "content", line);
  cJSON_AddStringToObject(b, "task", TASK_RELU), cJSON_AddStringToObject(b, "content", c_reply);
  char *la = cJSON_PrintUnformatted(a), *lb = cJSON_PrintUnformatted(b);
  char *text = malloc(strlen(la) + strlen(lb) + 4);
  sprintf(text, "%s\n%s\n", la, lb);
  assert_int_equal(th_write(replay, text), 0);
  free(text), free(la), free(lb), free(c_reply);
  cJSON_Delete(a), cJSON_Delete(b);
  char cmd[2048], out[8192], p[600];
  snprintf(cmd, sizeof cmd, "%s/cudal1 optimize --task " TASK_RELU " --backend replay --replay %s "
           "--format kernelbench --device host --shapes test --rounds 1 --samples 2 "
           "--min-trials 10 --max-trials 30 --time-budget 0.3 --db %s/kb.db --out %s/out "
           "--no-progress 2>&1 >/dev/null", th_build(), replay, dir, dir);
  int rc = th_run(cmd, out, sizeof out);
  snprintf(p, sizeof p, "%s/kb.db", dir);
  sqlite3 *db = open_db(p);
  if (rc) fail_msg("optimize exited %d: %s", rc, out);
  assert_int_equal((int)q_num(db, "select count(*) from evaluations where verdict = 'pass' and "
                                  "result_json like '%sample-1.py%'"), 1);
  /* the prompt asked for ModelNew and showed the PyTorch reference, not the C ABI */
  assert_int_equal((int)q_num(db, "select count(*) from samples where prompt like "
                                  "'%class ModelNew(nn.Module)%' and prompt like '%def make(%' "
                                  "and prompt like '%```python%' and prompt not like "
                                  "'%cl1_forward%'"), 2);
  /* the module, without the usage snippet after it, is the sample's code */
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(db, "select code from samples where idx = 0", -1, &st, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  assert_string_equal((const char *)sqlite3_column_text(st, 0), modelnew);
  sqlite3_finalize(st);
  /* the C reply has no module: no_code, with the reason */
  assert_int_equal((int)q_num(db, "select count(*) from samples where idx = 1 and status = "
                                  "'no_code' and code is null and error like 'the reply has no "
                                  "python code block defining class ModelNew%'"), 1);
  assert_int_equal((int)q_num(db, "select count(*) from runs where config like "
                                  "'%\"format\":%\"kernelbench\"%'"), 1);
  sqlite3_close(db);
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  const struct CMUnitTest tests[] = {
      th_store_path_test(test_second_round_improves_on_first_despite_broken_replies),
      th_store_path_test(test_sigkill_then_resume_loses_nothing),
      th_store_path_test(test_sigint_marks_interrupted_and_resume_finishes),
      th_store_path_test(test_unreachable_server_and_usage_errors_fail_in_one_line),
      th_store_path_test(test_refused_key_or_unknown_model_stops_the_run),
      th_store_path_test(test_server_failing_every_request_fails_the_run),
      th_store_path_test(test_infra_error_stops_the_run_and_resume_finishes),
      th_store_path_test(test_kernelbench_format_asks_for_modelnew_and_writes_a_py_candidate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
