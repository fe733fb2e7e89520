/* test_policy.c — the policy backends: the openai backend against the scripted local server
 * (tests/fake_llm.h) — n samples, reasoning, retries on 429/5xx/timeouts, final 4xx, broken
 * replies, the n=1 fallback, the shared concurrency limit, the API key kept out of errors — and
 * the preflight (cl1_policy_check: unreachable, timeout, key refused) and the answers that make
 * the policy fatal (model unknown, no route, key refused) — and the replay backend (order per
 * task, exhaustion, "file" entries, malformed lines). */
#include "harness.h"
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "fake_llm.h"
#include "policy/policy.h"

static cl1_policy *open_openai(fake_llm *f, const char *key, int retries, double timeout_s, int concurrency) {
  cl1_policy_opts o;
  cl1_policy_opts_default(&o);
  o.kind = "openai";
  o.base_url = fake_llm_url(f);
  o.model = "test-model";
  o.api_key = key;
  o.retries = retries;
  o.backoff_s = 0.01;
  o.timeout_s = timeout_s;
  o.concurrency = concurrency;
  o.temperature = 0.5;
  o.top_p = 0.9;
  o.max_tokens = 1000;
  cl1_policy *p = NULL;
  cl1_err err = {{0}};
  if (cl1_policy_open(&o, &p, &err)) fail_msg("open: %s", err.msg);
  return p;
}

static void gen(cl1_policy *p, const char *task, int n, cl1_completion *out) {
  cl1_err err = {{0}};
  if (cl1_policy_generate(p, task, "You optimise CUDA.", "Make it faster.", n, out, &err))
    fail_msg("generate: %s", err.msg);
}

static void clear_all(cl1_completion *c, int n) {
  for (int i = 0; i < n; i++) cl1_completion_clear(&c[i]);
}

/* Writes the choice index and the user's message back (the default handler). */
static char *echo_prompt(void *ud, const char *body, int choice) {
  (void)ud;
  cJSON *j = cJSON_Parse(body);
  const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(j, "messages");
  const cJSON *last = cJSON_GetArrayItem(msgs, cJSON_GetArraySize(msgs) - 1);
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(last, "content");
  char *out = malloc(256);
  snprintf(out, 256, "echo %d: %s", choice, cJSON_IsString(c) ? c->valuestring : "?");
  cJSON_Delete(j);
  return out;
}

static void test_n_samples(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  assert_non_null(f);
  cl1_policy *p = open_openai(f, NULL, 0, 10, 4);
  fake_llm_push_completion(f, "same answer");
  cl1_completion c[3];
  gen(p, "level1/19_ReLU", 3, c);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(c[i].ok, 1);
    assert_string_equal(c[i].content, "same answer");
    assert_string_equal(c[i].finish_reason, "stop");
    assert_null(c[i].reasoning);
    assert_int_equal(c[i].replayed, 0);
  }
  assert_true(c[0].prompt_tokens > 0 && c[0].completion_tokens > 0);
  assert_int_equal(c[1].prompt_tokens, 0); /* usage once per request */
  /* one request, carrying what the options say */
  assert_int_equal(fake_llm_request_count(f), 1);
  cJSON *rq = fake_llm_request_json(f, 0);
  assert_string_equal(cJSON_GetObjectItem(rq, "model")->valuestring, "test-model");
  assert_int_equal(cJSON_GetObjectItem(rq, "n")->valueint, 3);
  assert_true(cJSON_GetObjectItem(rq, "temperature")->valuedouble == 0.5);
  assert_true(cJSON_GetObjectItem(rq, "top_p")->valuedouble == 0.9);
  assert_int_equal(cJSON_GetObjectItem(rq, "max_tokens")->valueint, 1000);
  assert_null(cJSON_GetObjectItem(rq, "seed"));
  const cJSON *msgs = cJSON_GetObjectItem(rq, "messages");
  assert_int_equal(cJSON_GetArraySize(msgs), 2);
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "role")->valuestring, "system");
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 1), "content")->valuestring, "Make it faster.");
  cJSON_Delete(rq);
  clear_all(c, 3);
  /* distinct choices land in their places; no system message when none is given */
  const char *three[] = {"first", "second", "third"};
  fake_llm_push_choices(f, three, 3);
  cl1_err err = {{0}};
  assert_int_equal(cl1_policy_generate(p, "t", NULL, "u", 3, c, &err), 0);
  for (int i = 0; i < 3; i++) assert_string_equal(c[i].content, three[i]);
  rq = fake_llm_request_json(f, 1);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(rq, "messages")), 1);
  cJSON_Delete(rq);
  clear_all(c, 3);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

static void test_reasoning_kept(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  cl1_policy *p = open_openai(f, NULL, 0, 10, 4);
  const char *content = "```cuda\n__global__ void k() {}\n```";
  fake_llm_reply r = {.contents = &content, .ncontents = 1, .reasoning = "Let me think.",
                      .finish_reason = "length", .delay_ms = -1};
  fake_llm_push(f, &r);
  /* a server that calls it "reasoning" */
  fake_llm_push_raw(f, 200,
                    "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"x\","
                    "\"reasoning\":\"other name\"},\"finish_reason\":\"stop\"}]}", 0);
  cl1_completion c[2];
  gen(p, "t", 2, c);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(c[i].ok, 1);
    assert_string_equal(c[i].content, content);
    assert_string_equal(c[i].reasoning, "Let me think.");
    assert_string_equal(c[i].finish_reason, "length");
  }
  clear_all(c, 2);
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 1);
  assert_string_equal(c[0].reasoning, "other name");
  clear_all(c, 1);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

static void test_429_then_success(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  cl1_policy *p = open_openai(f, NULL, 3, 10, 4);
  /* the Retry-After is honoured: the retry waits a second rather than 0.01 s */
  fake_llm_reply r = {.status = 429, .body = "{\"error\":{\"message\":\"rate limited\"}}",
                      .header_name = "Retry-After", .header_value = "1"};
  fake_llm_push(f, &r);
  fake_llm_push_raw(f, 503, "overloaded", 0);
  fake_llm_push_completion(f, "finally");
  cl1_completion c[1];
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 1);
  assert_string_equal(c[0].content, "finally");
  assert_int_equal(fake_llm_request_count(f), 3);
  clear_all(c, 1);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

static void test_500_gives_up(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  cl1_policy *p = open_openai(f, NULL, 2, 10, 4);
  for (int i = 0; i < 3; i++) fake_llm_push_raw(f, 500, "{\"error\":{\"message\":\"engine crashed\"}}", 0);
  fake_llm_push_completion(f, "never reached");
  cl1_completion c[2];
  gen(p, "t", 2, c);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(c[i].ok, 0);
    assert_null(c[i].content);
    assert_non_null(strstr(c[i].error, "HTTP 500"));
    assert_non_null(strstr(c[i].error, "engine crashed"));
    assert_non_null(strstr(c[i].error, "3 attempts"));
  }
  assert_int_equal(fake_llm_request_count(f), 3);
  assert_int_equal(fake_llm_pending(f), 1);
  clear_all(c, 2);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

static void test_400_not_retried(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  cl1_policy *p = open_openai(f, NULL, 3, 10, 4);
  fake_llm_push_raw(f, 400, "{\"error\":{\"message\":\"model 'test-model' does not exist\"}}", 0);
  fake_llm_push_completion(f, "never reached");
  cl1_completion c[1];
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 0);
  assert_non_null(strstr(c[0].error, "HTTP 400"));
  assert_non_null(strstr(c[0].error, "does not exist"));
  assert_int_equal(fake_llm_request_count(f), 1);
  assert_int_equal(fake_llm_pending(f), 1);
  clear_all(c, 1);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

/* Broken JSON, no choices, an error object on a 200, empty content: each a clear failure. */
static void test_broken_replies(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  cl1_policy *p = open_openai(f, NULL, 2, 10, 4);
  cl1_completion c[2];
  struct { const char *body, *want; } cases[] = {
      {"{\"choices\": [{\"index\": 0, \"message\": {\"content\": \"trunc", "not a JSON object"},
      {"<html>Bad gateway</html>", "Bad gateway"},
      {"{\"id\": \"x\", \"choices\": []}", "has no choices"},
      {"{\"error\": {\"message\": \"context too long\"}}", "context too long"},
      {"{\"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": null}, "
       "\"finish_reason\": \"length\"}]}", "empty content"},
      {"{\"choices\": [{\"index\": 0, \"finish_reason\": \"stop\"}]}", "has no message"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    fake_llm_push_raw(f, 200, cases[i].body, 0);
    gen(p, "t", 1, c);
    assert_int_equal(c[0].ok, 0);
    if (!strstr(c[0].error, cases[i].want)) fail_msg("case %zu: '%s' lacks '%s'", i, c[0].error, cases[i].want);
    clear_all(c, 1);
  }
  assert_int_equal(fake_llm_request_count(f), (int)(sizeof cases / sizeof *cases)); /* none retried */
  /* one empty choice among two */
  const char *two[] = {"", "fine"};
  fake_llm_push_choices(f, two, 2);
  gen(p, "t", 2, c);
  assert_int_equal(c[0].ok, 0);
  assert_non_null(strstr(c[0].error, "empty content"));
  assert_int_equal(c[1].ok, 1);
  assert_string_equal(c[1].content, "fine");
  clear_all(c, 2);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

static void test_n_rejected_falls_back(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  cl1_policy_opts o;
  cl1_policy_opts_default(&o);
  o.kind = "openai";
  o.base_url = fake_llm_url(f);
  o.model = "m";
  o.has_seed = 1;
  o.seed = 42;
  o.backoff_s = 0.01;
  cl1_policy *p = NULL;
  cl1_err err = {{0}};
  assert_int_equal(cl1_policy_open(&o, &p, &err), 0);
  fake_llm_set_n_mode(f, FAKE_LLM_N_REJECT);
  fake_llm_set_default(f, echo_prompt, NULL);
  cl1_completion c[3];
  gen(p, "t", 3, c);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(c[i].ok, 1);
    assert_string_equal(c[i].content, "echo 0: Make it faster.");
  }
  clear_all(c, 3);
  assert_int_equal(fake_llm_request_count(f), 4);
  assert_int_equal(fake_llm_count_n(f, 3), 1);
  assert_int_equal(fake_llm_count_n(f, 1), 3);
  /* split requests get distinct seeds: 42, 43, 44 */
  int seen = 0;
  for (int i = 1; i < 4; i++) {
    cJSON *rq = fake_llm_request_json(f, i);
    int s = cJSON_GetObjectItem(rq, "seed")->valueint;
    assert_true(s >= 42 && s <= 44);
    seen |= 1 << (s - 42);
    cJSON_Delete(rq);
  }
  assert_int_equal(seen, 7);
  /* remembered: the next call goes straight to n=1 */
  gen(p, "t", 2, c);
  assert_int_equal(c[0].ok + c[1].ok, 2);
  clear_all(c, 2);
  assert_int_equal(fake_llm_request_count(f), 6);
  assert_int_equal(fake_llm_count_n(f, 2), 0);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

/* A server that silently ignores n: the missing choices come from n=1 requests. */
static void test_n_ignored_falls_back(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  cl1_policy *p = open_openai(f, NULL, 0, 10, 4);
  fake_llm_set_n_mode(f, FAKE_LLM_N_IGNORE);
  fake_llm_set_default(f, echo_prompt, NULL);
  cl1_completion c[3];
  gen(p, "t", 3, c);
  for (int i = 0; i < 3; i++) assert_int_equal(c[i].ok, 1);
  clear_all(c, 3);
  assert_int_equal(fake_llm_request_count(f), 3); /* one n=3 answered with one choice, then two n=1 */
  assert_int_equal(fake_llm_count_n(f, 1), 2);
  gen(p, "t", 3, c);
  clear_all(c, 3);
  assert_int_equal(fake_llm_count_n(f, 3), 1);
  assert_int_equal(fake_llm_count_n(f, 1), 5);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

static void test_timeout_then_retry(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  const char *slow = "too late";
  fake_llm_reply r = {.contents = &slow, .ncontents = 1, .delay_ms = 5000};
  fake_llm_push(f, &r);
  fake_llm_push_completion(f, "in time");
  cl1_policy *p = open_openai(f, NULL, 1, 0.3, 4);
  cl1_completion c[1];
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 1);
  assert_string_equal(c[0].content, "in time");
  assert_int_equal(fake_llm_request_count(f), 2);
  clear_all(c, 1);
  cl1_policy_close(p);
  /* no retries left: the timeout is the error */
  fake_llm_push(f, &r);
  p = open_openai(f, NULL, 0, 0.3, 4);
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 0);
  assert_non_null(strstr(c[0].error, "no complete reply"));
  assert_non_null(strstr(c[0].error, fake_llm_url(f)));
  clear_all(c, 1);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

static void test_unreachable(void **st) {
  (void)st;
  int port = fake_llm_closed_port();
  assert_true(port > 0);
  char url[64], want[128];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", port);
  snprintf(want, sizeof want, "cannot connect to %s/chat/completions: Connection refused", url);
  cl1_policy_opts o;
  cl1_policy_opts_default(&o);
  o.kind = "openai";
  o.base_url = url;
  o.model = "m";
  o.retries = 2;
  o.backoff_s = 0.01;
  cl1_policy *p = NULL;
  cl1_err err = {{0}};
  assert_int_equal(cl1_policy_open(&o, &p, &err), 0);
  cl1_completion c[2];
  gen(p, "t", 2, c);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(c[i].ok, 0);
    if (!strstr(c[i].error, want)) fail_msg("'%s' lacks '%s'", c[i].error, want);
    assert_non_null(strstr(c[i].error, "3 attempts"));
  }
  clear_all(c, 2);
  cl1_policy_close(p);
}

static void test_authorization(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  const char *key = "sk-test-SECRET-0123456789";
  cl1_policy *p = open_openai(f, key, 0, 10, 4);
  fake_llm_push_completion(f, "ok");
  /* a server that echoes the key back in its error */
  fake_llm_push_raw(f, 401, "{\"error\":{\"message\":\"Incorrect API key provided: sk-test-SECRET-0123456789\"}}", 0);
  cl1_completion c[1];
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 1);
  clear_all(c, 1);
  assert_string_equal(fake_llm_request_auth(f, 0), "Bearer sk-test-SECRET-0123456789");
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 0);
  assert_non_null(strstr(c[0].error, "HTTP 401"));
  assert_null(strstr(c[0].error, key));
  assert_null(strstr(c[0].error, "SECRET"));
  clear_all(c, 1);
  cl1_policy_close(p);
  /* no key: no header */
  p = open_openai(f, NULL, 0, 10, 4);
  fake_llm_push_completion(f, "ok");
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 1);
  assert_null(fake_llm_request_auth(f, 2));
  clear_all(c, 1);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

typedef struct {
  cl1_policy *p;
  cl1_completion c[2];
  int rc;
} gen_job;

static void *gen_thread(void *ud) {
  gen_job *j = ud;
  cl1_err err = {{0}};
  j->rc = cl1_policy_generate(j->p, "t", "s", "u", 2, j->c, &err);
  return NULL;
}

/* Three threads, two samples each, split into n=1 requests that the server holds a while: never
   more than the limit in flight. */
static void test_concurrency_limit(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  fake_llm_set_n_mode(f, FAKE_LLM_N_REJECT);
  fake_llm_set_default(f, echo_prompt, NULL);
  fake_llm_set_delay(f, 150);
  cl1_policy *p = open_openai(f, NULL, 0, 30, 2);
  gen_job jobs[3];
  pthread_t th[3];
  for (int i = 0; i < 3; i++) {
    jobs[i].p = p;
    assert_int_equal(pthread_create(&th[i], NULL, gen_thread, &jobs[i]), 0);
  }
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(jobs[i].rc, 0);
    for (int k = 0; k < 2; k++) {
      if (!jobs[i].c[k].ok) fail_msg("job %d sample %d: %s", i, k, jobs[i].c[k].error);
      assert_string_equal(jobs[i].c[k].content, "echo 0: u");
    }
    clear_all(jobs[i].c, 2);
  }
  assert_int_equal(fake_llm_count_n(f, 1), 6);
  assert_true(fake_llm_max_in_flight(f) >= 1);
  assert_true(fake_llm_max_in_flight(f) <= 2);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

static void test_reply_too_large(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  size_t n = (CL1_POLICY_MAX_REPLY) + 1024;
  char *big = malloc(n + 1);
  memset(big, 'x', n);
  big[n] = 0;
  fake_llm_push_raw(f, 200, big, 0);
  free(big);
  cl1_policy *p = open_openai(f, NULL, 2, 30, 4);
  cl1_completion c[1];
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 0);
  assert_non_null(strstr(c[0].error, "larger than 32 MiB"));
  assert_int_equal(fake_llm_request_count(f), 1);
  clear_all(c, 1);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

static void test_bad_options(void **st) {
  (void)st;
  cl1_policy_opts o;
  cl1_policy *p = NULL;
  cl1_err err = {{0}};
  cl1_policy_opts_default(&o);
  o.kind = "vllm";
  assert_int_not_equal(cl1_policy_open(&o, &p, &err), 0);
  assert_non_null(strstr(err.msg, "unknown backend 'vllm'"));
  o.kind = "openai";
  o.base_url = "http://127.0.0.1:1/v1";
  assert_int_not_equal(cl1_policy_open(&o, &p, &err), 0);
  assert_non_null(strstr(err.msg, "no model"));
  o.model = "m";
  o.base_url = "127.0.0.1:8000";
  assert_int_not_equal(cl1_policy_open(&o, &p, &err), 0);
  assert_non_null(strstr(err.msg, "http://"));
  o.base_url = "http://127.0.0.1:1/v1";
  o.concurrency = 0;
  assert_int_not_equal(cl1_policy_open(&o, &p, &err), 0);
  assert_non_null(strstr(err.msg, "concurrency"));
  assert_null(p);
  o.concurrency = 1;
  assert_int_equal(cl1_policy_open(&o, &p, &err), 0);
  cl1_completion c[1];
  assert_int_not_equal(cl1_policy_generate(p, "t", NULL, "u", 0, c, &err), 0);
  assert_non_null(strstr(err.msg, "0 completions"));
  cl1_policy_close(p);
}

/* ---- the preflight (cl1_policy_check) and answers no request can escape (cl1_policy_fatal) ---- */

static cl1_policy *open_at(const char *url, const char *model, const char *key, double timeout_s) {
  cl1_policy_opts o;
  cl1_policy_opts_default(&o);
  o.kind = "openai";
  o.base_url = url;
  o.model = model;
  o.api_key = key;
  o.retries = 0;
  o.timeout_s = timeout_s;
  cl1_policy *p = NULL;
  cl1_err err = {{0}};
  if (cl1_policy_open(&o, &p, &err)) fail_msg("open: %s", err.msg);
  return p;
}

/* Nobody listening, or a listener that never answers: 3, the URL and the cause in the message. */
static void test_check_unreachable(void **st) {
  (void)st;
  char url[64], want[160];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/", fake_llm_closed_port());
  cl1_policy *p = open_at(url, "m", NULL, 600);
  cl1_err err = {{0}};
  double t0 = cl1_now_test();
  assert_int_equal(cl1_policy_check(p, &err), 3);
  assert_true(cl1_now_test() - t0 < 10);
  url[strlen(url) - 1] = 0; /* named without the trailing slash */
  snprintf(want, sizeof want, "cannot reach %s: connection refused (is the server running?)", url);
  assert_string_equal(err.msg, want);
  cl1_policy_close(p);
  int port = 0, fd = fake_llm_silent_listener(&port);
  assert_true(fd >= 0);
  snprintf(url, sizeof url, "http://127.0.0.1:%d/v1", port);
  p = open_at(url, "m", NULL, 0.5);
  assert_int_equal(cl1_policy_check(p, &err), 3);
  snprintf(want, sizeof want, "cannot reach %s: connected, but no answer to GET /models within 0.5 s", url);
  if (strncmp(err.msg, want, strlen(want))) fail_msg("'%s' lacks '%s'", err.msg, want);
  cl1_policy_close(p);
  close(fd);
}

/* A key the server refuses, or none where it wants one: 2, naming the variables, never the key;
   the right key passes. A 401 to a request later makes the policy fatal the same way. */
static void test_check_key(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  fake_llm_set_key(f, "sk-right");
  fake_llm_push_completion(f, "ok");
  cl1_err err = {{0}};
  cl1_policy *p = open_at(fake_llm_url(f), "m", "sk-WRONG-4242", 10);
  assert_int_equal(cl1_policy_check(p, &err), 2);
  assert_non_null(strstr(err.msg, "refused the API key (HTTP 401: Incorrect API key provided)"));
  assert_non_null(strstr(err.msg, "$CUDAL1_API_KEY"));
  assert_non_null(strstr(err.msg, "$OPENAI_API_KEY"));
  assert_null(strstr(err.msg, "WRONG"));
  assert_int_equal(cl1_policy_fatal(p, &err), 0);
  cl1_completion c[1];
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 0);
  clear_all(c, 1);
  assert_int_equal(cl1_policy_fatal(p, &err), 2);
  assert_non_null(strstr(err.msg, "refused the API key"));
  assert_null(strstr(err.msg, "WRONG"));
  cl1_policy_close(p);
  p = open_at(fake_llm_url(f), "m", NULL, 10);
  assert_int_equal(cl1_policy_check(p, &err), 2);
  assert_non_null(strstr(err.msg, "wants an API key"));
  assert_non_null(strstr(err.msg, "$CUDAL1_API_KEY"));
  cl1_policy_close(p);
  p = open_at(fake_llm_url(f), "m", "sk-right", 10);
  assert_int_equal(cl1_policy_check(p, &err), 0);
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 1);
  assert_int_equal(cl1_policy_fatal(p, &err), 0);
  clear_all(c, 1);
  assert_int_equal(fake_llm_models_requests(f), 3);
  assert_int_equal(fake_llm_request_count(f), 2); /* the /models requests are not recorded */
  cl1_policy_close(p);
  fake_llm_stop(f);
}

/* The model list: a listed model passes; one not listed passes the check (some servers list one
   name and serve any) and the first answer decides: vLLM's 404 makes the policy fatal with the
   model and the listed ones named; a server that serves it anyway goes on. */
static void test_check_models(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  fake_llm_set_default(f, echo_prompt, NULL);
  const char *ids[] = {"Qwen/Qwen3-32B", "Qwen/Qwen3-8B"};
  fake_llm_set_models(f, ids, 2, 1);
  cl1_err err = {{0}};
  cl1_completion c[2];
  cl1_policy *p = open_at(fake_llm_url(f), "Qwen/Qwen3-32B", NULL, 10);
  assert_int_equal(cl1_policy_check(p, &err), 0);
  gen(p, "t", 2, c);
  assert_int_equal(c[0].ok && c[1].ok, 1);
  assert_int_equal(cl1_policy_fatal(p, &err), 0);
  clear_all(c, 2);
  cl1_policy_close(p);
  p = open_at(fake_llm_url(f), "qwen3", NULL, 10);
  assert_int_equal(cl1_policy_check(p, &err), 0);
  gen(p, "t", 2, c);
  assert_int_equal(c[0].ok || c[1].ok, 0);
  assert_non_null(strstr(c[0].error, "HTTP 404"));
  clear_all(c, 2);
  assert_int_equal(cl1_policy_fatal(p, &err), 2);
  char want[300];
  snprintf(want, sizeof want, "the server at %s has no model 'qwen3' (HTTP 404: The model `qwen3` does "
           "not exist.); it lists: Qwen/Qwen3-32B, Qwen/Qwen3-8B", fake_llm_url(f));
  assert_string_equal(err.msg, want);
  cl1_policy_close(p);
  /* a long list is cut short, with its length */
  char *many[100], name[32];
  for (int i = 0; i < 100; i++) {
    snprintf(name, sizeof name, "model-number-%03d", i);
    many[i] = strdup(name);
  }
  fake_llm_set_models(f, (const char *const *)many, 100, 1);
  p = open_at(fake_llm_url(f), "qwen3", NULL, 10);
  assert_int_equal(cl1_policy_check(p, &err), 0);
  gen(p, "t", 1, c);
  clear_all(c, 1);
  assert_int_equal(cl1_policy_fatal(p, &err), 2);
  assert_non_null(strstr(err.msg, "it lists: model-number-000, model-number-001"));
  assert_non_null(strstr(err.msg, ", ... (100 in all)"));
  assert_null(strstr(err.msg, "model-number-099"));
  cl1_policy_close(p);
  for (int i = 0; i < 100; i++) free(many[i]);
  /* llama.cpp's way: one name listed, any served */
  const char *one[] = {"/models/qwen.gguf"};
  fake_llm_set_models(f, one, 1, 0);
  p = open_at(fake_llm_url(f), "whatever", NULL, 10);
  assert_int_equal(cl1_policy_check(p, &err), 0);
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 1);
  assert_int_equal(cl1_policy_fatal(p, &err), 0);
  clear_all(c, 1);
  cl1_policy_close(p);
  fake_llm_stop(f);
}

/* No /models route (404, the fake's default): the check passes and the first answer decides —
   completions go on; a 404 naming the model is fatal; a 404 from a base URL without /v1 names the
   route; a 400 that is not about the model (or n) stays one request's failure. */
static void test_check_no_models_route(void **st) {
  (void)st;
  fake_llm *f = fake_llm_start();
  fake_llm_set_default(f, echo_prompt, NULL);
  cl1_err err = {{0}};
  cl1_completion c[1];
  cl1_policy *p = open_at(fake_llm_url(f), "m", NULL, 10);
  assert_int_equal(cl1_policy_check(p, &err), 0);
  assert_int_equal(fake_llm_models_requests(f), 1);
  fake_llm_push_raw(f, 400, "{\"error\":{\"message\":\"max_tokens is too large\"}}", 0);
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 0);
  clear_all(c, 1);
  gen(p, "t", 1, c);
  assert_int_equal(c[0].ok, 1);
  clear_all(c, 1);
  assert_int_equal(cl1_policy_fatal(p, &err), 0);
  fake_llm_push_raw(f, 404, "{\"error\":{\"message\":\"model \\\"m\\\" not found, try pulling it first\"}}", 0);
  gen(p, "t", 1, c);
  clear_all(c, 1);
  assert_int_equal(cl1_policy_fatal(p, &err), 2);
  assert_non_null(strstr(err.msg, "has no model 'm' (HTTP 404: model \"m\" not found"));
  assert_null(strstr(err.msg, "it lists"));
  cl1_policy_close(p);
  char base[64];
  snprintf(base, sizeof base, "%s", fake_llm_url(f));
  base[strlen(base) - 3] = 0; /* without /v1 */
  p = open_at(base, "m", NULL, 10);
  assert_int_equal(cl1_policy_check(p, &err), 0);
  gen(p, "t", 1, c);
  clear_all(c, 1);
  assert_int_equal(cl1_policy_fatal(p, &err), 2);
  assert_non_null(strstr(err.msg, "has no chat-completions route (HTTP 404"));
  assert_non_null(strstr(err.msg, "is the base URL right?"));
  cl1_policy_close(p);
  fake_llm_stop(f);
}

/* ---- replay ---- */

static cl1_policy *open_replay(const char *path, cl1_err *err) {
  cl1_policy_opts o;
  cl1_policy_opts_default(&o);
  o.kind = "replay";
  o.replay_path = path;
  cl1_policy *p = NULL;
  return cl1_policy_open(&o, &p, err) ? NULL : p;
}

static void test_replay_order(void **st) {
  (void)st;
  const char *dir = th_tmpdir();
  char path[300], sub[300], cu[300];
  snprintf(path, sizeof path, "%s/replay.jsonl", dir);
  snprintf(sub, sizeof sub, "%s/cands", dir);
  assert_int_equal(mkdir(sub, 0755), 0);
  snprintf(cu, sizeof cu, "%s/cands/a3.cu", dir);
  assert_int_equal(th_write(cu, "// a3 from a file\n"), 0);
  assert_int_equal(th_write(path,
                            "{\"task\": \"A\", \"content\": \"a1\", \"reasoning\": \"why a1\"}\n"
                            "\n"
                            "{\"task\": \"B\", \"content\": \"b1\", \"meta\": {\"speedup\": 1.5}}\n"
                            "{\"task\": \"A\", \"content\": \"a2\", \"finish_reason\": \"length\"}\n"
                            "{\"task\": \"A\", \"file\": \"cands/a3.cu\"}\n"),
                   0);
  cl1_err err = {{0}};
  cl1_policy *p = open_replay(path, &err);
  if (!p) fail_msg("open: %s", err.msg);
  assert_int_equal(cl1_policy_check(p, &err), 0); /* nothing to reach */
  cl1_completion c[3];
  gen(p, "A", 2, c);
  assert_int_equal(c[0].ok + c[1].ok, 2);
  assert_string_equal(c[0].content, "a1");
  assert_string_equal(c[0].reasoning, "why a1");
  assert_string_equal(c[1].content, "a2");
  assert_string_equal(c[1].finish_reason, "length");
  assert_int_equal(c[0].replayed + c[1].replayed, 2);
  clear_all(c, 2);
  gen(p, "B", 1, c);
  assert_string_equal(c[0].content, "b1");
  assert_null(c[0].reasoning);
  clear_all(c, 1);
  /* the third A comes from its file; then A runs out */
  gen(p, "A", 3, c);
  assert_int_equal(c[0].ok, 1);
  assert_string_equal(c[0].content, "// a3 from a file\n");
  char want[400];
  snprintf(want, sizeof want, "replay: no more completions for A in %s", path);
  for (int i = 1; i < 3; i++) {
    assert_int_equal(c[i].ok, 0);
    assert_null(c[i].content);
    assert_int_equal(c[i].replayed, 1);
    assert_string_equal(c[i].error, want);
  }
  clear_all(c, 3);
  gen(p, "level9/unknown", 1, c);
  assert_int_equal(c[0].ok, 0);
  assert_non_null(strstr(c[0].error, "no more completions for level9/unknown"));
  clear_all(c, 1);
  cl1_policy_close(p);
  unlink(cu);
  rmdir(sub);
  unlink(path);
  rmdir(dir);
}

static void test_replay_malformed(void **st) {
  (void)st;
  const char *dir = th_tmpdir();
  char path[300], want[400];
  snprintf(path, sizeof path, "%s/bad.jsonl", dir);
  struct { const char *text; int line; const char *why; } cases[] = {
      {"{\"task\": \"A\", \"content\": \"a1\"}\n{\"task\": \"A\", \"content\": \"a2\"\n", 2, "not valid JSON"},
      {"{\"task\": \"A\", \"content\": \"a1\"}\n\n{\"content\": \"x\"}\n", 3, "\"task\""},
      {"{\"task\": \"A\", \"contents\": \"x\"}\n", 1, "unknown key \"contents\""},
      {"{\"task\": \"A\", \"content\": \"x\", \"file\": \"y\"}\n", 1, "exactly one"},
      {"{\"task\": \"A\", \"file\": \"missing.cu\"}\n", 1, "missing.cu: No such file"},
      {"[1, 2]\n", 1, "not a JSON object"},
      {"{\"task\": \"A\", \"content\": 7}\n", 1, "\"content\" must be a string"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    assert_int_equal(th_write(path, cases[i].text), 0);
    cl1_err err = {{0}};
    assert_null(open_replay(path, &err));
    snprintf(want, sizeof want, "%s:%d", path, cases[i].line);
    if (!strstr(err.msg, want) || !strstr(err.msg, cases[i].why))
      fail_msg("case %zu: '%s' lacks '%s' or '%s'", i, err.msg, want, cases[i].why);
  }
  /* a "file" whose text holds a NUL byte: the rest would be lost, so it is refused */
  char nul_path[300];
  snprintf(nul_path, sizeof nul_path, "%s/nul.cu", dir);
  assert_int_equal(th_write_bytes(nul_path, "int a;\0int b;\n", 15), 0);
  assert_int_equal(th_write(path, "{\"task\": \"A\", \"file\": \"nul.cu\"}\n"), 0);
  cl1_err err = {{0}};
  assert_null(open_replay(path, &err));
  assert_non_null(strstr(err.msg, ":1: cannot read \"file\""));
  assert_non_null(strstr(err.msg, "nul.cu: contains a NUL byte"));
  unlink(nul_path);
  snprintf(want, sizeof want, "%s/absent.jsonl", dir);
  assert_null(open_replay(want, &err));
  assert_non_null(strstr(err.msg, "absent.jsonl"));
  assert_int_equal(th_write(path, "\n\n"), 0);
  assert_null(open_replay(path, &err));
  assert_non_null(strstr(err.msg, "no completions"));
  unlink(path);
  rmdir(dir);
}

int main(void) {
  setenv("no_proxy", "127.0.0.1", 1); /* the fake server is local whatever proxy CI sets */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_n_samples),           cmocka_unit_test(test_reasoning_kept),
      cmocka_unit_test(test_429_then_success),    cmocka_unit_test(test_500_gives_up),
      cmocka_unit_test(test_400_not_retried),     cmocka_unit_test(test_broken_replies),
      cmocka_unit_test(test_n_rejected_falls_back), cmocka_unit_test(test_n_ignored_falls_back),
      cmocka_unit_test(test_timeout_then_retry),  cmocka_unit_test(test_unreachable),
      cmocka_unit_test(test_authorization),       cmocka_unit_test(test_concurrency_limit),
      cmocka_unit_test(test_reply_too_large),     cmocka_unit_test(test_bad_options),
      cmocka_unit_test(test_check_unreachable),   cmocka_unit_test(test_check_key),
      cmocka_unit_test(test_check_models),        cmocka_unit_test(test_check_no_models_route),
      cmocka_unit_test(test_replay_order),        cmocka_unit_test(test_replay_malformed),
  };
  return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
