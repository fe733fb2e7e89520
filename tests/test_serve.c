/* test_serve.c — `cudal1 serve` as a client sees it: the real binary started on a free port
 * (--device host --shapes test, fast timing) with a fresh store, spoken to over HTTP with
 * libcurl. Verdicts and rewards of real candidates, the cache, 400s naming the field, the token,
 * the limits (body, items, a client that goes away, the queue bound, deadlines, idle
 * connections), jobs (submit and poll, bounded, expiring, drained), a kill -9 mid-batch and a restart on the same store, 1,000 concurrent requests,
 * the drain on SIGTERM, the counters, the GPU options' checks; "format": "kernelbench" items
 * and prompts (python ModelNew blocks, .py candidates, exemplars of the same format only). */
#include "eval_cases.h"
#include "serve_client.h"
#include "store_query.h"
#include "eval/reward.h"
#include <math.h>
#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/socket.h>

/* The shared service of the group (no token). */
static svc g;

static int group_setup(void **state) {
  (void)state;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  svc_fresh(&g, NULL);
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  int rc = svc_stop(&g);
  svc_rm(&g);
  curl_global_cleanup();
  return rc;
}

/* ---- verdicts and rewards -------------------------------------------------------------------- */

static void test_correct_wrong_and_codeless_items_get_their_verdicts(void **state) {
  (void)state;
  const char *texts[] = {file_text("tests/legit/host/19_ReLU.c"),
                         file_text("tests/hacks/host/wrong_values.c")};
  char *body = items_body(2, "code", texts, false);
  resp r;
  http(g.port, "/v1/score", body, NULL, &r);
  free(body);
  cJSON *doc;
  const cJSON *ok = result(&r, &doc, 0), *bad = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 1);
  assert_int_equal(num(ok, "id"), 0);
  assert_string_equal(str(ok, "status"), "ok");
  assert_string_equal(str(ok, "verdict"), "pass");
  assert_true(num(ok, "reward") >= -1.5 && num(ok, "reward") <= 1.5);
  assert_true(num(ok, "score01") >= 0.5 && num(ok, "score01") <= 1);
  assert_true(num(ok, "speedup") > 0);
  assert_non_null(strstr(str(ok, "feedback"), "correct"));
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(ok, "cached")));
  assert_string_equal(str(bad, "verdict"), "incorrect");
  assert_true(num(bad, "reward") == -2.0);  /* the floor: -(k + 0.5), k = 1.5 */
  assert_true(num(bad, "score01") == 0);
  assert_non_null(strstr(str(bad, "feedback"), "outside tolerance"));
  cJSON_Delete(doc);
  free(r.body);
  /* a reply without code: no_code, the floor, feedback saying so */
  const char *reply[] = {"I would use shared memory here, but I wrote no code."};
  body = items_body(1, "completion", reply, false);
  http(g.port, "/v1/score", body, NULL, &r);
  free(body);
  const cJSON *nc = result(&r, &doc, 0);
  assert_string_equal(str(nc, "verdict"), "no_code");
  assert_true(num(nc, "reward") == -2.0);
  assert_non_null(strstr(str(nc, "feedback"), "no code"));
  cJSON_Delete(doc);
  free(r.body);
}

/* The same code again: the stored answer, "cached"; fresh:true evaluates again. */
static void test_same_item_is_cached_unless_fresh(void **state) {
  (void)state;
  char code[8192];
  snprintf(code, sizeof code, "%s\n/* cache test */\n", file_text("tests/legit/host/19_ReLU.c"));
  const char *texts[] = {code};
  char reply[9000];
  snprintf(reply, sizeof reply, "## Code Implementation\n```c\n%s```\n", code);
  const char *replies[] = {reply};
  char *body = items_body(1, "code", texts, false), *as_reply = items_body(1, "completion", replies, false);
  char *fresh = items_body(1, "code", texts, true);
  double evals0 = stat_of(g.port, "evaluations"), hits0 = stat_of(g.port, "cache_hits");
  resp r1, r2, r3, r4;
  http(g.port, "/v1/score", body, NULL, &r1);
  http(g.port, "/v1/score", body, NULL, &r2);
  http(g.port, "/v1/score", as_reply, NULL, &r3);  /* the same code inside a reply */
  assert_true(stat_of(g.port, "evaluations") == evals0 + 1);
  assert_true(stat_of(g.port, "cache_hits") == hits0 + 2);
  http(g.port, "/v1/score", fresh, NULL, &r4);
  assert_true(stat_of(g.port, "evaluations") == evals0 + 2);
  cJSON *d1, *d2, *d3, *d4;
  const cJSON *a = result(&r1, &d1, 0), *b = result(&r2, &d2, 0), *c = result(&r3, &d3, 0),
              *e = result(&r4, &d4, 0);
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(a, "cached")));
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(b, "cached")));
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(c, "cached")));
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(e, "cached")));
  assert_true(num(a, "speedup") == num(b, "speedup") && num(a, "reward") == num(b, "reward"));
  assert_string_equal(str(a, "feedback"), str(c, "feedback"));
  cJSON_Delete(d1), cJSON_Delete(d2), cJSON_Delete(d3), cJSON_Delete(d4);
  free(r1.body), free(r2.body), free(r3.body), free(r4.body);
  free(body), free(as_reply), free(fresh);
}

/* One LayerNorm solution's answer: its reward and speedup (a pass, no flag that caps its pay). */
static void layernorm_answer(const char *tag, double *reward, double *speedup, bool *cached) {
  char code[16384];
  snprintf(code, sizeof code, "%s\n/* %s */\n", file_text("tests/legit/host/40_LayerNorm.c"), tag);
  const char *texts[] = {code};
  char *body = items_body(1, "code", texts, false);
  cJSON *doc = cJSON_Parse(body);  /* items_body names 19_ReLU: the same item for 40_LayerNorm */
  cJSON *it = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "items"), 0);
  cJSON_ReplaceItemInObject(it, "task", cJSON_CreateString("level1/40_LayerNorm"));
  char *b2 = cJSON_PrintUnformatted(doc);
  resp r;
  http(g.port, "/v1/score", b2, NULL, &r);
  cJSON *d;
  const cJSON *a = result(&r, &d, 0);
  assert_string_equal(str(a, "verdict"), "pass");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(a, "flags")), 0);
  *reward = num(a, "reward"), *speedup = num(a, "speedup");
  *cached = cJSON_IsTrue(cJSON_GetObjectItem(a, "cached"));
  cJSON_Delete(d), cJSON_Delete(doc);
  free(r.body), free(body), free(b2);
}

/* The reward the task's running statistics pay for speedup now. */
static double pay_now(double speedup) {
  char path[sizeof g.db + 32];
  snprintf(path, sizeof path, "%s.reward-stats.json", g.db);
  cl1_reward_stats st;
  double best;
  cl1_err err = {{0}};
  assert_int_equal(cl1_reward_file_get(path, "level1/40_LayerNorm", &st, &best, &err), 0);
  cl1_reward_cfg cfg;
  cl1_reward_cfg_default(&cfg);
  bool valid;
  return cl1_reward_normalize(&cfg, &st, "pass", speedup, &valid);
}

/* A pass is paid against the statistics as they are at its answer, evaluated or repeated: a
 * solution repeated after another joined the statistics is paid what they pay now, not what it
 * was paid first (a trainer's group ranks its passes by speed, not by when each was first seen). */
static void test_a_repeated_pass_is_paid_against_the_statistics_of_now(void **state) {
  (void)state;
  double ra, sa, rb, sb, ra2, sa2;
  bool cached;
  layernorm_answer("repay A", &ra, &sa, &cached);
  assert_false(cached);
  assert_true(fabs(ra - pay_now(sa)) < 1e-9);  /* after it joined them */
  layernorm_answer("repay B", &rb, &sb, &cached);
  assert_false(cached);
  layernorm_answer("repay A", &ra2, &sa2, &cached);
  assert_true(cached);
  assert_true(sa2 == sa);
  assert_true(fabs(ra2 - pay_now(sa)) < 1e-9);
  assert_true(fabs(rb - pay_now(sb)) < 1e-9);  /* B, evaluated last, the same statistics */
}

/* One request of two LayerNorm solutions (tags): each one's reward, speedup and cached flag. */
static void layernorm_pair(const char *tag0, const char *tag1, double reward[2], double speedup[2],
                           bool cached[2]) {
  char code[2][16384];
  const char *texts[2] = {code[0], code[1]}, *tags[2] = {tag0, tag1};
  for (int i = 0; i < 2; i++)
    snprintf(code[i], sizeof code[i], "%s\n/* %s */\n", file_text("tests/legit/host/40_LayerNorm.c"),
             tags[i]);
  char *body = items_body(2, "code", texts, false);
  cJSON *doc = cJSON_Parse(body), *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(doc, "items"))
    cJSON_ReplaceItemInObject(it, "task", cJSON_CreateString("level1/40_LayerNorm"));
  char *b2 = cJSON_PrintUnformatted(doc);
  resp r;
  http(g.port, "/v1/score", b2, NULL, &r);
  cJSON *d;
  for (int i = 0; i < 2; i++) {
    const cJSON *a = result(&r, &d, i);
    assert_string_equal(str(a, "verdict"), "pass");
    reward[i] = num(a, "reward"), speedup[i] = num(a, "speedup");
    cached[i] = cJSON_IsTrue(cJSON_GetObjectItem(a, "cached"));
    cJSON_Delete(d);
  }
  cJSON_Delete(doc);
  free(r.body), free(body), free(b2);
}

/* A request's passes are paid against one set of statistics, those after all of its evaluations
 * joined: a repeat answered at once was paid before the request's new evaluation joined them,
 * so within one trainer step a group's passes were not ranked by speed alone. The store's rows
 * say what the answer said. */
static void test_a_requests_passes_are_paid_against_the_same_statistics(void **state) {
  (void)state;
  double r0, s0, rw[2], sp[2];
  bool cached0, cached[2];
  layernorm_answer("settle A", &r0, &s0, &cached0);  /* A in the store */
  double before = pay_now(s0);
  layernorm_pair("settle A", "settle C", rw, sp, cached);
  assert_true(cached[0] && !cached[1]);
  double after = pay_now(sp[0]);
  assert_true(fabs(after - before) > 1e-9);  /* C's joining moved what A is paid */
  assert_true(fabs(rw[0] - after) < 1e-9);
  assert_true(fabs(rw[1] - pay_now(sp[1])) < 1e-9);
  char sql[512];
  snprintf(sql, sizeof sql, "SELECT reward FROM scores WHERE task_id = 'level1/40_LayerNorm' AND "
           "cached = 1 ORDER BY id DESC LIMIT 1");
  assert_true(fabs(q_num(g.db, sql) - rw[0]) < 1e-9);
  snprintf(sql, sizeof sql, "SELECT json_extract(result, '$.reward') FROM scores WHERE task_id = "
           "'level1/40_LayerNorm' AND cached = 1 ORDER BY id DESC LIMIT 1");
  assert_true(fabs(q_num(g.db, sql) - rw[0]) < 1e-9);
}

/* ---- malformed requests ---------------------------------------------------------------------- */

static void expect_400(const char *body, const char *needle) {
  resp r;
  http(g.port, "/v1/score", body, NULL, &r);
  assert_int_equal(r.status, 400);
  if (!strstr(r.body, needle)) fail_msg("'%s' not in '%s'", needle, r.body);
  free(r.body);
}

static void test_malformed_requests_are_400_naming_the_field(void **state) {
  (void)state;
  expect_400("{\"items\": [", "not valid JSON");
  expect_400("[1,2]", "expected a JSON object");
  expect_400("{}", "items: missing");
  expect_400("{\"items\":[{\"id\":1,\"task\":\"" TASK "\",\"code\":\"x\"},{\"id\":2,\"code\":\"x\"}]}",
             "items[1].task: missing");
  expect_400("{\"items\":[{\"task\":\"" TASK "\",\"code\":\"x\"}]}", "items[0].id: missing");
  expect_400("{\"items\":[{\"id\":1,\"task\":\"" TASK "\"}]}", "items[0].completion: missing");
  expect_400("{\"items\":[{\"id\":1,\"task\":\"level9/none\",\"code\":\"x\"}]}",
             "items[0].task: unknown task 'level9/none'");
  expect_400("{\"items\":[{\"id\":1,\"task\":\"/etc/passwd\",\"code\":\"x\"}]}",
             "items[0].task: unknown task");
  expect_400("{\"items\":[{\"id\":1,\"task\":\"" TASK "\",\"code\":\"x\",\"fresh\":1}]}",
             "items[0].fresh: expected true or false");
  resp r;
  http(g.port, "/v1/nothing", "{}", NULL, &r);
  assert_int_equal(r.status, 404);
  free(r.body);
}

/* ---- limits ------------------------------------------------------------------------------------ */

static void test_50mb_body_is_413_and_the_service_lives(void **state) {
  (void)state;
  size_t n = (size_t)50 << 20;
  char *big = malloc(n + 1);
  memset(big, ' ', n);
  big[n] = 0;
  resp r;
  double t0 = cl1_now_test();
  memset(&r, 0, sizeof r);
  struct curl_slist *h;
  CURL *c = easy(g.port, "/v1/score", big, n, NULL, &r, &h);
  curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_easy_cleanup(c);
  curl_slist_free_all(h);
  free(big);
  assert_int_equal(r.status, 413);
  assert_non_null(strstr(r.body, "--max-body"));
  free(r.body);
  assert_true(cl1_now_test() - t0 < 60);
  http(g.port, "/healthz", NULL, NULL, &r);
  assert_int_equal(r.status, 200);
  free(r.body);
}

static void test_10000_items_are_400_over_max_items(void **state) {
  (void)state;
  const char **texts = malloc(10000 * sizeof *texts);
  for (int i = 0; i < 10000; i++) texts[i] = "x";
  char *body = items_body(10000, "code", texts, false);
  free(texts);
  double t0 = cl1_now_test();
  resp r;
  http(g.port, "/v1/score", body, NULL, &r);
  free(body);
  assert_int_equal(r.status, 400);
  assert_non_null(strstr(r.body, "items: 10000 entries, more than --max-items 1024"));
  assert_true(cl1_now_test() - t0 < 30);
  free(r.body);
}

/* A client announces a body, sends part of it and closes: the service goes on. */
static void test_client_gone_mid_body_leaves_the_service_alive(void **state) {
  (void)state;
  for (int k = 0; k < 5; k++) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g.port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    const char head[] = "POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        "Content-Length: 100000\r\n\r\n{\"items\":[{\"id\":1,";
    assert_true(write(fd, head, sizeof head - 1) > 0);
    close(fd);
  }
  resp r;
  http(g.port, "/healthz", NULL, NULL, &r);
  assert_int_equal(r.status, 200);
  assert_string_equal(r.body, "{\"ok\":true}");
  free(r.body);
}

/* 1,000 requests at once on loopback (cached and codeless items): every one answered. */
static void test_burst_of_concurrent_requests_all_answered(void **state) {
  (void)state;
  enum { N = 1000 };
  struct rlimit nf;  /* a socket each, beside this process's own files */
  getrlimit(RLIMIT_NOFILE, &nf);
  if (nf.rlim_cur < 2 * N + 64 && nf.rlim_max > nf.rlim_cur) {
    nf.rlim_cur = nf.rlim_max < 4 * N ? nf.rlim_max : 4 * N;
    setrlimit(RLIMIT_NOFILE, &nf);
  }
  if (nf.rlim_cur < N + 64) skip();  /* the machine's own limit; said by cmocka as skipped */
  const char *legit[] = {file_text("tests/legit/host/19_ReLU.c")};
  const char *none[] = {"no code here"};
  char *cached = items_body(1, "code", legit, false), *codeless = items_body(1, "completion", none, false);
  resp warm;
  http(g.port, "/v1/score", cached, NULL, &warm);  /* evaluated once, if not yet */
  assert_int_equal(warm.status, 200);
  free(warm.body);
  CURLM *m = curl_multi_init();
  curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
  static resp rs[N];
  CURL *cs[N];
  struct curl_slist *hs[N];
  for (int i = 0; i < N; i++) {
    memset(&rs[i], 0, sizeof rs[i]);
    const char *b = i % 2 ? cached : codeless;
    cs[i] = easy(g.port, "/v1/score", b, strlen(b), NULL, &rs[i], &hs[i]);
    curl_easy_setopt(cs[i], CURLOPT_FORBID_REUSE, 1L);
    curl_multi_add_handle(m, cs[i]);
  }
  double t0 = cl1_now_test();
  int running = 1;
  while (running && cl1_now_test() - t0 < 300) {
    curl_multi_perform(m, &running);
    curl_multi_poll(m, NULL, 0, 100, NULL);
  }
  int ok = 0;
  for (int i = 0; i < N; i++) {
    long st = 0;
    curl_easy_getinfo(cs[i], CURLINFO_RESPONSE_CODE, &st);
    ok += st == 200 && rs[i].body && strstr(rs[i].body, "\"results\"");
    curl_multi_remove_handle(m, cs[i]);
    curl_easy_cleanup(cs[i]);
    curl_slist_free_all(hs[i]);
    free(rs[i].body);
  }
  curl_multi_cleanup(m);
  free(cached), free(codeless);
  assert_int_equal(ok, N);
  resp r;
  http(g.port, "/healthz", NULL, NULL, &r);
  assert_int_equal(r.status, 200);
  free(r.body);
}

/* OpenRLHF's protocol: the response is the query less its prompt; numbers only. */
static void test_openrlhf_reward_answers_rewards_scores_and_logs(void **state) {
  (void)state;
  cJSON *d = cJSON_CreateObject();
  cJSON *q = cJSON_AddArrayToObject(d, "query"), *p = cJSON_AddArrayToObject(d, "prompts");
  cJSON *l = cJSON_AddArrayToObject(d, "labels");
  char query[9000];
  snprintf(query, sizeof query, "PROMPT```c\n%s```\n", file_text("tests/legit/host/19_ReLU.c"));
  cJSON_AddItemToArray(q, cJSON_CreateString(query));
  cJSON_AddItemToArray(q, cJSON_CreateString("PROMPT and no code"));
  for (int i = 0; i < 2; i++) {
    cJSON_AddItemToArray(p, cJSON_CreateString("PROMPT"));
    cJSON_AddItemToArray(l, cJSON_CreateString(TASK));
  }
  char *body = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  resp r;
  http(g.port, "/openrlhf/reward", body, NULL, &r);
  free(body);
  assert_int_equal(r.status, 200);
  d = cJSON_Parse(r.body);
  const cJSON *rw = cJSON_GetObjectItem(d, "rewards"), *sc = cJSON_GetObjectItem(d, "scores");
  const cJSON *ex = cJSON_GetObjectItem(d, "extra_logs");
  assert_int_equal(cJSON_GetArraySize(rw), 2);
  assert_true(cJSON_GetArrayItem(sc, 0)->valuedouble >= 0.5);
  assert_true(cJSON_GetArrayItem(rw, 1)->valuedouble == -2.0);
  assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(ex, "correct"), 0)->valuedouble == 1);
  assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(ex, "correct"), 1)->valuedouble == 0);
  cJSON_Delete(d);
  free(r.body);
  http(g.port, "/openrlhf/reward", "{\"query\":[\"a\"],\"labels\":[]}", NULL, &r);
  assert_int_equal(r.status, 400);
  assert_non_null(strstr(r.body, "labels: empty"));
  free(r.body);
}

/* ---- auth and bind ------------------------------------------------------------------------------ */

static void test_token_is_required_when_set(void **state) {
  (void)state;
  svc s;
  const char *extra[] = {"--token", "s3cret", NULL};
  svc_fresh(&s, extra);
  resp r;
  http(s.port, "/v1/stats", NULL, NULL, &r);
  assert_int_equal(r.status, 401);
  free(r.body);
  http(s.port, "/v1/score", "{}", "wrong", &r);
  assert_int_equal(r.status, 401);
  assert_non_null(strstr(r.body, "wrong bearer token"));
  free(r.body);
  http(s.port, "/v1/stats", NULL, "s3cret", &r);
  assert_int_equal(r.status, 200);
  free(r.body);
  http(s.port, "/healthz", NULL, NULL, &r);
  assert_int_equal(r.status, 200);
  free(r.body);
  assert_int_equal(svc_stop(&s), 0);
  svc_rm(&s);
}

static void test_network_bind_without_token_exits_2(void **state) {
  (void)state;
  char cmd[512], out[2048];
  snprintf(cmd, sizeof cmd, "env -u CUDAL1_SERVE_TOKEN %s/cudal1 serve --bind 0.0.0.0 --port 0 "
           "--db /nonexistent/db 2>&1", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--token"));
  snprintf(cmd, sizeof cmd, "%s/cudal1 serve --max-items 10 --max-queue 5 2>&1", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--max-items"));
  /* the GPU options: on the host, and wrong lists (checked before any GPU is looked for) */
  snprintf(cmd, sizeof cmd, "%s/cudal1 serve --device host --gpus 0 2>&1", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--device cuda"));
  const char *bad[][2] = {{"0,0", "GPU 0 twice"}, {"1,x", "'x' is not a GPU index"},
                          {"64", "'64' is not a GPU index"}, {"", "'' is not a GPU index"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    snprintf(cmd, sizeof cmd, "%s/cudal1 serve --device cuda --gpus '%s' 2>&1", th_build(),
             bad[i][0]);
    assert_int_equal(th_run(cmd, out, sizeof out), 2);
    assert_non_null(strstr(out, bad[i][1]));
  }
  snprintf(cmd, sizeof cmd, "%s/cudal1 serve --device cuda --workers 2 2>&1", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--overlap"));
  const char *waits[] = {"-1", "61", "soon"};  /* --spare-wait: seconds, 0 to 60 */
  for (size_t i = 0; i < sizeof waits / sizeof *waits; i++) {
    snprintf(cmd, sizeof cmd, "%s/cudal1 serve --spare-wait '%s' 2>&1", th_build(), waits[i]);
    assert_int_equal(th_run(cmd, out, sizeof out), 2);
    assert_non_null(strstr(out, "--spare-wait"));
  }
}

/* ---- kill -9, restart, drain ---------------------------------------------------------------- */

typedef struct {
  int port;
  const char *body;
  resp r;
} post_job;

static void *post_thread(void *arg) {
  post_job *j = arg;
  http(j->port, "/v1/score", j->body, NULL, &j->r);
  return NULL;
}

/* n distinct correct sources (a comment tells them apart). */
static char *distinct_batch(int n, const char *tag, char texts[][8192]) {
  const char *ptr[8];
  for (int i = 0; i < n; i++) {
    snprintf(texts[i], 8192, "%s\n/* %s %d */\n", file_text("tests/legit/host/19_ReLU.c"), tag, i);
    ptr[i] = texts[i];
  }
  return items_body(n, "code", ptr, false);
}

/* Entries of $TMPDIR (or /tmp) whose names start with prefix. */
static int tmp_entries(const char *prefix) {
  const char *tmp = getenv("TMPDIR");
  DIR *d = opendir(tmp && *tmp ? tmp : "/tmp");
  assert_non_null(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) n += !strncmp(e->d_name, prefix, strlen(prefix));
  closedir(d);
  return n;
}

static void test_kill_9_mid_batch_then_restart_answers_from_the_store(void **state) {
  (void)state;
  enum { N = 4 };
  static char texts[N][8192];
  svc s;
  svc_fresh(&s, NULL);
  char *body = distinct_batch(N, "kill", texts);
  post_job j = {.port = s.port, .body = body};
  pthread_t t;
  pthread_create(&t, NULL, post_thread, &j);
  double done = 0, t0 = cl1_now_test();
  while ((done = stat_of(s.port, "evaluations")) < 1 && cl1_now_test() - t0 < 60) usleep(20000);
  kill(s.pid, SIGKILL);
  waitpid(s.pid, NULL, 0);
  pthread_join(t, NULL);
  free(j.r.body);
  assert_true(done >= 1);
  char left[64];
  snprintf(left, sizeof left, "cudal1-serve.%d.", (int)s.pid);
  assert_int_equal(tmp_entries(left), 1);  /* the killed service's items' folder */
  svc_start(&s, NULL);  /* the same store */
  assert_int_equal(tmp_entries(left), 0);  /* swept by the next service */
  resp r;
  http(s.port, "/v1/score", body, NULL, &r);
  cJSON *doc;
  int cached = 0;
  for (int i = 0; i < N; i++) {
    const cJSON *x = result(&r, &doc, i);
    assert_string_equal(str(x, "verdict"), "pass");
    cached += cJSON_IsTrue(cJSON_GetObjectItem(x, "cached"));
    cJSON_Delete(doc);
  }
  assert_true(cached >= (int)done);
  free(r.body);
  free(body);
  assert_int_equal(svc_stop(&s), 0);
  svc_rm(&s);
}

static void test_sigterm_drains_in_flight_items_and_exits_0(void **state) {
  (void)state;
  enum { N = 3 };
  static char texts[N][8192];
  svc s;
  svc_fresh(&s, NULL);
  char *body = distinct_batch(N, "drain", texts);
  post_job j = {.port = s.port, .body = body};
  pthread_t t;
  pthread_create(&t, NULL, post_thread, &j);
  double t0 = cl1_now_test();
  while (stat_of(s.port, "items") < N && cl1_now_test() - t0 < 60) usleep(10000);
  assert_int_equal(svc_stop(&s), 0);
  pthread_join(t, NULL);
  cJSON *doc;
  for (int i = 0; i < N; i++) {
    const cJSON *x = result(&j.r, &doc, i);
    assert_string_equal(str(x, "status"), "ok");
    assert_string_equal(str(x, "verdict"), "pass");
    cJSON_Delete(doc);
  }
  free(j.r.body);
  free(body);
  svc_rm(&s);
}

/* ---- identical items, many tasks -------------------------------------------------------------- */

/* Three copies of one new code in one request, and a fresh one: the copies share one evaluation
 * (the followers answered from the store as a retry would be), the fresh one runs its own. */
static void test_identical_items_in_flight_share_one_evaluation(void **state) {
  (void)state;
  svc s;
  svc_fresh(&s, NULL);
  static char text[8192];
  snprintf(text, sizeof text, "%s/* identical */\n", file_text("tests/legit/host/19_ReLU.c"));
  const char *texts[] = {text, text, text};
  char *body = items_body(3, "code", texts, false);
  resp r;
  http(s.port, "/v1/score", body, NULL, &r);
  cJSON *doc;
  int cached = 0;
  double speedup = -1;
  for (int i = 0; i < 3; i++) {
    const cJSON *x = result(&r, &doc, i);
    assert_string_equal(str(x, "verdict"), "pass");
    cached += cJSON_IsTrue(cJSON_GetObjectItem(x, "cached"));
    if (speedup < 0) speedup = num(x, "speedup");
    assert_true(num(x, "speedup") == speedup);  /* one measurement, three answers */
    cJSON_Delete(doc);
  }
  free(r.body);
  assert_int_equal(cached, 2);
  assert_int_equal(stat_of(s.port, "evaluations"), 1);
  assert_int_equal(stat_of(s.port, "followed"), 2);
  char *fresh = items_body(1, "code", texts, true);
  http(s.port, "/v1/score", fresh, NULL, &r);
  assert_int_equal(r.status, 200);
  free(r.body);
  assert_int_equal(stat_of(s.port, "evaluations"), 2);
  free(body), free(fresh);
  assert_int_equal(svc_stop(&s), 0);
  svc_rm(&s);
}

/* One request naming 100 tasks: the service's task table grows past its first 64 while the
 * first item (the ReLU, named first) waits, and that item is still evaluated against its task.
 * (The table once held the tasks themselves and moved them as it grew, under the items.) */
static void test_a_request_over_many_tasks_keeps_each_items_task(void **state) {
  (void)state;
  DIR *d = opendir("suite/level1");
  assert_non_null(d);
  cJSON *doc = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(doc, "items");
  cJSON *first = cJSON_CreateObject();
  cJSON_AddStringToObject(first, "id", "relu");
  cJSON_AddStringToObject(first, "task", TASK);
  cJSON_AddStringToObject(first, "code", file_text("tests/legit/host/19_ReLU.c"));
  cJSON_AddItemToArray(a, first);
  struct dirent *e;
  int n = 1;
  while ((e = readdir(d)) && n < 100) {
    if (e->d_name[0] == '.' || !strcmp(e->d_name, "19_ReLU")) continue;
    char task[300];
    snprintf(task, sizeof task, "level1/%s", e->d_name);
    cJSON *it = cJSON_CreateObject();
    cJSON_AddNumberToObject(it, "id", n++);
    cJSON_AddStringToObject(it, "task", task);
    cJSON_AddStringToObject(it, "completion", "no code in this reply");
    cJSON_AddItemToArray(a, it);
  }
  closedir(d);
  assert_int_equal(n, 100);
  char *body = cJSON_PrintUnformatted(doc);
  cJSON_Delete(doc);
  resp r;
  http(g.port, "/v1/score", body, NULL, &r);
  const cJSON *x = result(&r, &doc, 0);
  assert_string_equal(str(x, "status"), "ok");
  assert_string_equal(str(x, "verdict"), "pass");
  cJSON_Delete(doc);
  x = result(&r, &doc, 99);
  assert_string_equal(str(x, "verdict"), "no_code");
  cJSON_Delete(doc);
  free(r.body);
  free(body);
}

/* ---- a busy service: the queue bound, deadlines, idle connections ----------------------------- */

/* A correct ReLU that spends a long while in every call (the candidate's own loop, so it is slow
 * on any machine: each of its calls takes at least 10^9 dependent volatile stores), so the items
 * behind it stay queued for as long as the test needs. */
static const char k_slow_relu[] =
    "#include <cudal1/solution.h>\n"
    "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
    "  volatile long spin = 0;\n"
    "  for (long i = 0; i < 1000000000L; i++) spin = spin + 1;\n"
    "  const float *x = c->inputs[0].data;\n"
    "  float *y = c->outputs[0].data;\n"
    "  int64_t n = 1;\n"
    "  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];\n"
    "  for (int64_t i = 0; i < n; i++) y[i] = x[i] < 0.f ? 0.f : x[i];\n"
    "  return 0;\n"
    "}\n";

/* n distinct slow sources. */
static char *slow_batch(int n, const char *tag, char texts[][8192]) {
  const char *ptr[8];
  for (int i = 0; i < n; i++) {
    snprintf(texts[i], 8192, "%s/* %s %d */\n", k_slow_relu, tag, i);
    ptr[i] = texts[i];
  }
  return items_body(n, "code", ptr, false);
}

/* One evaluation thread busy with a slow item and two more queued behind it: a request that would
 * pass --max-queue is 503 with Retry-After (nothing of it queued); a request with deadline_s gets
 * its items back as infra_error once the deadline passes, never waiting for the slow one. */
static void test_full_queue_is_503_and_deadline_answers_infra_error(void **state) {
  (void)state;
  static char slow[3][8192], quick[4][8192];
  svc s;
  const char *extra[] = {"--max-queue", "4", "--max-items", "4", NULL};
  svc_fresh(&s, extra);
  char *body = slow_batch(3, "slow", slow);
  post_job j = {.port = s.port, .body = body};
  pthread_t t;
  pthread_create(&t, NULL, post_thread, &j);
  double t0 = cl1_now_test();
  while (stat_of(s.port, "in_flight") < 1 && cl1_now_test() - t0 < 120) usleep(20000);
  assert_int_equal(stat_of(s.port, "in_flight"), 1);
  assert_int_equal(stat_of(s.port, "queue"), 2);
  /* 2 queued + 3 more > 4 */
  char *three = distinct_batch(3, "over", quick);
  resp r;
  http(s.port, "/v1/score", three, NULL, &r);
  assert_int_equal(r.status, 503);
  assert_true(atoi(r.retry_after) >= 1);
  free(r.body);
  assert_int_equal(stat_of(s.port, "rejected"), 1);
  assert_int_equal(stat_of(s.port, "queue"), 2);  /* nothing of it was queued */
  /* 2 queued + 2 fit; they wait behind the slow ones and the deadline answers them */
  char *two = distinct_batch(2, "deadline", quick);
  size_t len = strlen(two);
  char *with_deadline = malloc(len + 32);
  snprintf(with_deadline, len + 32, "%.*s,\"deadline_s\":0.5}", (int)(len - 1), two);
  http(s.port, "/v1/score", with_deadline, NULL, &r);
  assert_int_equal(r.status, 200);
  cJSON *doc;
  for (int i = 0; i < 2; i++) {
    const cJSON *x = result(&r, &doc, i);
    assert_string_equal(str(x, "status"), "infra_error");
    assert_non_null(strstr(str(x, "feedback"), "deadline_s"));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(x, "reward")));
    cJSON_Delete(doc);
  }
  free(r.body);
  kill(s.pid, SIGKILL);  /* the slow items are not this test's business */
  waitpid(s.pid, NULL, 0);
  pthread_join(t, NULL);
  free(j.r.body);
  free(body), free(three), free(two), free(with_deadline);
  svc_rm(&s);
}

/* ---- jobs: submit and poll ------------------------------------------------------------------- */

/* POST /v1/jobs: the 202 answer's job id (32 hex digits), into id. */
static void job_submit(int port, const char *body, char id[40]) {
  resp r;
  http(port, "/v1/jobs", body, NULL, &r);
  if (r.status != 202) fail_msg("POST /v1/jobs: %ld %s", r.status, r.body ? r.body : "");
  cJSON *d = cJSON_Parse(r.body);
  const char *j = str(d, "job");
  assert_int_equal(strlen(j), 32);
  assert_int_equal(strspn(j, "0123456789abcdef"), 32);
  snprintf(id, 40, "%s", j);
  const char *st = str(d, "status");
  assert_true(!strcmp(st, "running") || !strcmp(st, "done"));
  cJSON_Delete(d);
  free(r.body);
}

/* GET /v1/jobs/{id} until it says done (120 s at most): the document (to delete). */
static cJSON *job_wait(int port, const char *id) {
  char path[80];
  snprintf(path, sizeof path, "/v1/jobs/%s", id);
  double t0 = cl1_now_test();
  for (;;) {
    resp r;
    http(port, path, NULL, NULL, &r);
    assert_int_equal(r.status, 200);
    cJSON *d = cJSON_Parse(r.body);
    free(r.body);
    assert_string_equal(str(d, "job"), id);
    assert_true(num(d, "done") >= 0 && num(d, "done") <= num(d, "items"));
    if (!strcmp(str(d, "status"), "done")) return d;
    assert_null(cJSON_GetObjectItem(d, "results"));  /* results come whole, once done */
    cJSON_Delete(d);
    if (cl1_now_test() - t0 > 120) fail_msg("job %s not done after 120 s", id);
    usleep(50000);
  }
}

static long job_status(int port, const char *id, char **body) {
  char path[80];
  snprintf(path, sizeof path, "/v1/jobs/%s", id);
  resp r;
  http(port, path, NULL, NULL, &r);
  if (body) *body = r.body;
  else free(r.body);
  return r.status;
}

/* A job's answers are /v1/score's for the same items, in order with the caller's ids; a poll after
 * it finished answers the same again; the same items scored afterwards come from the store. */
static void test_job_submitted_then_polled_gives_the_score_answers(void **state) {
  (void)state;
  char code[8192];
  snprintf(code, sizeof code, "%s\n/* job test */\n", file_text("tests/legit/host/19_ReLU.c"));
  const char *texts[] = {code, file_text("tests/hacks/host/wrong_values.c")};
  char *body = items_body(2, "code", texts, false);
  double submitted0 = 0;
  {
    resp r;
    http(g.port, "/v1/stats", NULL, NULL, &r);
    cJSON *d = cJSON_Parse(r.body);
    submitted0 = num(cJSON_GetObjectItem(d, "jobs"), "submitted");
    cJSON_Delete(d);
    free(r.body);
  }
  char id[40];
  job_submit(g.port, body, id);
  cJSON *d = job_wait(g.port, id);
  assert_int_equal(num(d, "items"), 2);
  assert_int_equal(num(d, "done"), 2);
  const cJSON *res = cJSON_GetObjectItem(d, "results");
  assert_int_equal(cJSON_GetArraySize(res), 2);
  const cJSON *ok = cJSON_GetArrayItem(res, 0), *bad = cJSON_GetArrayItem(res, 1);
  assert_int_equal(num(ok, "id"), 0);
  assert_int_equal(num(bad, "id"), 1);
  assert_string_equal(str(ok, "verdict"), "pass");
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(ok, "cached")));
  assert_string_equal(str(bad, "verdict"), "incorrect");
  assert_true(num(bad, "reward") == -2.0);
  /* polled again: the same answers */
  char *again;
  assert_int_equal(job_status(g.port, id, &again), 200);
  cJSON *d2 = cJSON_Parse(again);
  assert_true(num(cJSON_GetArrayItem(cJSON_GetObjectItem(d2, "results"), 0), "speedup") ==
              num(ok, "speedup"));
  cJSON_Delete(d2);
  free(again);
  /* the same items through /v1/score: the store's answers */
  resp r;
  http(g.port, "/v1/score", body, NULL, &r);
  cJSON *sd;
  const cJSON *s0 = result(&r, &sd, 0);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(s0, "cached")));
  assert_true(num(s0, "speedup") == num(ok, "speedup") && num(s0, "reward") == num(ok, "reward"));
  cJSON_Delete(sd);
  free(r.body);
  cJSON_Delete(d);
  http(g.port, "/v1/stats", NULL, NULL, &r);
  cJSON *st = cJSON_Parse(r.body);
  assert_true(num(cJSON_GetObjectItem(st, "jobs"), "submitted") == submitted0 + 1);
  cJSON_Delete(st);
  free(r.body);
  free(body);
}

/* Unknown ids are 404 saying what is kept; the wrong method is 405; a malformed job is a 400
 * naming the field, as for /v1/score. */
static void test_job_errors_name_their_cause(void **state) {
  (void)state;
  char *body;
  assert_int_equal(job_status(g.port, "0123456789abcdef0123456789abcdef", &body), 404);
  assert_non_null(strstr(body, "--job-ttl"));
  free(body);
  assert_int_equal(job_status(g.port, "../../etc/passwd", NULL), 404);
  resp r;
  http(g.port, "/v1/jobs/abc", "{}", NULL, &r);  /* POST to a job's URL */
  assert_int_equal(r.status, 405);
  free(r.body);
  http(g.port, "/v1/jobs", NULL, NULL, &r);  /* GET of the submit URL */
  assert_int_equal(r.status, 405);
  free(r.body);
  http(g.port, "/v1/jobs", "{\"items\":[{\"id\":1,\"task\":\"level1/19_ReLU\"}]}", NULL, &r);
  assert_int_equal(r.status, 400);
  assert_non_null(strstr(r.body, "items[0].completion"));
  free(r.body);
  http(g.port, "/v1/jobs", "{\"items\":[]", NULL, &r);
  assert_int_equal(r.status, 400);
  free(r.body);
}

/* --max-jobs: a finished job makes room for a new one (the oldest finished goes), a running one
 * does not (503 + Retry-After); --job-ttl: a finished job is forgotten after it. */
static void test_jobs_are_bounded_and_expire(void **state) {
  (void)state;
  static char quick[2][8192], slow[1][8192];
  svc s;
  const char *extra[] = {"--max-jobs", "1", "--job-ttl", "1", NULL};
  svc_fresh(&s, extra);
  char a[40], b[40], c[40];
  char *qa = distinct_batch(1, "jobA", quick), *qb = distinct_batch(1, "jobB", quick + 1);
  job_submit(s.port, qa, a);
  cJSON_Delete(job_wait(s.port, a));
  job_submit(s.port, qb, b);  /* A was finished: it made room */
  assert_int_equal(job_status(s.port, a, NULL), 404);
  cJSON_Delete(job_wait(s.port, b));
  usleep(2500000);            /* past --job-ttl 1 */
  assert_int_equal(job_status(s.port, b, NULL), 404);
  char *sl = slow_batch(1, "jobslow", slow);
  job_submit(s.port, sl, c);
  resp r;
  http(s.port, "/v1/jobs", qa, NULL, &r);  /* C runs: no room */
  assert_int_equal(r.status, 503);
  assert_non_null(strstr(r.body, "--max-jobs"));
  assert_true(atoi(r.retry_after) >= 1);
  free(r.body);
  char *cb;
  assert_int_equal(job_status(s.port, c, &cb), 200);
  assert_non_null(strstr(cb, "\"running\""));
  free(cb);
  kill(s.pid, SIGKILL);  /* the slow item is not this test's business */
  waitpid(s.pid, NULL, 0);
  free(qa), free(qb), free(sl);
  svc_rm(&s);
}

/* SIGTERM with a job running: the drain finishes its items (exit 0), and a restarted service
 * answers them from the store. */
static void test_sigterm_finishes_running_jobs_into_the_store(void **state) {
  (void)state;
  enum { N = 2 };
  static char texts[N][8192];
  svc s;
  svc_fresh(&s, NULL);
  char *body = distinct_batch(N, "jobdrain", texts), id[40];
  job_submit(s.port, body, id);
  assert_int_equal(svc_stop(&s), 0);
  svc_start(&s, NULL);
  assert_int_equal(job_status(s.port, id, NULL), 404);  /* jobs live in memory */
  resp r;
  http(s.port, "/v1/score", body, NULL, &r);
  cJSON *doc;
  for (int i = 0; i < N; i++) {
    const cJSON *x = result(&r, &doc, i);
    assert_string_equal(str(x, "verdict"), "pass");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(x, "cached")));
    cJSON_Delete(doc);
  }
  free(r.body);
  free(body);
  assert_int_equal(svc_stop(&s), 0);
  svc_rm(&s);
}

/* ---- reference workers kept between evaluations --------------------------------------------- */

/* A count of /v1/stats's group ("reference_workers", "spare_workers"). */
static double worker_stat(int port, const char *group, const char *key) {
  resp r;
  http(port, "/v1/stats", NULL, NULL, &r);
  assert_int_equal(r.status, 200);
  cJSON *d = cJSON_Parse(r.body);
  double v = num(cJSON_GetObjectItem(d, group), key);
  cJSON_Delete(d);
  free(r.body);
  return v;
}

static double ref_workers(int port, const char *key) {
  return worker_stat(port, "reference_workers", key);
}

/* Four candidates of one task, one after another: one reference worker serves all four (each
 * evaluation still correct: a wrong one is caught after a pooled reference); --fresh-references
 * starts one per evaluation. The third crashes in its first check, while the reference computes
 * the same inputs beside it: the judge still reads the reference's reply, so the worker goes back
 * to the pool in step and serves the fourth (a reference owing a reply is let go). */
static void test_a_tasks_reference_worker_serves_its_next_evaluations(void **state) {
  (void)state;
  static char texts[2][8192];
  for (int fresh = 0; fresh < 2; fresh++) {
    svc s;
    const char *extra[] = {"--fresh-references", NULL};
    svc_fresh(&s, fresh ? extra : NULL);
    char *a = distinct_batch(1, fresh ? "poolA1" : "poolA0", texts);
    char *b = distinct_batch(1, fresh ? "poolB1" : "poolB0", texts + 1);
    const char *wrong[] = {file_text("tests/hacks/host/wrong_values.c")};
    const char *segv[] = {file_text("tests/hacks/host/segfault.c")};
    char *w = items_body(1, "code", wrong, false), *c = items_body(1, "code", segv, false);
    const char *bodies[4] = {a, w, c, b}, *want[4] = {"pass", "incorrect", "crash", "pass"};
    for (int i = 0; i < 4; i++) {
      resp r;
      http(s.port, "/v1/score", bodies[i], NULL, &r);
      cJSON *doc;
      assert_string_equal(str(result(&r, &doc, 0), "verdict"), want[i]);
      cJSON_Delete(doc);
      free(r.body);
    }
    assert_int_equal(ref_workers(s.port, "started"), fresh ? 0 : 1);
    assert_int_equal(ref_workers(s.port, "reused"), fresh ? 0 : 3);
    assert_int_equal(svc_stop(&s), 0);
    svc_rm(&s);
    free(a), free(b), free(w), free(c);
  }
}

static double spare_workers(int port, const char *key) {
  return worker_stat(port, "spare_workers", key);
}

/* The service names the kind of worker C-ABI evaluations take when it starts: its spares are
 * started before any request, and the first evaluation takes one (before, the first evaluation
 * named the kind, so a batch posted to a fresh service found none ready). */
static void test_spares_are_ready_before_the_first_request(void **state) {
  (void)state;
  static char texts[1][8192];
  svc s;
  const char *extra[] = {"--spare-workers", "2", "--spare-fillers", "3", "--spare-wait", "5", NULL};
  svc_fresh(&s, extra);
  for (int i = 0; i < 3000 && spare_workers(s.port, "started") < 2; i++) usleep(10000);
  assert_int_equal(spare_workers(s.port, "started"), 2);
  assert_int_equal(spare_workers(s.port, "used"), 0);
  assert_int_equal(spare_workers(s.port, "fillers"), 3);  /* --spare-fillers reached spare.c */
  assert_true(spare_workers(s.port, "wait_s") == 5);      /* and --spare-wait */
  char *a = distinct_batch(1, "spare0", texts);
  resp r;
  http(s.port, "/v1/score", a, NULL, &r);
  cJSON *doc;
  assert_string_equal(str(result(&r, &doc, 0), "verdict"), "pass");
  cJSON_Delete(doc);
  free(r.body);
  assert_int_equal(spare_workers(s.port, "used"), 2);  /* the reference (none pooled) and the candidate */
  assert_int_equal(svc_stop(&s), 0);
  /* the store's evaluation says where its workers came from */
  sqlite3 *db;
  sqlite3_stmt *q;
  assert_int_equal(sqlite3_open_v2(s.db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT result_json FROM evaluations", -1, &q, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  cJSON *ev = cJSON_Parse((const char *)sqlite3_column_text(q, 0));
  const cJSON *w = cJSON_GetObjectItemCaseSensitive(ev, "workers");
  assert_string_equal(str(w, "ref"), "spare");
  assert_string_equal(str(w, "cand"), "spare");
  cJSON_Delete(ev);
  sqlite3_finalize(q);
  sqlite3_close(db);
  svc_rm(&s);
  free(a);
}

/* Every host case of the hack corpus (tests/hacks/manifest.txt) through the service, two
 * evaluations at a time with reference workers kept between them: each gets the verdict the
 * manifest expects from `cudal1 eval`, and references were reused along the way. */
static void test_the_hack_corpus_through_pooled_references_keeps_its_verdicts(void **state) {
  (void)state;
  th_case *cs;
  int n = th_manifest("tests/hacks/manifest.txt", "host", "test", &cs);
  assert_true(n > 10);
  svc s;
  const char *extra[] = {"--workers", "2", "--max-items", "256", NULL};
  svc_fresh(&s, extra);
  char bad[4096] = "";
  svc_post_manifest(s.port, "tests/hacks/manifest.txt", "host", "test", bad, sizeof bad);
  double reused = ref_workers(s.port, "reused");
  assert_int_equal(svc_stop(&s), 0);
  svc_rm(&s);
  free(cs);
  if (bad[0]) fail_msg("verdicts differ from the manifest's:%s", bad);
  assert_true(reused >= 1);
}

/* A client that connects and says nothing is disconnected after --idle-timeout; the service goes
 * on serving. */
static void test_idle_connection_is_closed_after_the_timeout(void **state) {
  (void)state;
  svc s;
  const char *extra[] = {"--idle-timeout", "1", NULL};
  svc_fresh(&s, extra);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s.port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_true(write(fd, "POST /v1/score HTTP/1.1\r\n", 26) == 26);  /* and then nothing */
  struct pollfd p = {.fd = fd, .events = POLLIN};
  char c;
  int closed = 0;
  double t0 = cl1_now_test();
  while (!closed && cl1_now_test() - t0 < 60)
    if (poll(&p, 1, 1000) == 1) closed = read(fd, &c, 1) <= 0 || closed;
  close(fd);
  assert_true(closed);
  resp r;
  http(s.port, "/healthz", NULL, NULL, &r);
  assert_int_equal(r.status, 200);
  free(r.body);
  assert_int_equal(svc_stop(&s), 0);
  svc_rm(&s);
}

/* ---- prompts ---------------------------------------------------------------------------------- */

/* POST /v1/prompts: the optimizer's prompt, with a passing solution the service scored shown as
 * an exemplar, n per task, stable ids; bad requests are 400s naming the field. */
static void test_prompts_show_the_stores_passing_solutions(void **state) {
  (void)state;
  const char *texts[] = {file_text("tests/legit/host/19_ReLU.c")};
  char *body = items_body(1, "code", texts, false);
  resp r;
  http(g.port, "/v1/score", body, NULL, &r);  /* a pass in the store (or already there) */
  free(body);
  free(r.body);
  const char *req = "{\"tasks\":[\"level1/19_ReLU\"],\"n\":2,\"exemplars\":2,\"seed\":7}";
  http(g.port, "/v1/prompts", req, NULL, &r);
  assert_int_equal(r.status, 200);
  cJSON *doc = cJSON_Parse(r.body);
  const cJSON *rows = cJSON_GetObjectItem(doc, "prompts");
  assert_int_equal(cJSON_GetArraySize(rows), 2);
  const cJSON *p0 = cJSON_GetArrayItem(rows, 0);
  assert_string_equal(str(p0, "task"), "level1/19_ReLU");
  assert_int_equal(strlen(str(p0, "prompt_id")), 16);
  const cJSON *msgs = cJSON_GetObjectItem(p0, "messages");
  assert_string_equal(str(cJSON_GetArrayItem(msgs, 0), "role"), "system");
  const char *user = str(cJSON_GetArrayItem(msgs, 1), "content");
  assert_non_null(strstr(user, "x the reference"));  /* an exemplar with its speedup */
  assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(p0, "exemplar_ids")) >= 1);
  char first_id[17];
  snprintf(first_id, sizeof first_id, "%s", str(p0, "prompt_id"));
  cJSON_Delete(doc);
  free(r.body);
  http(g.port, "/v1/prompts", req, NULL, &r);  /* the same request: the same prompts */
  doc = cJSON_Parse(r.body);
  assert_string_equal(str(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "prompts"), 0), "prompt_id"),
                      first_id);
  cJSON_Delete(doc);
  free(r.body);
  const char *bad[][2] = {{"{\"n\":2}", "tasks: missing"},
                          {"{\"tasks\":[]}", "tasks: empty"},
                          {"{\"tasks\":[\"level1/19_ReLU\"],\"n\":0}", "n: expected"},
                          {"{\"tasks\":[\"level1/19_ReLU\"],\"tau\":-1}", "tau: expected"},
                          {"{\"tasks\":[\"nope\"]}", "tasks[0]: unknown task 'nope'"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    http(g.port, "/v1/prompts", bad[i][0], NULL, &r);
    assert_int_equal(r.status, 400);
    if (!strstr(r.body, bad[i][1])) fail_msg("%s: %s", bad[i][0], r.body);
    free(r.body);
  }
}

/* ---- the kernelbench format ------------------------------------------------------------------- */

/* An item of TASK with key: text and, when fmt is not NULL, "format": fmt. */
static cJSON *kb_item(int id, const char *key, const char *text, const char *fmt) {
  cJSON *it = cJSON_CreateObject();
  cJSON_AddNumberToObject(it, "id", id);
  cJSON_AddStringToObject(it, "task", TASK);
  cJSON_AddStringToObject(it, key, text);
  if (fmt) cJSON_AddStringToObject(it, "format", fmt);
  return it;
}

/* Completions parsed for ModelNew, code written as .py and judged through the Python path: the
 * module passes, from a completion and as raw code; a C reply in this format is no code. */
static void test_kernelbench_items_are_parsed_for_modelnew_and_scored_as_py(void **state) {
  (void)state;
  static const char modelnew[] = "import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                                 "    def forward(self, x):\n        return torch.relu(x)\n";
  char kb_reply[1024], raw[1024], c_reply[9000];
  snprintf(kb_reply, sizeof kb_reply, "## Code Implementation\n```python\n%s```\n", modelnew);
  snprintf(raw, sizeof raw, "%s# raw code\n", modelnew);
  snprintf(c_reply, sizeof c_reply, "## Code Implementation\n```c\n%s```\n",
           file_text("tests/legit/host/19_ReLU.c"));
  cJSON *d = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(d, "items");
  cJSON_AddItemToArray(a, kb_item(0, "completion", c_reply, "kernelbench"));
  cJSON_AddItemToArray(a, kb_item(1, "completion", kb_reply, "kernelbench"));
  cJSON_AddItemToArray(a, kb_item(2, "code", raw, "kernelbench"));
  cJSON_AddItemToArray(a, kb_item(3, "completion", c_reply, "cabi"));
  /* a crash deep in its own calls: the feedback ends with the exception, not the traceback's
     head (a policy is shown the cause) */
  static const char deep[] = "import torch\nimport torch.nn as nn\n\n\ndef f(x, n):\n"
                             "    if n == 0:\n        raise ValueError('the cause, named: 4711')\n"
                             "    return f(x, n - 1)\n\n\nclass ModelNew(nn.Module):\n"
                             "    def forward(self, x):\n        return f(x, 12)\n";
  cJSON_AddItemToArray(a, kb_item(4, "code", deep, "kernelbench"));
  char *body = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  resp r;
  http(g.port, "/v1/score", body, NULL, &r);
  free(body);
  cJSON *doc;
  const cJSON *c_as_kb = result(&r, &doc, 0), *res = cJSON_GetObjectItem(doc, "results");
  assert_string_equal(str(c_as_kb, "verdict"), "no_code");
  assert_non_null(strstr(str(c_as_kb, "feedback"),
                         "the reply has no python code block defining class ModelNew"));
  for (int i = 1; i <= 2; i++) {
    const cJSON *x = cJSON_GetArrayItem(res, i);
    assert_string_equal(str(x, "status"), "ok");
    if (strcmp(str(x, "verdict"), "pass"))
      fail_msg("item %d: %s: %s", i, str(x, "verdict"), str(x, "feedback"));
  }
  /* the same C reply in the C ABI (the default format, named here) is code and passes */
  assert_string_equal(str(cJSON_GetArrayItem(res, 3), "verdict"), "pass");
  const cJSON *deep_r = cJSON_GetArrayItem(res, 4);
  assert_string_equal(str(deep_r, "verdict"), "crash");
  if (!strstr(str(deep_r, "feedback"), "ValueError: the cause, named: 4711"))
    fail_msg("feedback without the exception: %s", str(deep_r, "feedback"));
  cJSON_Delete(doc);
  free(r.body);
  expect_400("{\"items\":[{\"id\":1,\"task\":\"" TASK "\",\"code\":\"x\",\"format\":\"python\"}]}",
             "items[0].format: expected cabi or kernelbench");
  expect_400("{\"items\":[{\"id\":1,\"task\":\"" TASK "\",\"code\":\"x\"},{\"id\":2,\"task\":\""
             TASK "\",\"code\":\"x\",\"format\":1}]}",
             "items[1].format: expected");
  http(g.port, "/openrlhf/reward", "{\"query\":[\"a\"],\"labels\":[\"" TASK "\"],\"format\":\"x\"}",
       NULL, &r);
  assert_int_equal(r.status, 400);
  assert_non_null(strstr(r.body, "format: expected"));
  free(r.body);
}

/* Kernelbench prompts: ModelNew asked for, the PyTorch reference shown, and no C solution among
 * the exemplars though the store has passing ones (a C prompt of the same request shows them);
 * Python passes scored before may be shown. */
static void test_kernelbench_prompts_show_only_python_exemplars(void **state) {
  (void)state;
  const char *texts[] = {file_text("tests/legit/host/19_ReLU.c")};
  char *body = items_body(1, "code", texts, false);
  resp r;
  http(g.port, "/v1/score", body, NULL, &r);  /* a C pass in the store (or already there) */
  free(body);
  free(r.body);
  const char *reqs[2] = {"{\"tasks\":[\"" TASK "\"],\"exemplars\":2,\"format\":\"kernelbench\"}",
                         "{\"tasks\":[\"" TASK "\"],\"exemplars\":2,\"format\":\"cabi\"}"};
  for (int k = 0; k < 2; k++) {
    http(g.port, "/v1/prompts", reqs[k], NULL, &r);
    assert_int_equal(r.status, 200);
    cJSON *doc = cJSON_Parse(r.body);
    const cJSON *p0 = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "prompts"), 0);
    const char *user = str(cJSON_GetArrayItem(cJSON_GetObjectItem(p0, "messages"), 1), "content");
    int shown = cJSON_GetArraySize(cJSON_GetObjectItem(p0, "exemplar_ids"));
    if (k == 0) {
      assert_non_null(strstr(user, "class ModelNew"));
      assert_non_null(strstr(user, "```python\n\"\"\"twin.py"));
      assert_null(strstr(user, "cl1_forward"));  /* the C pass is never an exemplar here */
      (void)shown;
    } else {
      assert_non_null(strstr(user, "cl1_forward"));
      assert_true(shown >= 1);
    }
    cJSON_Delete(doc);
    free(r.body);
  }
  http(g.port, "/v1/prompts", "{\"tasks\":[\"" TASK "\"],\"format\":\"KernelBench\"}", NULL, &r);
  assert_int_equal(r.status, 400);
  assert_non_null(strstr(r.body, "format: expected cabi or kernelbench"));
  free(r.body);
}

/* --tasks-dir: an imported KernelBench task is named relative to it and judged; a path out of it
 * (absolute, .., or a symlink inside it pointing out) is unknown, and a folder whose task has a
 * suite task's id is refused (the store keeps tasks by id). */
static void test_tasks_dir_serves_imported_tasks_and_nothing_outside(void **state) {
  (void)state;
  char *root = th_tmpdir(), tasks[300], cmd[1200], out[2048], outside[300];
  snprintf(tasks, sizeof tasks, "%s/tasks", root);
  snprintf(cmd, sizeof cmd, "%s/cudal1 task import tests/python/problems/1_Linear_ReLU.py "
           "%s/lin 2>&1 && %s/cudal1 task import tests/python/problems/1_Linear_ReLU.py %s/relu "
           "--number 19 --name 19_ReLU 2>&1", th_build(), tasks, th_build(), tasks);
  if (th_run(cmd, out, sizeof out)) fail_msg("%s", out);
  snprintf(outside, sizeof outside, "%s/elsewhere", th_tmpdir());
  snprintf(cmd, sizeof cmd, "%s/cudal1 task import tests/python/problems/1_Linear_ReLU.py %s "
           "--name 7_out >/dev/null 2>&1 && ln -s %s %s/link", th_build(), outside, outside, tasks);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  const char *extra[] = {"--tasks-dir", tasks, NULL};
  svc s;
  svc_fresh(&s, extra);
  const char *code = file_text("tests/python/common/linear_ok.py");
  cJSON *d = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(d, "items");
  cJSON_AddItemToArray(a, kb_item(0, "code", code, "kernelbench"));
  cJSON_ReplaceItemInObject(cJSON_GetArrayItem(a, 0), "task", cJSON_CreateString("lin"));
  char *body = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  resp r;
  http(s.port, "/v1/score", body, NULL, &r);
  free(body);
  cJSON *doc;
  const cJSON *x = result(&r, &doc, 0);
  if (strcmp(str(x, "verdict"), "pass")) fail_msg("%s: %s", str(x, "verdict"), str(x, "feedback"));
  cJSON_Delete(doc);
  free(r.body);
  char abs_task[400], req[800];
  snprintf(abs_task, sizeof abs_task, "%s/lin", tasks);
  const char *bad[] = {abs_task, "../tasks/lin", "link", "relu"};
  const char *why[] = {"unknown task", "unknown task", "unknown task", "has the id level1/19_ReLU"};
  for (int i = 0; i < 4; i++) {
    snprintf(req, sizeof req, "{\"items\":[{\"id\":1,\"task\":\"%s\",\"code\":\"x\","
             "\"format\":\"kernelbench\"}]}", bad[i]);
    http(s.port, "/v1/score", req, NULL, &r);
    assert_int_equal(r.status, 400);
    if (!strstr(r.body, why[i])) fail_msg("%s: want '%s' in %s", bad[i], why[i], r.body);
    free(r.body);
  }
  assert_int_equal(svc_stop(&s), 0);
  svc_rm(&s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_correct_wrong_and_codeless_items_get_their_verdicts),
      cmocka_unit_test(test_same_item_is_cached_unless_fresh),
      cmocka_unit_test(test_a_repeated_pass_is_paid_against_the_statistics_of_now),
      cmocka_unit_test(test_a_requests_passes_are_paid_against_the_same_statistics),
      cmocka_unit_test(test_malformed_requests_are_400_naming_the_field),
      cmocka_unit_test(test_50mb_body_is_413_and_the_service_lives),
      cmocka_unit_test(test_10000_items_are_400_over_max_items),
      cmocka_unit_test(test_client_gone_mid_body_leaves_the_service_alive),
      cmocka_unit_test(test_burst_of_concurrent_requests_all_answered),
      cmocka_unit_test(test_openrlhf_reward_answers_rewards_scores_and_logs),
      cmocka_unit_test(test_prompts_show_the_stores_passing_solutions),
      cmocka_unit_test(test_kernelbench_items_are_parsed_for_modelnew_and_scored_as_py),
      cmocka_unit_test(test_kernelbench_prompts_show_only_python_exemplars),
      cmocka_unit_test(test_tasks_dir_serves_imported_tasks_and_nothing_outside),
      cmocka_unit_test(test_token_is_required_when_set),
      cmocka_unit_test(test_network_bind_without_token_exits_2),
      cmocka_unit_test(test_kill_9_mid_batch_then_restart_answers_from_the_store),
      cmocka_unit_test(test_sigterm_drains_in_flight_items_and_exits_0),
      cmocka_unit_test(test_identical_items_in_flight_share_one_evaluation),
      cmocka_unit_test(test_a_request_over_many_tasks_keeps_each_items_task),
      cmocka_unit_test(test_full_queue_is_503_and_deadline_answers_infra_error),
      cmocka_unit_test(test_idle_connection_is_closed_after_the_timeout),
      cmocka_unit_test(test_job_submitted_then_polled_gives_the_score_answers),
      cmocka_unit_test(test_job_errors_name_their_cause),
      cmocka_unit_test(test_jobs_are_bounded_and_expire),
      cmocka_unit_test(test_sigterm_finishes_running_jobs_into_the_store),
      cmocka_unit_test(test_a_tasks_reference_worker_serves_its_next_evaluations),
      cmocka_unit_test(test_spares_are_ready_before_the_first_request),
      cmocka_unit_test(test_the_hack_corpus_through_pooled_references_keeps_its_verdicts),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
