/* test_train.c — `cudal1 train` (issue 21) driven as a user drives it, with the engine replaced
 * by tests/train/fake_engine.py ($CUDAL1_TRAIN_ENGINE; it keeps the contract without torch) and
 * the real child `cudal1 serve --device host --shapes test`: the run and its events in the store,
 * train-config.json's keys, a real rollout scored with its meta, stage-1 data from the store,
 * every failure's exit status and message (model path, tokenizer, task, no data, the engine's
 * exits 2/3/4/5, the service killed mid-run), Ctrl-C (stopped, 130, no child left), --resume,
 * and `cudal1 report`'s training view. Also the store's train tables (schema v5, migrated from
 * v4), the event parser and the config's keys as units; and, when the real engine and TRL are
 * installed, `cudal1 train all` with the tiny embedded model. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include "store_query.h"
#include "harness.h"
#include "store_fixture.h"
#include "store/store_int.h"
#include "train/train.h"

#define RELU "level1/19_ReLU"
#define ENGINE "CUDAL1_TRAIN_ENGINE='python3 tests/train/fake_engine.py' "
#define EVAL "--device host --shapes test --min-trials 5 --max-trials 5 --time-budget 0.01"

/* ---- helpers ---- */

static char *file_text(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char buf[4][1 << 18];
  static int k;
  char *b = buf[k++ % 4];
  size_t n = fread(b, 1, sizeof buf[0] - 1, f);
  b[n] = 0;
  fclose(f);
  return b;
}

static char out_buf[1 << 17];

/* `ENV cudal1 train ARGS` with stdout and stderr in out_buf; its exit status. */
static int train(const char *env, const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s%s/cudal1 train %s 2>&1", env, th_build(), args);
  return th_run(cmd, out_buf, sizeof out_buf);
}

#define assert_out_has(s) \
  do { if (!strstr(out_buf, (s))) fail_msg("no '%s' in:\n%s", (s), out_buf); } while (0)

/* A child `cudal1 train` with its output in a pipe, for the tests that signal or kill. */
typedef struct {
  pid_t pid;
  int fd;
  char out[1 << 16];
  size_t n;
} child;

static void child_start(child *c, const char *env, const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "exec env %s%s/cudal1 train %s", env, th_build(), args);
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  c->n = 0;
  c->out[0] = 0;
  c->pid = fork();
  assert_true(c->pid >= 0);
  if (c->pid == 0) {
    dup2(fds[1], 1), dup2(fds[1], 2);
    close(fds[0]);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  c->fd = fds[0];
}

/* Reads its output until needle shows (true) or timeout_s passes or it ends (false). */
static bool child_wait_for(child *c, const char *needle, double timeout_s) {
  double end = cl1_now_test() + timeout_s;
  while (!strstr(c->out, needle) && cl1_now_test() < end) {
    struct pollfd p = {.fd = c->fd, .events = POLLIN};
    if (poll(&p, 1, 100) <= 0) continue;
    ssize_t k = read(c->fd, c->out + c->n, sizeof c->out - 1 - c->n);
    if (k <= 0) break;
    c->n += (size_t)k;
    c->out[c->n] = 0;
  }
  return strstr(c->out, needle) != NULL;
}

/* Its exit status (or 128 + signal) once it ended, the rest of its output read. */
static int child_end(child *c) {
  child_wait_for(c, "\x01never", 60);
  close(c->fd);
  int st;
  assert_int_equal(waitpid(c->pid, &st, 0), c->pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The child of parent whose command line holds word (0: none). */
static pid_t child_of(pid_t parent, const char *word) {
  DIR *d = opendir("/proc");
  struct dirent *e;
  pid_t found = 0;
  while (d && (e = readdir(d)) && !found) {
    char p[300], buf[4096];
    snprintf(p, sizeof p, "/proc/%s/stat", e->d_name);
    FILE *f = fopen(p, "r");
    if (!f) continue;
    int pid, ppid;
    char state;
    bool ok = fscanf(f, "%d %*s %c %d", &pid, &state, &ppid) == 3;
    fclose(f);
    if (!ok || ppid != parent) continue;
    snprintf(p, sizeof p, "/proc/%d/cmdline", pid);
    int fd = open(p, O_RDONLY);
    ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0) close(fd);
    for (ssize_t i = 0; i < k; i++) if (!buf[i]) buf[i] = ' ';
    if (k > 0) buf[k] = 0;
    if (k > 0 && strstr(buf, word)) found = pid;
  }
  if (d) closedir(d);
  return found;
}

static bool alive(pid_t pid) { return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH); }

/* ---- the shared runs: grpo on a fresh store (a real rollout scored), then `all` ---- */

static char g_dir[256], g_db[300], g_out1[300], g_out2[300];

static int group_setup(void **state) {
  (void)state;
  char *d = th_tmpdir();
  if (!d) return -1;
  snprintf(g_dir, sizeof g_dir, "%s", d);
  snprintf(g_db, sizeof g_db, "%s/s.db", d);
  snprintf(g_out1, sizeof g_out1, "%s/grpo", d);
  snprintf(g_out2, sizeof g_out2, "%s/all", d);
  char args[2048];
  snprintf(args, sizeof args, "grpo --out %s --db %s --tasks " RELU " --rounds 2 --steps 2 --grpo-probe 4 --grpo-iterations 3 " EVAL,
           g_out1, g_db);
  int rc = train(ENGINE, args);
  if (rc) fprintf(stderr, "group setup: train grpo exited %d:\n%s\n", rc, out_buf);
  snprintf(args, sizeof args, "all --out %s --db %s --tasks " RELU " --rounds 1 --steps 1 "
           "--lora --lr 1e-4 --seed 7 --sft-exemplars 1 --sft-exemplar-rows 3 " EVAL, g_out2, g_db);
  int rc2 = rc ? 1 : train(ENGINE, args);
  if (rc2) fprintf(stderr, "group setup: train all exited %d:\n%s\n", rc2, out_buf);
  return rc || rc2 ? -1 : 0;
}

static int group_teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  return th_run(cmd, NULL, 0) ? -1 : 0;
}

static void test_runs_and_their_events_land_in_the_store(void **state) {
  (void)state;
  char t[512];
  assert_int_equal(q_num(g_db, "SELECT COUNT(*) FROM train_runs"), 2);
  assert_string_equal(q_text(g_db, "SELECT stage || ' ' || engine || ' ' || status || ' ' || out "
                                   "FROM train_runs WHERE id = 1", t, sizeof t),
                      strcat(strcpy((char[400]){0}, "grpo trl done "), g_out1));
  assert_string_equal(q_text(g_db, "SELECT stage || ' ' || status FROM train_runs WHERE id = 2",
                             t, sizeof t), "all done");
  /* grpo: start, the probe, 2 rounds x (2 steps, round, checkpoint), eval, done */
  assert_int_equal(q_num(g_db, "SELECT COUNT(*) FROM train_events WHERE run_id = 1"), 1 + 1 + 2 * 4 + 2);
  assert_int_equal(q_num(g_db, "SELECT COUNT(*) FROM train_events WHERE run_id = 1 AND "
                               "event = 'step' AND stage = 'grpo' AND round IS NOT NULL AND "
                               "step IS NOT NULL"), 4);
  assert_int_equal(q_num(g_db, "SELECT COUNT(*) FROM train_events WHERE run_id = 1 AND "
                               "event = 'start' AND round IS NULL AND step IS NULL"), 1);
  assert_int_equal(q_num(g_db, "SELECT json_extract(data, '$.step') FROM train_events WHERE "
                               "run_id = 1 AND event = 'step' ORDER BY id DESC LIMIT 1"), 1);
  /* all: each stage started and finished, in order */
  assert_string_equal(q_text(g_db, "SELECT group_concat(stage, ',') FROM (SELECT stage FROM "
                                   "train_events WHERE run_id = 2 AND event = 'done' ORDER BY id)",
                             t, sizeof t), "sft,selfsup,grpo");
  /* what the terminal showed: a summary per step, the run's end */
  char *log = file_text(strcat(strcpy((char[400]){0}, g_out1), "/train.log"));
  assert_non_null(log);
  assert_non_null(strstr(log, "CL1TRAIN {\"event\": \"step\""));
  assert_non_null(strstr(log, "fake engine: finished"));
}

static void test_config_holds_the_contracts_keys(void **state) {
  (void)state;
  char p[400];
  snprintf(p, sizeof p, "%s/train-config.json", g_out2);
  cJSON *c = cJSON_Parse(file_text(p));
  assert_non_null(c);
  static const char *keys[] = {"version", "run_id", "stage", "engine", "model", "embedded", "out", "repo",
      "tasks", "sft_data", "device", "seed", "lora", "static_cache", "mask_truncated", "lr", "selfsup_lr", "rl_lr", "temperature",
      "rl_temperature", "rl_batch_size", "sft_epochs", "sft_max_steps",
      "selfsup_rounds", "samples_per_task", "grpo_rounds", "grpo_steps_per_round",
      "num_generations", "exemplars", "max_prompt_len", "max_completion_len", "batch_size",
      "gen_batch", "sft_exemplars", "sft_exemplar_rows", "grpo_probe", "grpo_iterations", "vllm_server", "resume"};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    if (!cJSON_HasObjectItem(c, keys[i])) fail_msg("train-config.json lacks %s", keys[i]);
  assert_int_equal(cJSON_GetArraySize(c), (int)(sizeof keys / sizeof *keys));
  assert_int_equal(cJSON_GetObjectItem(c, "run_id")->valueint, 2);
  assert_string_equal(cJSON_GetObjectItem(c, "stage")->valuestring, "all");
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "model")));
  assert_string_equal(cJSON_GetObjectItem(c, "embedded")->valuestring, "small");
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "vllm_server")));
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(c, "resume")));
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(c, "lora")));
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(c, "static_cache")));
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(c, "mask_truncated")));
  assert_string_equal(cJSON_GetObjectItem(c, "device")->valuestring, "cpu");
  assert_string_equal(cJSON_GetObjectItem(c, "out")->valuestring, g_out2);
  assert_int_equal(cJSON_GetObjectItem(c, "seed")->valueint, 7);
  assert_true(fabs(cJSON_GetObjectItem(c, "lr")->valuedouble - 1e-4) < 1e-12);
  /* no --rl-lr: stage 3 trains at --lr's rate, said in the file rather than left to the engine */
  assert_true(fabs(cJSON_GetObjectItem(c, "rl_lr")->valuedouble - 1e-4) < 1e-12);
  assert_true(fabs(cJSON_GetObjectItem(c, "selfsup_lr")->valuedouble - 1e-4) < 1e-12);
  assert_true(fabs(cJSON_GetObjectItem(c, "temperature")->valuedouble - 1.0) < 1e-12);
  /* no --rl-temperature, --rl-batch: GRPO samples as the rest does, as many prompts a step */
  assert_true(fabs(cJSON_GetObjectItem(c, "rl_temperature")->valuedouble - 1.0) < 1e-12);
  assert_int_equal(cJSON_GetObjectItem(c, "rl_batch_size")->valueint,
                   cJSON_GetObjectItem(c, "batch_size")->valueint);
  assert_int_equal(cJSON_GetObjectItem(c, "gen_batch")->valueint, 0); /* the engine's: GRPO's batch */
  assert_int_equal(cJSON_GetObjectItem(c, "sft_exemplars")->valueint, 1);
  assert_int_equal(cJSON_GetObjectItem(c, "sft_exemplar_rows")->valueint, 3);
  assert_int_equal(cJSON_GetObjectItem(c, "grpo_probe")->valueint, 0); /* no probe unless asked */
  assert_int_equal(cJSON_GetObjectItem(c, "grpo_iterations")->valueint, 1); /* on-policy GRPO */
  assert_int_equal(cJSON_GetObjectItem(c, "grpo_rounds")->valueint, 1);
  assert_int_equal(cJSON_GetObjectItem(c, "selfsup_rounds")->valueint, 1);
  assert_int_equal(cJSON_GetObjectItem(c, "grpo_steps_per_round")->valueint, 1);
  cJSON *tasks = cJSON_GetObjectItem(c, "tasks");
  assert_int_equal(cJSON_GetArraySize(tasks), 1);
  assert_string_equal(cJSON_GetArrayItem(tasks, 0)->valuestring, RELU);
  char sft[400];
  snprintf(sft, sizeof sft, "%s/data/sft.jsonl", g_out2);
  assert_string_equal(cJSON_GetObjectItem(c, "sft_data")->valuestring, sft);
  /* the run's config in the store is the file's */
  char t[4096];
  q_text(g_db, "SELECT json_extract(config, '$.run_id') || json_extract(config, '$.stage') FROM "
               "train_runs WHERE id = 2", t, sizeof t);
  assert_string_equal(t, "2all");
  /* the first run asked for --grpo-iterations 3 */
  q_text(g_db, "SELECT json_extract(config, '$.grpo_iterations') FROM train_runs WHERE id = 1", t,
         sizeof t);
  assert_string_equal(t, "3");
  cJSON_Delete(c);
}

static void test_a_rollout_is_scored_with_its_meta(void **state) {
  (void)state;
  /* the fake engine posted the real ReLU with meta {run, stage, round, step, prompt_id} */
  assert_true(q_num(g_db, "SELECT COUNT(*) FROM scores WHERE json_extract(meta, '$.run') = 1 "
                          "AND json_extract(meta, '$.stage') = 'grpo'") >= 4);
  assert_int_equal(q_num(g_db, "SELECT COUNT(*) FROM scores WHERE json_extract(meta, '$.run') = 1"
                               " AND json_extract(meta, '$.round') = 1 AND "
                               "json_extract(meta, '$.step') = 1 AND "
                               "json_extract(meta, '$.prompt_id') = 'fake-grpo-1'"), 1);
  assert_true(q_num(g_db, "SELECT COUNT(*) FROM scores WHERE verdict = 'pass' AND reward IS NOT "
                          "NULL AND status = 'ok'") >= 1);
}

static void test_stage_one_data_comes_from_the_stores_passing_solutions(void **state) {
  (void)state;
  /* the first run's rollout passed: the second run's stage 1 trains on it */
  char p[400];
  snprintf(p, sizeof p, "%s/data/sft.jsonl", g_out2);
  char *rows = file_text(p);
  assert_non_null(rows);
  cJSON *row = cJSON_Parse(rows);
  assert_non_null(row);
  assert_string_equal(cJSON_GetObjectItem(row, "task")->valuestring, RELU);
  cJSON *msgs = cJSON_GetObjectItem(row, "messages");
  assert_int_equal(cJSON_GetArraySize(msgs), 3);
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 2), "role")->valuestring, "assistant");
  assert_null(cJSON_GetObjectItem(row, "exemplar_ids"));
  /* --sft-exemplars 1: the same solution again under stage 3's contrastive prompt */
  const char *second = strchr(rows, '\n');
  assert_non_null(second);
  cJSON *row2 = cJSON_Parse(second + 1);
  assert_non_null(row2);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(row2, "exemplar_ids")), 1);
  cJSON *msgs2 = cJSON_GetObjectItem(row2, "messages");
  assert_non_null(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs2, 1), "content")->valuestring,
                         "## Earlier solutions"));
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs2, 2), "content")->valuestring,
                      cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 2), "content")->valuestring);
  cJSON_Delete(row2);
  cJSON_Delete(row);
  /* the first run's file was written too, empty: nothing had passed yet */
  snprintf(p, sizeof p, "%s/data/sft.jsonl", g_out1);
  assert_string_equal(file_text(p), "");
}

static void test_report_renders_the_training_view(void **state) {
  (void)state;
  char args[2048];
  snprintf(args, sizeof args, "%s/cudal1 report --db %s --html %s/r.html --json %s/r.json "
           "--md %s/r.md 2>&1", th_build(), g_db, g_dir, g_dir, g_dir);
  assert_int_equal(th_run(args, out_buf, sizeof out_buf), 0);
  snprintf(args, sizeof args, "%s/r.md", g_dir);
  char *md = file_text(args);
  assert_non_null(strstr(md, "## Training"));
  assert_non_null(strstr(md, "### Training run 1"));
  assert_non_null(strstr(md, "stage grpo, engine trl, model embedded, done"));
  /* the grpo run's rounds from its round events; the fake's round 1: 50%, 0.200, 1.05x, 1.30x */
  assert_non_null(strstr(md, "| grpo | 1 | 2 | 4 | 50.0% | 0.200 | 1.05x | 1.30x |"));
  /* stage 1 has no round event: its row is the mean of its steps, marked */
  assert_non_null(strstr(md, "| sft * | 0 | 1 |"));
  assert_non_null(strstr(md, "| sft | 0 | 8 | 25.0% | — | 1.10x |")); /* its evaluation */
  /* --grpo-probe: the fake's probe before the first round, with its reward */
  assert_non_null(strstr(md, "| grpo | before the first | 4 | 50.0% | -0.250 | 0.90x |"));
  assert_non_null(strstr(md, "GRPO steps:"));
  assert_non_null(strstr(md, "| update s | GPU busy |"));
  assert_non_null(strstr(md, "| 0.25 | 75.0% |"));  /* the fake's update time and busy share */
  snprintf(args, sizeof args, "%s/r.html", g_dir);
  char *html = file_text(args);
  assert_non_null(strstr(html, "<h2>Training</h2>"));
  assert_non_null(strstr(html, "<desc>GRPO reward mean per step, training run 1</desc>"));
  assert_non_null(strstr(html, "<desc>GRPO mean speedup per step, training run 1</desc>"));
  assert_non_null(strstr(html, "<desc>success rate per round, training run 2</desc>"));
  assert_null(strstr(html, "=\"nan"));
  assert_null(strstr(html, "=\"-nan"));
  snprintf(args, sizeof args, "%s/r.json", g_dir);
  cJSON *doc = cJSON_Parse(file_text(args));
  assert_non_null(doc);
  cJSON *tr = cJSON_GetObjectItem(doc, "training");
  assert_int_equal(cJSON_GetArraySize(tr), 2);
  cJSON *r1 = cJSON_GetArrayItem(tr, 0);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r1, "steps")), 4);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r1, "rounds")), 2);
  cJSON *last = cJSON_GetArrayItem(cJSON_GetObjectItem(r1, "steps"), 3);
  assert_true(fabs(cJSON_GetObjectItem(last, "speedup_mean")->valuedouble - 1.3) < 1e-9);
  cJSON_Delete(doc);
}

/* ---- failures ---- */

static void test_model_path_missing_or_without_tokenizer_is_exit_2(void **state) {
  th_store *f = *state;
  char args[2048], model[400];
  snprintf(args, sizeof args, "grpo --out %s/o --db %s --tasks " RELU " --model %s/none " EVAL,
           f->dir, f->path, f->dir);
  assert_int_equal(train(ENGINE, args), 2);
  assert_out_has("--model");
  assert_out_has("/none: no such folder");
  snprintf(model, sizeof model, "%s/ckpt", f->dir);
  assert_int_equal(mkdir(model, 0755), 0);
  snprintf(args, sizeof args, "grpo --out %s/o --db %s --tasks " RELU " --model %s --lr 1e-3 "
           "--rl-lr 3e-5 --selfsup-lr 2e-4 --temperature 0.5 --gen-batch 40 --rl-temperature 1.1 "
           "--rl-batch 5 --static-cache --mask-truncated --rounds 2 --grpo-rounds 3 " EVAL,
           f->dir, f->path, model);
  assert_int_equal(train(ENGINE, args), 2);
  assert_out_has("/ckpt: no tokenizer there (neither tokenizer.json nor tokenizer_config.json)");
  /* nothing was started or recorded */
  struct stat sb;
  assert_int_not_equal(stat(f->path, &sb), 0);
  /* with a tokenizer the path is the config's model, absolute */
  char tok[500];
  snprintf(tok, sizeof tok, "%s/tokenizer.json", model);
  assert_int_equal(th_write(tok, "{}"), 0);
  assert_int_equal(train(ENGINE, args), 0);
  snprintf(tok, sizeof tok, "%s/o/train-config.json", f->dir);
  cJSON *c = cJSON_Parse(file_text(tok));
  assert_string_equal(cJSON_GetObjectItem(c, "model")->valuestring, model);
  /* stage 3's own rate beside stages 1 and 2's */
  assert_true(fabs(cJSON_GetObjectItem(c, "lr")->valuedouble - 1e-3) < 1e-12);
  assert_true(fabs(cJSON_GetObjectItem(c, "rl_lr")->valuedouble - 3e-5) < 1e-12);
  assert_true(fabs(cJSON_GetObjectItem(c, "selfsup_lr")->valuedouble - 2e-4) < 1e-12);
  assert_true(fabs(cJSON_GetObjectItem(c, "temperature")->valuedouble - 0.5) < 1e-12);
  assert_true(fabs(cJSON_GetObjectItem(c, "rl_temperature")->valuedouble - 1.1) < 1e-12);
  assert_int_equal(cJSON_GetObjectItem(c, "rl_batch_size")->valueint, 5);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(c, "static_cache")));
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(c, "mask_truncated")));
  assert_int_equal(cJSON_GetObjectItem(c, "gen_batch")->valueint, 40);
  /* one stage's rounds after --rounds' both */
  assert_int_equal(cJSON_GetObjectItem(c, "selfsup_rounds")->valueint, 2);
  assert_int_equal(cJSON_GetObjectItem(c, "grpo_rounds")->valueint, 3);
  cJSON_Delete(c);
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_runs WHERE model IS NOT NULL"), 1);
}

static void test_bad_tasks_and_options_are_exit_2_before_anything_starts(void **state) {
  th_store *f = *state;
  char args[2048];
  struct {
    const char *args, *msg;
  } cases[] = {
      {"grpo --tasks level1/19_ReLU,level9/nope", "no task 'level9/nope'"},
      {"grpo --tasks " RELU "," RELU, "names level1/19_ReLU a second time"},
      {"grpo", "name the training tasks"},
      {"grpo --suite level7", "--suite: expected level1, level2, level3 or all"},
      {"grpo --tasks " RELU " --generations 1", "--generations: expected an integer in [2, 1024]"},
      {"grpo --tasks " RELU " --grpo-iterations 0", "--grpo-iterations: expected an integer in [1, 64]"},
      {"grpo --tasks " RELU " --engine deepspeed", "--engine: expected trl or verl"},
      {"grpo --tasks " RELU " --vllm-server localhost:8000", "--vllm-server: expected an http://"},
      {"grpo --tasks " RELU " --train-device tpu", "--train-device: expected cpu or cuda"},
      {"grpo --tasks " RELU " --shapes huge", "--shapes: expected test, small or large"},
      {"grpo --tasks " RELU " --frobnicate", "unknown option '--frobnicate'"},
      {"all --tasks " RELU " --sft-exemplar-rows 2", "--sft-exemplar-rows R needs --sft-exemplars N"},
      {"all --tasks " RELU " --sft-exemplars 1 --sft-exemplar-rows 0",
       "--sft-exemplar-rows: expected an integer in [1, 64]"},
      {"rlhf --tasks " RELU, "unknown verb 'rlhf', expected sft, selfsup, grpo or all"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    snprintf(args, sizeof args, "%s --out %s/o --db %s", cases[i].args, f->dir, f->path);
    assert_int_equal(train(ENGINE, args), 2);
    assert_out_has(cases[i].msg);
  }
  snprintf(args, sizeof args, "grpo --tasks " RELU " --db %s", f->path);
  assert_int_equal(train(ENGINE, args), 2);
  assert_out_has("--out DIR is required");
  snprintf(args, sizeof args, "grpo --tasks " RELU " --out %s/o --db %s --lr", f->dir, f->path);
  assert_int_equal(train(ENGINE, args), 2);
  assert_out_has("--lr needs a value");
  snprintf(args, sizeof args, "grpo --tasks " RELU " --out %s/o --db %s --model %s --embedded "
           "tiny", f->dir, f->path, f->dir);
  assert_int_equal(train(ENGINE, args), 2);
  assert_out_has("--embedded is the size of the model built without --model");
  struct stat sb;
  assert_int_not_equal(stat(f->path, &sb), 0); /* no store made, no run recorded */
}

static void test_stage_one_without_data_is_exit_2(void **state) {
  th_store *f = *state;
  char args[2048];
  snprintf(args, sizeof args, "sft --out %s/o --db %s --tasks " RELU " " EVAL, f->dir, f->path);
  assert_int_equal(train(ENGINE, args), 2);
  assert_out_has("no data for stage 1 (sft)");
  assert_out_has("cudal1 collect");
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_runs"), 0);
}

static void test_engine_exits_map_to_their_status_and_message(void **state) {
  th_store *f = *state;
  struct {
    const char *code, *msg;
    int rc;
  } cases[] = {
      {"2", "the engine stopped on its input: no tokenizer in the model folder", 2},
      {"3", "the engine stopped on an infrastructure error: the reward service is unreachable", 3},
      {"4", "the engine ran out of memory: CUDA out of memory (lower batch_size, max_completion_len", 3},
      {"5", "a Python dependency of the engine is missing: No module named 'trl' (pip install -e python[train])", 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char env[256], args[2048];
    snprintf(env, sizeof env, "FAKE_ENGINE_FAIL=%s " ENGINE, cases[i].code);
    snprintf(args, sizeof args, "grpo --out %s/o%zu --db %s --tasks " RELU " " EVAL, f->dir, i,
             f->path);
    assert_int_equal(train(env, args), cases[i].rc);
    assert_out_has(cases[i].msg);
    /* the message is the last line, after the run's summary */
    char *last = strrchr(out_buf, '\n');
    while (last && last > out_buf && last[1] == 0) *last = 0, last = strrchr(out_buf, '\n');
    assert_non_null(strstr(last ? last : out_buf, cases[i].msg));
  }
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_runs WHERE status = 'failed'"), 4);
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_events WHERE event = 'error'"), 4);
}

static void test_engine_that_cannot_be_imported_gets_the_pip_line(void **state) {
  th_store *f = *state;
  char args[2048];
  /* a Python whose path has no cudal1.train: what a fresh machine without the engine sees */
  snprintf(args, sizeof args, "grpo --out %s/o --db %s --tasks " RELU " " EVAL, f->dir, f->path);
  assert_int_equal(train("CUDAL1_TRAIN_ENGINE='python3 -c \"import cudal1_no_such_engine\"' ", args), 2);
  assert_out_has("No module named");
  assert_out_has("pip install -e python[train]");
  snprintf(args, sizeof args, "grpo --out %s/o2 --db %s --tasks " RELU " --python "
           "/nonexistent/python3 " EVAL, f->dir, f->path);
  assert_int_equal(train("CUDAL1_TRAIN_ENGINE= ", args), 2);
  assert_out_has("cannot run the engine '/nonexistent/python3'");
}

static void test_service_killed_mid_run_is_exit_3_with_the_store_intact(void **state) {
  th_store *f = *state;
  char args[2048];
  snprintf(args, sizeof args, "grpo --out %s/o --db %s --tasks " RELU " " EVAL, f->dir, f->path);
  child c;
  child_start(&c, "FAKE_ENGINE_POLL_SERVICE=1 " ENGINE, args);
  if (!child_wait_for(&c, "fake engine: polling the service", 30)) fail_msg("%s", c.out);
  pid_t serve = child_of(c.pid, "serve");
  assert_true(serve > 0);
  assert_int_equal(kill(serve, SIGKILL), 0);
  assert_int_equal(child_end(&c), 3);
  if (!strstr(c.out, "the reward service died")) fail_msg("%s", c.out);
  assert_non_null(strstr(c.out, "training stopped with the store intact"));
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_runs WHERE status = 'failed'"), 1);
  char t[64];
  assert_string_equal(q_text(f->path, "PRAGMA integrity_check", t, sizeof t), "ok");
  /* the rollout scored before the kill is there, with its evaluation */
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM scores s JOIN evaluations e ON "
                                  "e.id = s.evaluation_id WHERE json_extract(s.meta, '$.run') = 1"), 1);
}

static void test_sigint_stops_the_engine_and_the_service(void **state) {
  th_store *f = *state;
  char args[2048];
  snprintf(args, sizeof args, "grpo --out %s/o --db %s --tasks " RELU " " EVAL, f->dir, f->path);
  child c;
  child_start(&c, "FAKE_ENGINE_SLEEP=60 " ENGINE, args);
  if (!child_wait_for(&c, "fake engine: sleeping", 30)) fail_msg("%s", c.out);
  pid_t serve = child_of(c.pid, "serve"), engine = child_of(c.pid, "fake_engine");
  assert_true(serve > 0 && engine > 0);
  double t0 = cl1_now_test();
  assert_int_equal(kill(c.pid, SIGINT), 0);
  assert_int_equal(child_end(&c), 130);
  assert_true(cl1_now_test() - t0 < 20);
  assert_non_null(strstr(c.out, "SIGINT: stopping the engine"));
  assert_non_null(strstr(c.out, "fake engine: interrupted"));
  assert_non_null(strstr(c.out, "(continue with --resume)"));
  assert_false(alive(serve));
  assert_false(alive(engine));
  char t[64];
  assert_string_equal(q_text(f->path, "SELECT status FROM train_runs", t, sizeof t), "stopped");
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_events WHERE event = 'step'"), 1);
}

static void test_resume_reuses_the_run_and_passes_resume_true(void **state) {
  th_store *f = *state;
  char args[2048], p[400];
  snprintf(args, sizeof args, "grpo --out %s/o --db %s --tasks " RELU " --rounds 2 --steps 1 "
           EVAL, f->dir, f->path);
  /* round 0 checkpointed, then the engine stops on an infrastructure error */
  assert_int_equal(train("FAKE_ENGINE_FAIL=3 FAKE_ENGINE_AFTER=checkpoint " ENGINE, args), 3);
  snprintf(p, sizeof p, "%s/o/run.json", f->dir);
  cJSON *rf = cJSON_Parse(file_text(p));
  assert_int_equal(cJSON_GetObjectItem(rf, "run_id")->valueint, 1);
  cJSON_Delete(rf);
  /* the folder is the run's: a new run there is refused */
  assert_int_equal(train(ENGINE, args), 2);
  assert_out_has("holds training run 1 already");
  assert_out_has("pass --resume");
  /* --resume: the same run, "resume": true, and the engine goes on from round 1 */
  strcat(args, " --resume");
  assert_int_equal(train("FAKE_ENGINE_EXPECT_RESUME=1 " ENGINE, args), 0);
  assert_out_has("run 1 resumed");
  assert_out_has("fake engine: resuming after grpo round 0");
  snprintf(p, sizeof p, "%s/o/train-config.json", f->dir);
  cJSON *c = cJSON_Parse(file_text(p));
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(c, "resume")));
  assert_int_equal(cJSON_GetObjectItem(c, "run_id")->valueint, 1);
  cJSON_Delete(c);
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_runs"), 1);
  char t[64];
  assert_string_equal(q_text(f->path, "SELECT status FROM train_runs", t, sizeof t), "done");
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_events WHERE event = 'step' AND "
                                  "round = 1"), 1);
  assert_int_equal(q_num(f->path, "SELECT json_extract(config, '$.resume') FROM train_runs"), 1);
  /* a run stopped before its first checkpoint resumes as the same run, its stages over */
  char again[2048];
  snprintf(again, sizeof again, "grpo --out %s/o3 --db %s --tasks " RELU " --rounds 1 --steps 1 "
           EVAL, f->dir, f->path);
  assert_int_equal(train("FAKE_ENGINE_FAIL=3 " ENGINE, again), 3);
  strcat(again, " --resume");
  assert_int_equal(train(ENGINE, again), 0);
  assert_out_has("--resume: run 2 has no checkpoint yet");
  assert_out_has("run 2 resumed");
  snprintf(p, sizeof p, "%s/o3/train-config.json", f->dir);
  c = cJSON_Parse(file_text(p));
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(c, "resume")));
  assert_int_equal(cJSON_GetObjectItem(c, "run_id")->valueint, 2);
  cJSON_Delete(c);
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_runs"), 2);
  /* resuming under another stage is refused, naming the run's */
  char other[2048];
  snprintf(other, sizeof other, "selfsup --out %s/o --db %s --tasks " RELU " --resume " EVAL,
           f->dir, f->path);
  assert_int_equal(train(ENGINE, other), 2);
  assert_out_has("run 1 was `cudal1 train grpo --engine trl`");
}

/* verl at scale: the evaluation nodes' services and their token come from the environment; the
 * child service shares the token. Without $CUDAL1_SERVE_URLS a token in the environment is not
 * used: the child's is fresh. */
static void test_evaluation_nodes_share_their_token(void **state) {
  th_store *f = *state;
  char args[2048];
  snprintf(args, sizeof args, "grpo --out %s/o --db %s --tasks " RELU " --rounds 1 --steps 1 "
           EVAL, f->dir, f->path);
  assert_int_equal(train("CUDAL1_SERVE_TOKEN= CUDAL1_SERVE_URLS=http://10.0.0.5:8421 " ENGINE,
                         args), 2);
  assert_out_has("give their token in $CUDAL1_SERVE_TOKEN");
  const char *tok = "CUDAL1_SERVE_TOKEN=abcdef0123456789abcdef0123456789 ";
  char env[512];
  snprintf(env, sizeof env, "%sCUDAL1_SERVE_URLS=http://10.0.0.5:8421,http://10.0.0.6:8421 "
           ENGINE, tok);
  assert_int_equal(train(env, args), 0);
  assert_out_has("fake engine: token abcdef, CUDAL1_SERVE_URLS=http://10.0.0.5:8421,http://10.0.0.6:8421");
  snprintf(args, sizeof args, "grpo --out %s/o2 --db %s --tasks " RELU " --rounds 1 --steps 1 "
           EVAL, f->dir, f->path);
  snprintf(env, sizeof env, "%sCUDAL1_SERVE_URLS= " ENGINE, tok);
  assert_int_equal(train(env, args), 0);
  assert_out_has("fake engine: token ");
  assert_null(strstr(out_buf, "fake engine: token abcdef"));
}

/* ---- units ---- */

static void test_store_train_run_and_events(void **state) {
  th_store *f = *state;
  cl1_err err = {{0}};
  int64_t id;
  assert_int_equal(cl1_store_train_run_create(f->s, "grpo", "verl", NULL, "/o", "{}", &id, &err), 0);
  assert_int_equal(id, 1);
  assert_int_equal(cl1_store_train_event_add(f->s, id, "start", "grpo", -1, -1, "{\"event\":\"start\"}", &err), 0);
  assert_int_equal(cl1_store_train_event_add(f->s, id, "step", "grpo", 0, 3, "{}", &err), 0);
  assert_int_equal(cl1_store_train_run_update(f->s, id, "stopped", "{\"a\":1}", &err), 0);
  assert_int_equal(cl1_store_train_run_update(f->s, id, "done", NULL, &err), 0);
  cl1_store_train_run r;
  assert_int_equal(cl1_store_train_run_get(f->s, id, &r, &err), 0);
  assert_string_equal(r.stage, "grpo");
  assert_string_equal(r.engine, "verl");
  assert_null(r.model);
  assert_string_equal(r.status, "done");
  assert_string_equal(r.config, "{\"a\":1}");
  cl1_store_train_run_free(&r);
  th_store_close(f);
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_events WHERE round IS NULL AND step IS NULL"), 1);
  assert_int_equal(q_num(f->path, "SELECT step FROM train_events WHERE event = 'step'"), 3);
  assert_int_equal(cl1_store_open(f->path, &f->s, &err), 0);
  /* refusals name the cause and store nothing */
  assert_int_equal(cl1_store_train_run_create(f->s, "ppo", "trl", NULL, "/o", "{}", &id, &err), -1);
  assert_non_null(strstr(err.msg, "stage 'ppo' is not sft, selfsup, grpo or all"));
  assert_int_equal(cl1_store_train_run_update(f->s, 1, "crashed", NULL, &err), -1);
  assert_non_null(strstr(err.msg, "status 'crashed'"));
  assert_int_equal(cl1_store_train_run_update(f->s, 9, "done", NULL, &err), -1);
  assert_non_null(strstr(err.msg, "training run 9 is not in the store"));
  assert_int_equal(cl1_store_train_event_add(f->s, 9, "step", NULL, 0, 0, "{}", &err), -1);
  assert_int_equal(cl1_store_train_run_get(f->s, 9, &r, &err), -1);
  /* a store with a training run and nothing else is something to report */
  th_store_close(f);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "%s/cudal1 report --db %s 2>&1", th_build(), f->path);
  assert_int_equal(th_run(cmd, out_buf, sizeof out_buf), 0);
  assert_out_has("### Training run 1\n\nstage grpo, engine verl, model embedded, done");
  assert_out_has("| grpo * | 0 | 1 |");
  assert_null(strstr(out_buf, "Each task's best passing solution"));
}

/* A v4 store (the schema before the train tables) gains them when opened. */
static void test_migration_from_v4(void **state) {
  th_store *f = *state;
  th_store_seed_task_run(f->s);
  th_store_close(f);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db, "DROP TABLE train_events; DROP TABLE train_runs;"
                                    "DROP TABLE import_claims;" /* v6 */
                                    "UPDATE meta SET value = '4' WHERE key = 'schema_version'",
                                NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
  cl1_err err = {{0}};
  assert_int_equal(cl1_store_open(f->path, &f->s, &err), 0);
  int v;
  assert_int_equal(cl1_store_version(f->s, &v, &err), 0);
  assert_int_equal(v, CL1_STORE_SCHEMA_VERSION);
  int64_t id;
  assert_int_equal(cl1_store_train_run_create(f->s, "all", "trl", "/m", "/o", "{}", &id, &err), 0);
  th_store_close(f);
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM runs"), 1); /* the v4 rows stay */
}

static void test_event_lines_parse_or_say_why_not(void **state) {
  (void)state;
  cl1_train_event ev;
  cl1_err err = {{0}};
  const char *step = "CL1TRAIN {\"event\":\"step\",\"stage\":\"grpo\",\"round\":1,\"step\":3,"
                     "\"reward_mean\":0.25,\"reward_std\":0.5,\"success_rate\":0.5,"
                     "\"speedup_mean\":1.2,\"speedup_best\":2,\"loss\":0.01,\"t_generate\":1.5,"
                     "\"t_reward\":0.5,\"t_update\":0.25,\"gpu_busy\":0.834,\"extra\":[1]}";
  assert_true(cl1_train_is_event(step));
  assert_false(cl1_train_is_event("CL1TRAINING {}"));
  assert_int_equal(cl1_train_event_parse(step, &ev, &err), 0);
  assert_string_equal(ev.event, "step");
  assert_string_equal(ev.stage, "grpo");
  assert_int_equal(ev.round, 1);
  assert_int_equal(ev.step, 3);
  char s[512];
  cl1_train_event_summary(&ev, s, sizeof s);
  assert_string_equal(s, "[grpo r1 s3] reward 0.250 +- 0.500, success 50.0%, speedup mean 1.20x "
                         "best 2.00x, loss 0.01 (generate 1.5 s, reward 0.5 s, update 0.2 s, "
                         "GPU busy 83%)");
  char *text = cl1_train_event_text(&ev);
  assert_non_null(strstr(text, "\"extra\":[1]")); /* extra keys are kept */
  free(text);
  assert_false(cl1_train_event_error(&ev, s, sizeof s));
  cl1_train_event_free(&ev);
  assert_int_equal(cl1_train_event_parse("CL1TRAIN {\"event\":\"error\",\"message\":\"OOM\","
                                         "\"hint\":\"lower batch_size\"}", &ev, &err), 0);
  assert_int_equal(ev.round, -1);
  assert_true(cl1_train_event_error(&ev, s, sizeof s));
  assert_string_equal(s, "OOM (lower batch_size)");
  cl1_train_event_free(&ev);
  /* an eval says why its samples failed; a non-number count is left out, not printed as 0 */
  assert_int_equal(cl1_train_event_parse("CL1TRAIN {\"event\":\"eval\",\"stage\":\"sft\",\"round\":0,"
                                         "\"n_samples\":8,\"success_rate\":0.25,\"verdicts\":"
                                         "{\"compile_error\":5,\"pass\":2,\"x\":\"y\",\"truncated\":1}}",
                                         &ev, &err), 0);
  cl1_train_event_summary(&ev, s, sizeof s);
  assert_string_equal(s, "[sft r0] eval: 8 samples, success 25.0%, verdicts compile_error 5 pass 2 "
                         "truncated 1");
  cl1_train_event_free(&ev);
  /* stage 3's probe says so, and before round 0 it has no round */
  assert_int_equal(cl1_train_event_parse("CL1TRAIN {\"event\":\"eval\",\"stage\":\"grpo\",\"probe\":"
                                         "true,\"n_samples\":4,\"success_rate\":0.5}", &ev, &err), 0);
  cl1_train_event_summary(&ev, s, sizeof s);
  assert_string_equal(s, "[grpo] probe before round 0: 4 samples, success 50.0%");
  cl1_train_event_free(&ev);
  assert_int_equal(cl1_train_event_parse("CL1TRAIN {\"event\":\"eval\",\"stage\":\"grpo\",\"round\":1,"
                                         "\"probe\":true,\"n_samples\":4,\"success_rate\":0.75}",
                                         &ev, &err), 0);
  cl1_train_event_summary(&ev, s, sizeof s);
  assert_string_equal(s, "[grpo r1] probe: 4 samples, success 75.0%");
  cl1_train_event_free(&ev);
  struct {
    const char *line, *why;
  } bad[] = {
      {"CL1TRAIN not json", "not one JSON object"},
      {"CL1TRAIN [1,2]", "not one JSON object"},
      {"CL1TRAIN {\"stage\":\"sft\"}", "\"event\" is missing"},
      {"CL1TRAIN {\"event\":\"step\",\"round\":-1}", "\"round\" is not a non-negative integer"},
      {"CL1TRAIN {\"event\":\"step\",\"step\":1.5}", "\"step\" is not a non-negative integer"},
      {"CL1TRAIN {\"event\":\"step\",\"stage\":3}", "\"stage\" is not a short string"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(cl1_train_event_parse(bad[i].line, &ev, &err), -1);
    if (!strstr(err.msg, bad[i].why)) fail_msg("%s: '%s'", bad[i].line, err.msg);
    assert_null(ev.json);
  }
}

/* ---- the real engine, when it is installed ---- */

/* The engine's Python packages, found without importing them (torch alone takes seconds). */
static bool real_engine_installed(void) {
  return !th_run("PYTHONPATH=python python3 -c 'import importlib.util as u, sys; sys.exit(any("
                 "u.find_spec(m) is None for m in (\"cudal1.train\", \"trl\", \"torch\", "
                 "\"transformers\", \"peft\", \"tokenizers\", \"datasets\", \"accelerate\")))' "
                 "2>/dev/null", NULL, 0);
}

static void test_real_engine_runs_all_three_stages_with_the_tiny_model(void **state) {
  th_store *f = *state;
  if (!real_engine_installed()) {
    printf("skipped: the real engine (python/cudal1/train) or trl/torch is not importable\n");
    skip();
  }
  /* stage 1's data: the project's own ReLU replayed through collect */
  char p[400], line[4400], args[2048], real[4096];
  snprintf(p, sizeof p, "%s/replay.jsonl", f->dir);
  assert_non_null(realpath("tests/legit/host/19_ReLU.c", real));
  snprintf(line, sizeof line, "{\"task\":\"" RELU "\",\"file\":\"%s\"}\n", real);
  assert_int_equal(th_write(p, line), 0);
  snprintf(args, sizeof args, "%s/cudal1 collect --db %s --policy A=replay:%s --tasks " RELU
           " -n 1 --no-progress " EVAL " 2>&1", th_build(), f->path, p);
  assert_int_equal(th_run(args, out_buf, sizeof out_buf), 0);
  const char *tiny = "all --embedded tiny --tasks " RELU " --sft-max-steps 2 --rounds 1 "
                     "--samples 2 --steps 2 --generations 2 --batch-size 2 "
                     "--max-completion-len 32 " EVAL;
  snprintf(args, sizeof args, "%s --out %s/o --db %s", tiny, f->dir, f->path);
  int rc = train("CUDAL1_TRAIN_ENGINE= OMP_NUM_THREADS=1 ", args);
  if (rc) fail_msg("exit %d:\n%s", rc, out_buf);
  char t[256];
  assert_string_equal(q_text(f->path, "SELECT status FROM train_runs", t, sizeof t), "done");
  assert_string_equal(q_text(f->path, "SELECT group_concat(stage, ',') FROM (SELECT stage FROM "
                                      "train_events WHERE event = 'done' ORDER BY id)", t, sizeof t),
                      "sft,selfsup,grpo");
  assert_true(q_num(f->path, "SELECT COUNT(*) FROM train_events WHERE event = 'step' AND "
                             "stage = 'grpo'") >= 2);
  /* every rollout the engine scored is in the store with its reward and the run's meta */
  assert_true(q_num(f->path, "SELECT COUNT(*) FROM scores WHERE json_extract(meta, '$.run') = 1 "
                             "AND json_extract(meta, '$.stage') = 'grpo'") >= 4);
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM scores WHERE json_extract(meta, '$.run') "
                                  "= 1 AND status = 'ok' AND reward IS NULL"), 0);
  snprintf(p, sizeof p, "%s/o/state.json", f->dir);
  cJSON *st = cJSON_Parse(file_text(p));
  assert_non_null(st);
  const cJSON *ck = cJSON_GetObjectItem(st, "checkpoint");
  struct stat sb;
  assert_true(cJSON_IsString(ck) && !stat(ck->valuestring, &sb) && S_ISDIR(sb.st_mode));
  cJSON_Delete(st);
  /* --resume: the same run goes on from its state (here: every stage done) */
  snprintf(args, sizeof args, "%s --out %s/o --db %s --resume", tiny, f->dir, f->path);
  rc = train("CUDAL1_TRAIN_ENGINE= OMP_NUM_THREADS=1 ", args);
  if (rc) fail_msg("resume: exit %d:\n%s", rc, out_buf);
  assert_out_has("run 1 resumed");
  assert_int_equal(q_num(f->path, "SELECT COUNT(*) FROM train_runs"), 1);
  snprintf(args, sizeof args, "%s/cudal1 report --db %s 2>&1", th_build(), f->path);
  assert_int_equal(th_run(args, out_buf, sizeof out_buf), 0);
  assert_out_has("### Training run 1");
  assert_out_has("| grpo | 0 | 2 |");
}

int main(void) {
  /* one group: its setup makes the shared runs the first five read; the others have their own */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_runs_and_their_events_land_in_the_store),
      cmocka_unit_test(test_config_holds_the_contracts_keys),
      cmocka_unit_test(test_a_rollout_is_scored_with_its_meta),
      cmocka_unit_test(test_stage_one_data_comes_from_the_stores_passing_solutions),
      cmocka_unit_test(test_report_renders_the_training_view),
      th_store_path_test(test_model_path_missing_or_without_tokenizer_is_exit_2),
      th_store_path_test(test_bad_tasks_and_options_are_exit_2_before_anything_starts),
      th_store_path_test(test_stage_one_without_data_is_exit_2),
      th_store_path_test(test_engine_exits_map_to_their_status_and_message),
      th_store_path_test(test_engine_that_cannot_be_imported_gets_the_pip_line),
      th_store_path_test(test_service_killed_mid_run_is_exit_3_with_the_store_intact),
      th_store_path_test(test_sigint_stops_the_engine_and_the_service),
      th_store_path_test(test_resume_reuses_the_run_and_passes_resume_true),
      th_store_path_test(test_evaluation_nodes_share_their_token),
      th_store_test(test_store_train_run_and_events),
      th_store_test(test_migration_from_v4),
      cmocka_unit_test(test_event_lines_parse_or_say_why_not),
      th_store_path_test(test_real_engine_runs_all_three_stages_with_the_tiny_model),
  };
  return cmocka_run_group_tests_name("train", tests, group_setup, group_teardown);
}
