/* test_dataset.c — `cudal1 dataset sft|rl` (issue 20): the store's passing solutions become chat
 * rows (only verdict pass, one row per distinct code at its latest passing speedup, --min-speedup,
 * a split by task with no task on both sides, deterministic for a seed), prompt rows for GRPO in
 * TRL's and verl's layouts with the optimizer's exemplars, and every user error exits 2 naming
 * the option, task or file without touching the output. Each test has its own store
 * (store_fixture.h) and runs the built binary. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include "harness.h"
#include "base/file.h"
#include "loop/parse.h"
#include "loop/prompt.h"
#include "store_fixture.h"

#define RELU "level1/19_ReLU"
#define SOFTMAX "level1/23_Softmax"
#define MATMUL "level1/1_Square_matrix_multiplication_"
#define SIGMOID "level1/21_Sigmoid"

static int64_t sol_put(cl1_store *s, const char *task, const char *backend, const char *src,
                       int64_t run) {
  cl1_err err = {{0}};
  int64_t id;
  bool existed;
  assert_int_equal(cl1_store_solution_put(s, task, backend, src, "generated", NULL, 0, run, &id,
                                          &existed, &err), 0);
  return id;
}

static void ev_put(cl1_store *s, int64_t sol, const char *task, const char *verdict,
                   double speedup, const char *shapes) {
  cl1_err err = {{0}};
  cl1_store_eval e = {.solution_id = sol, .task_id = task, .device = "NVIDIA H200",
                      .shapes = shapes, .protocol_json = "{}", .verdict = verdict,
                      .speedup = speedup, .reward_speedup = NAN, .reward = NAN, .ref_ms = NAN,
                      .cand_ms = NAN, .spread = NAN, .wall_s = NAN};
  int64_t id;
  assert_int_equal(cl1_store_eval_put(s, &e, &id, &err), 0);
}

/* Four tasks. ReLU: A stored twice, passing 2.0 then 2.5 (latest); B passes 1.2; a hack (9x), a
 * failure and an infrastructure error; a host solution and a large-shapes pass (other backend,
 * other shapes). Softmax passes 1.5, matmul 3.0, sigmoid 0.8. 5 rows on cuda/small. */
static void seed(th_store *f) {
  cl1_store *s = f->s;
  th_store_seed_task(s, RELU, "19_ReLU");
  th_store_seed_task(s, SOFTMAX, "23_Softmax");
  th_store_seed_task(s, MATMUL, "1_Square_matrix_multiplication_");
  th_store_seed_task(s, SIGMOID, "21_Sigmoid");
  int64_t run = th_store_seed_run(s);
  int64_t a = sol_put(s, RELU, "cuda", "// relu A\n", run);
  ev_put(s, a, RELU, "pass", 2.0, "small");
  assert_int_equal(sol_put(s, RELU, "cuda", "// relu A\n", run), a); /* stored twice: one id */
  ev_put(s, a, RELU, "pass", 2.5, "small");
  ev_put(s, sol_put(s, RELU, "cuda", "// relu B ```` fence\n", run), RELU, "pass", 1.2, "small");
  ev_put(s, sol_put(s, RELU, "cuda", "// relu hack\n", run), RELU, "hack:unstable", 9.0, "small");
  ev_put(s, sol_put(s, RELU, "cuda", "// relu wrong\n", run), RELU, "incorrect", 0, "small");
  ev_put(s, sol_put(s, RELU, "cuda", "// relu infra\n", run), RELU, "infra_error", 0, "small");
  ev_put(s, sol_put(s, RELU, "host", "// relu host\n", run), RELU, "pass", 4.0, "small");
  ev_put(s, sol_put(s, RELU, "cuda", "// relu large\n", run), RELU, "pass", 5.0, "large");
  ev_put(s, sol_put(s, SOFTMAX, "cuda", "// softmax\n", run), SOFTMAX, "pass", 1.5, "small");
  ev_put(s, sol_put(s, MATMUL, "cuda", "// matmul\n", run), MATMUL, "pass", 3.0, "small");
  ev_put(s, sol_put(s, SIGMOID, "cuda", "// sigmoid\n", run), SIGMOID, "pass", 0.8, "small");
  th_store_close(f); /* the binary opens it */
}

/* Runs `cudal1 dataset ARGS` (stdout and stderr into out); returns the exit status. */
static int dataset(char *out, size_t cap, const char *fmt, ...) {
  char args[2048], cmd[2600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "%s/cudal1 dataset %s 2>&1", th_build(), args);
  return th_run(cmd, out, cap);
}

static char *slurp(const char *path) {
  cl1_err err = {{0}};
  char *text = NULL;
  size_t n;
  if (cl1_file_read_text(path, 1 << 26, &text, &n, &err)) fail_msg("%s", err.msg);
  return text;
}

/* The JSONL file's rows as one cJSON array (every line must parse). */
static cJSON *rows_of(const char *path) {
  char *text = slurp(path), *save = NULL;
  cJSON *arr = cJSON_CreateArray();
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    cJSON *r = cJSON_Parse(line);
    if (!r) fail_msg("%s: not JSON: %.80s", path, line);
    cJSON_AddItemToArray(arr, r);
  }
  free(text);
  return arr;
}

static const char *str(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  assert_true(cJSON_IsString(v));
  return v->valuestring;
}

static const char *msg(const cJSON *list, int i, const char *role) {
  const cJSON *m = cJSON_GetArrayItem(list, i);
  assert_non_null(m);
  assert_string_equal(str(m, "role"), role);
  return str(m, "content");
}

static double num(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  assert_true(cJSON_IsNumber(v));
  return v->valuedouble;
}

/* The round-1 prompt the optimizer would show for task (no exemplars). */
static void round1(const char *task, char **sys, char **usr) {
  cl1_err err = {{0}};
  cl1_task_ref ref;
  assert_int_equal(cl1_task_resolve("suite", task, &ref, &err), 0);
  cl1_prompt_req req = {.in = {.task = ref.task, .device = "cuda", .shapes = "small"}};
  if (cl1_prompt_for_task(&req, sys, usr, NULL, &err)) fail_msg("%s", err.msg);
  cl1_task_ref_release(&ref);
}

/* Only passing cuda/small solutions, one row per code at its latest pass, sorted by task and
 * speedup; the optimizer's round-1 prompt; the code back byte for byte from the reply parser. */
static void test_sft_rows_are_the_passing_solutions_once(void **state) {
  th_store *f = *state;
  seed(f);
  char out[4096], path[400];
  snprintf(path, sizeof path, "%s/sft.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s", f->path, path), 0);
  assert_non_null(strstr(out, "5 rows, 4 tasks"));
  cJSON *rows = rows_of(path);
  assert_int_equal(cJSON_GetArraySize(rows), 5);
  /* by task id (strcmp: "19_" before "1_S"), then speedup */
  static const char *const task[] = {RELU, RELU, MATMUL, SIGMOID, SOFTMAX};
  static const char *const code[] = {"// relu A\n", "// relu B ```` fence\n", "// matmul\n",
                                     "// sigmoid\n", "// softmax\n"};
  static const double speedup[] = {2.5, 1.2, 3.0, 0.8, 1.5};
  char *sys, *usr;
  round1(RELU, &sys, &usr);
  for (int i = 0; i < 5; i++) {
    const cJSON *r = cJSON_GetArrayItem(rows, i), *m = cJSON_GetObjectItem(r, "messages");
    assert_string_equal(str(r, "task"), task[i]);
    assert_true(num(r, "speedup") == speedup[i]);
    assert_int_equal(cJSON_GetArraySize(m), 3);
    msg(m, 0, "system");
    const char *user = msg(m, 1, "user"), *reply = msg(m, 2, "assistant");
    char head[200];
    snprintf(head, sizeof head, "# Task %s\n", task[i]);
    assert_non_null(strstr(user, head));
    assert_non_null(strstr(user, "this is the first round"));
    if (!strcmp(task[i], RELU)) {
      assert_string_equal(msg(m, 0, "system"), sys);
      assert_string_equal(user, usr);
    }
    cl1_parsed p;
    cl1_err err = {{0}};
    assert_int_equal(cl1_parse_reply(reply, strlen(reply), "cuda", &p, &err), 0);
    assert_int_equal(p.status, CL1_PARSE_OK);
    assert_string_equal(p.code, code[i]);
    assert_string_equal(p.lang, "cuda");
    cl1_parsed_free(&p);
  }
  free(sys), free(usr);
  char *text = slurp(path);
  assert_null(strstr(text, "relu hack"));
  assert_null(strstr(text, "relu wrong"));
  assert_null(strstr(text, "relu infra"));
  assert_null(strstr(text, "relu host"));
  assert_null(strstr(text, "relu large"));
  free(text);
  cJSON_Delete(rows);
}

/* --min-speedup leaves out the slower rows and says how many; prompt-completion splits the chat. */
static void test_sft_min_speedup_and_prompt_completion(void **state) {
  th_store *f = *state;
  seed(f);
  char out[4096], path[400];
  snprintf(path, sizeof path, "%s/sft.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s --min-speedup 1.5 --format "
                           "prompt-completion", f->path, path), 0);
  assert_non_null(strstr(out, "2 solutions below --min-speedup left out"));
  cJSON *rows = rows_of(path);
  assert_int_equal(cJSON_GetArraySize(rows), 3); /* matmul 3.0, relu A 2.5, softmax 1.5 */
  const cJSON *r;
  cJSON_ArrayForEach(r, rows) {
    assert_true(num(r, "speedup") >= 1.5);
    assert_null(cJSON_GetObjectItem(r, "messages"));
    const cJSON *p = cJSON_GetObjectItem(r, "prompt"), *c = cJSON_GetObjectItem(r, "completion");
    assert_int_equal(cJSON_GetArraySize(p), 2);
    msg(p, 0, "system");
    msg(p, 1, "user");
    assert_int_equal(cJSON_GetArraySize(c), 1);
    assert_non_null(strstr(msg(c, 0, "assistant"), "```cuda\n"));
  }
  cJSON_Delete(rows);
  /* nothing left: an error, and no file */
  snprintf(path, sizeof path, "%s/none.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s --min-speedup 10", f->path,
                           path), 2);
  assert_non_null(strstr(out, "no passing cuda solution"));
  assert_int_equal(access(path, F_OK), -1);
}

/* The tasks of a file's rows, as one string "a,b," in row order without repeats. */
static void tasks_of(const char *path, char *buf, size_t n) {
  cJSON *rows = rows_of(path);
  const cJSON *r;
  buf[0] = 0;
  cJSON_ArrayForEach(r, rows) {
    char t[200];
    snprintf(t, sizeof t, "%s,", str(r, "task"));
    if (!strstr(buf, t)) strncat(buf, t, n - strlen(buf) - 1);
  }
  cJSON_Delete(rows);
}

/* --split-by-task: disjoint task sets whose union is every task, the same for the same seed, and
 * the seed decides which. */
static void test_sft_split_by_task(void **state) {
  th_store *f = *state;
  seed(f);
  char out[4096], tr[400], ev[400], a[1000], b[1000], first[2000] = "";
  snprintf(tr, sizeof tr, "%s/train.jsonl", f->dir);
  snprintf(ev, sizeof ev, "%s/eval.jsonl", f->dir);
  bool differs = false;
  for (int seed_ = 1; seed_ <= 8; seed_++) {
    assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s --split-by-task 0.5 --eval-out"
                             " %s --seed %d", f->path, tr, ev, seed_), 0);
    tasks_of(tr, a, sizeof a);
    tasks_of(ev, b, sizeof b);
    int n_a = 0, n_b = 0;
    for (char *p = a; (p = strchr(p, ',')); p++) n_a++;
    for (char *p = b; (p = strchr(p, ',')); p++) n_b++;
    assert_int_equal(n_a, 2);
    assert_int_equal(n_b, 2);
    static const char *const all[] = {RELU "," , SOFTMAX ",", MATMUL ",", SIGMOID ","};
    for (int i = 0; i < 4; i++) assert_true((strstr(a, all[i]) != NULL) != (strstr(b, all[i]) != NULL));
    char *t1 = slurp(tr), *e1 = slurp(ev);
    assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s --split-by-task 0.5 --eval-out"
                             " %s --seed %d", f->path, tr, ev, seed_), 0);
    char *t2 = slurp(tr), *e2 = slurp(ev);
    assert_string_equal(t1, t2); /* the same seed: the same files */
    assert_string_equal(e1, e2);
    free(t1), free(e1), free(t2), free(e2);
    if (!*first) snprintf(first, sizeof first, "%s", b);
    else if (strcmp(first, b)) differs = true;
  }
  assert_true(differs);
}

/* rl: one row per task and index; without --db the plain round-1 prompt; with --db the
 * contrastive prompt shows earlier solutions and their speedups, and names them. */
static void test_rl_prompts_with_and_without_exemplars(void **state) {
  th_store *f = *state;
  seed(f);
  char out[4096], path[400];
  snprintf(path, sizeof path, "%s/rl.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "rl --tasks %s %s --out %s --n 2", RELU, SOFTMAX,
                           path), 0);
  cJSON *rows = rows_of(path);
  assert_int_equal(cJSON_GetArraySize(rows), 4);
  static const char *const task[] = {RELU, RELU, SOFTMAX, SOFTMAX};
  char *sys, *usr;
  round1(RELU, &sys, &usr);
  for (int i = 0; i < 4; i++) {
    const cJSON *r = cJSON_GetArrayItem(rows, i), *p = cJSON_GetObjectItem(r, "prompt");
    assert_string_equal(str(r, "task"), task[i]);
    assert_int_equal(strlen(str(r, "prompt_id")), 16);
    assert_int_equal(cJSON_GetArraySize(p), 2);
    assert_non_null(strstr(msg(p, 1, "user"), "this is the first round"));
    if (i == 0) assert_string_equal(msg(p, 1, "user"), usr);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "exemplar_ids")), 0);
  }
  free(sys), free(usr);
  cJSON_Delete(rows);
  assert_int_equal(dataset(out, sizeof out, "rl --tasks %s --db %s --exemplars 2 --out %s",
                           RELU, f->path, path), 0);
  rows = rows_of(path);
  assert_int_equal(cJSON_GetArraySize(rows), 1);
  const cJSON *r = cJSON_GetArrayItem(rows, 0);
  const char *user = msg(cJSON_GetObjectItem(r, "prompt"), 1, "user");
  assert_non_null(strstr(user, "## Earlier solutions"));
  assert_non_null(strstr(user, "// relu A")); /* both passing solutions, two buckets */
  assert_non_null(strstr(user, "2.50x the reference"));
  assert_non_null(strstr(user, "1.20x the reference"));
  assert_null(strstr(user, "relu hack"));
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "exemplar_ids")), 2);
  cJSON_Delete(rows);
}

/* sft --exemplars: each solution twice, the second time under the contrastive prompt with the
 * task's passing solutions as exemplars (the prompt GRPO shows), the same reply both times. */
static void test_sft_exemplars_add_contrastive_rows(void **state) {
  th_store *f = *state;
  seed(f);
  char out[4096], path[400];
  snprintf(path, sizeof path, "%s/sft.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s --exemplars 2", f->path, path), 0);
  assert_non_null(strstr(out, "10 rows, 4 tasks"));
  cJSON *rows = rows_of(path);
  assert_int_equal(cJSON_GetArraySize(rows), 10);
  for (int i = 0; i < 10; i += 2) {
    const cJSON *a = cJSON_GetArrayItem(rows, i), *b = cJSON_GetArrayItem(rows, i + 1);
    const cJSON *ma = cJSON_GetObjectItem(a, "messages"), *mb = cJSON_GetObjectItem(b, "messages");
    assert_string_equal(str(a, "task"), str(b, "task"));
    assert_true(num(a, "solution_id") == num(b, "solution_id"));
    assert_string_equal(msg(ma, 2, "assistant"), msg(mb, 2, "assistant"));
    assert_null(cJSON_GetObjectItem(a, "exemplar_ids"));
    assert_non_null(strstr(msg(ma, 1, "user"), "this is the first round"));
    assert_non_null(strstr(msg(mb, 1, "user"), "## Earlier solutions"));
    assert_null(strstr(msg(mb, 1, "user"), "this is the first round"));
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(b, "exemplar_ids")) >= 1);
    if (!strcmp(str(a, "task"), RELU)) { /* both passing ReLU solutions, never the hack */
      assert_non_null(strstr(msg(mb, 1, "user"), "// relu A"));
      assert_non_null(strstr(msg(mb, 1, "user"), "2.50x the reference"));
      assert_null(strstr(msg(mb, 1, "user"), "relu hack"));
    }
  }
  cJSON_Delete(rows);
  char again[400];  /* the same seed picks the same exemplars */
  snprintf(again, sizeof again, "%s/sft2.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s --exemplars 2", f->path, again), 0);
  char *t1 = slurp(path), *t2 = slurp(again);
  assert_string_equal(t1, t2);
  free(t1), free(t2);
}

/* sft --exemplar-rows: each solution under as many distinct exemplar picks as exist, up to R;
 * ReLU's two passing solutions each appear under both as the one exemplar (a bug fixed: with one
 * pick per solution a prompt met one solution only, and GRPO had no choice to reward). */
static void test_sft_exemplar_rows_cover_the_picks(void **state) {
  th_store *f = *state;
  seed(f);
  char out[4096], path[400], one[400], plain[400];
  snprintf(path, sizeof path, "%s/sft.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s --exemplars 1 --exemplar-rows 4",
                           f->path, path), 0);
  assert_non_null(strstr(out, "12 rows, 4 tasks")); /* 5 plain, ReLU's 2 x 2, 3 others x 1 */
  cJSON *rows = rows_of(path);
  assert_int_equal(cJSON_GetArraySize(rows), 12);
  int relu_pairs[2][2] = {{0}}; /* [which solution][which exemplar]: rows seen */
  double first_relu = -1;
  cJSON *r;
  cJSON_ArrayForEach(r, rows) {
    const cJSON *ids = cJSON_GetObjectItem(r, "exemplar_ids");
    if (!ids || strcmp(str(r, "task"), RELU)) continue;
    assert_int_equal(cJSON_GetArraySize(ids), 1);
    if (first_relu < 0) first_relu = num(r, "solution_id");
    int s = num(r, "solution_id") != first_relu, e = cJSON_GetArrayItem(ids, 0)->valuedouble != first_relu;
    relu_pairs[s][e]++;
    assert_non_null(strstr(msg(cJSON_GetObjectItem(r, "messages"), 1, "user"), "## Earlier solutions"));
  }
  for (int s = 0; s < 2; s++)
    for (int e = 0; e < 2; e++) assert_int_equal(relu_pairs[s][e], 1);
  cJSON_Delete(rows);
  /* one row per solution (the default) is the file --exemplars alone wrote before */
  snprintf(one, sizeof one, "%s/one.jsonl", f->dir);
  snprintf(plain, sizeof plain, "%s/plain.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s --exemplars 1 --exemplar-rows 1",
                           f->path, one), 0);
  assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s --exemplars 1", f->path, plain), 0);
  char *t1 = slurp(one), *t2 = slurp(plain);
  assert_string_equal(t1, t2);
  free(t1), free(t2);
}

/* --format verl-jsonl: verl's keys, the task id as the reward model's ground truth. */
static void test_rl_verl_layout(void **state) {
  th_store *f = *state;
  char out[4096], path[400];
  snprintf(path, sizeof path, "%s/verl.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "rl --level 1 --format verl-jsonl --out %s", path), 0);
  cJSON *rows = rows_of(path);
  assert_int_equal(cJSON_GetArraySize(rows), 100);
  const cJSON *r;
  int relu = 0;
  cJSON_ArrayForEach(r, rows) {
    assert_string_equal(str(r, "data_source"), "cudal1");
    assert_string_equal(str(r, "ability"), "cuda");
    const cJSON *rm = cJSON_GetObjectItem(r, "reward_model"), *x = cJSON_GetObjectItem(r, "extra_info");
    assert_string_equal(str(rm, "style"), "rule");
    assert_string_equal(str(x, "task"), str(rm, "ground_truth"));
    assert_int_equal(strlen(str(x, "prompt_id")), 16);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "prompt")), 2);
    relu += !strcmp(str(rm, "ground_truth"), RELU);
  }
  assert_int_equal(relu, 1);
  cJSON_Delete(rows);
}

/* The files in dir (to see that a failed command left no temporary file behind). */
static int files_in(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
  if (d) closedir(d);
  return n;
}

/* Every user error: exit 2, a message naming the option, task or file, the output untouched. */
static void test_errors_name_the_cause_and_leave_the_output(void **state) {
  th_store *f = *state;
  seed(f);
  char out[4096], path[400], missing[400];
  snprintf(path, sizeof path, "%s/keep.jsonl", f->dir);
  snprintf(missing, sizeof missing, "%s/nope.db", f->dir);
  assert_int_equal(th_write(path, "old\n"), 0);
  int before = files_in(f->dir);
  static const struct {
    const char *args, *says;
  } cases[] = {
      {"sft --db DB", "--out FILE is required"},
      {"rl --tasks " RELU, "--out FILE is required"},
      {"sft --out OUT", "--db DB is required"},
      {"sft --db MISSING --out OUT", "no such store"},
      {"rl --tasks " RELU " --db MISSING --out OUT", "no such store"},
      {"rl --tasks level1/9999_Nope --out OUT", "no task 'level1/9999_Nope'"},
      {"rl --tasks " RELU " " RELU " --out OUT", "a second time"},
      {"rl --out OUT", "--tasks TASK..., --level N or --all"},
      {"sft --db DB --out OUT --split-by-task 0.5", "--eval-out"},
      {"sft --db DB --out OUT --split-by-task 1 --eval-out E", "--split-by-task"},
      {"sft --db DB --out OUT --format chatml", "--format"},
      {"rl --all --out OUT --format parquet", "--format"},
      {"sft --db DB --out OUT --device tpu", "--device"},
      {"sft --db DB --out OUT --min-speedup", "--min-speedup needs a value"},
      {"rl --all --out OUT --exemplars 99", "--exemplars"},
      {"sft --db DB --out OUT --n 2", "unknown option '--n'"},
      {"sft --db DB --out OUT --exemplars 27", "--exemplars"},
      {"sft --db DB --out OUT --exemplar-rows 2", "--exemplar-rows R needs --exemplars N"},
      {"sft --db DB --out OUT --exemplars 1 --exemplar-rows 0", "--exemplar-rows"},
      {"rl --all --out OUT --exemplar-rows 2", "unknown option '--exemplar-rows'"},
      {"", "sft or rl"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char args[1200] = "";
    for (const char *p = cases[i].args; *p;) {
      const char *rep = !strncmp(p, "DB", 2) ? f->path : !strncmp(p, "OUT", 3) ? path
                        : !strncmp(p, "MISSING", 7) ? missing : NULL;
      if (rep) {
        strcat(args, rep);
        p += !strncmp(p, "DB", 2) ? 2 : !strncmp(p, "OUT", 3) ? 3 : 7;
      } else {
        strncat(args, p++, 1);
      }
    }
    int rc = dataset(out, sizeof out, "%s", args);
    if (rc != 2 || !strstr(out, cases[i].says))
      fail_msg("dataset %s: exit %d, said: %s (wanted '%s')", args, rc, out, cases[i].says);
    char *text = slurp(path);
    assert_string_equal(text, "old\n");
    free(text);
    assert_int_equal(files_in(f->dir), before); /* no temporary left, no store created */
  }
  assert_int_equal(access(missing, F_OK), -1);
}

/* The SFT file loads with Hugging Face `datasets` where it is installed (skipped otherwise). */
static void test_sft_loads_with_hf_datasets(void **state) {
  th_store *f = *state;
  if (system("python3 -c 'import datasets' >/dev/null 2>&1")) skip();
  seed(f);
  char out[4096], path[400], cmd[1200];
  snprintf(path, sizeof path, "%s/sft.jsonl", f->dir);
  assert_int_equal(dataset(out, sizeof out, "sft --db %s --out %s", f->path, path), 0);
  snprintf(cmd, sizeof cmd, "HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 HF_DATASETS_CACHE=%s/hf "
           "python3 -c \"import datasets; d = datasets.load_dataset('json', data_files='%s', "
           "split='train'); assert len(d) == 5, len(d); "
           "assert d[0]['messages'][2]['role'] == 'assistant'; print('rows', len(d))\" 2>&1",
           f->dir, path);
  int rc = th_run(cmd, out, sizeof out);
  if (rc) fail_msg("datasets.load_dataset: %s", out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      th_store_test(test_sft_rows_are_the_passing_solutions_once),
      th_store_test(test_sft_min_speedup_and_prompt_completion),
      th_store_test(test_sft_split_by_task),
      th_store_test(test_sft_exemplars_add_contrastive_rows),
      th_store_test(test_sft_exemplar_rows_cover_the_picks),
      th_store_test(test_rl_prompts_with_and_without_exemplars),
      th_store_test(test_rl_verl_layout),
      th_store_test(test_errors_name_the_cause_and_leave_the_output),
      th_store_test(test_sft_loads_with_hf_datasets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
