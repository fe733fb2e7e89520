/* test_review.c — `cudal1 eval --review` (issue 4, the optional LLM review) against a scripted
 * reviewer (fake_llm.h): a pass at or above the threshold is sent with the hack classes, the
 * solution and the measurements; the opinion lands in the JSON beside an unchanged verdict; below
 * the threshold nothing is asked; an unreachable reviewer or a reply without a VERDICT line
 * never changes the verdict; missing options are a usage error. Host backend. */
#include <stdbool.h>
#include "harness.h"
#include "fake_llm.h"
#include "store_fixture.h"

#define EVAL "%s/cudal1 eval --task level1/19_ReLU --solution tests/legit/host/19_ReLU.c " \
             "--device host --shapes test --json --min-trials 10 --max-trials 30 --time-budget 0.3 "

static char *reviewer(void *ud, const char *body, int choice) {
  (void)choice;
  (void)body;
  return strdup(ud ? (const char *)ud : "**VERDICT: suspicious**\nClass 7: it may cache.");
}

static cJSON *run_json(const char *cmd, int *status) {
  static char out[1 << 18];
  *status = th_run(cmd, out, sizeof out);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("no JSON (exit %d): %.500s", *status, out);
  return j;
}

static void test_review_opinion_kept(void **state) {
  (void)state;
  fake_llm *f = fake_llm_start();
  fake_llm_set_default(f, reviewer, NULL);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "env no_proxy=127.0.0.1 " EVAL "--review --review-model judge-model "
           "--review-base-url %s --review-threshold 0 2>/dev/null", th_build(), fake_llm_url(f));
  int st;
  cJSON *j = run_json(cmd, &st);
  assert_int_equal(st, 0);
  assert_string_equal(cJSON_GetObjectItem(j, "verdict")->valuestring, "pass");
  const cJSON *rv = cJSON_GetObjectItem(j, "review");
  assert_non_null(rv);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(rv, "ok")));
  assert_string_equal(cJSON_GetObjectItem(rv, "verdict")->valuestring, "suspicious");
  assert_string_equal(cJSON_GetObjectItem(rv, "model")->valuestring, "judge-model");
  assert_non_null(strstr(cJSON_GetObjectItem(rv, "opinion")->valuestring, "Class 7"));
  /* what the reviewer was shown */
  assert_int_equal(fake_llm_request_count(f), 1);
  const char *body = fake_llm_request_body(f, 0);
  assert_non_null(strstr(body, "Known ways to fake a speedup"));
  assert_non_null(strstr(body, "in[i] < 0.f ? 0.f : in[i]")); /* the solution's own code */
  assert_non_null(strstr(body, "Measured: reference"));
  assert_non_null(strstr(body, "judge-model"));
  cJSON_Delete(j);
  /* a reply without a VERDICT line: unclear, still kept */
  fake_llm_set_default(f, reviewer, (void *)"Looks like a plain loop to me.");
  j = run_json(cmd, &st);
  assert_int_equal(st, 0);
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "review"), "verdict")->valuestring, "unclear");
  cJSON_Delete(j);
  /* below the threshold: nobody is asked */
  snprintf(cmd, sizeof cmd, "env no_proxy=127.0.0.1 " EVAL "--review --review-model m "
           "--review-base-url %s --review-threshold 1000 2>/dev/null", th_build(), fake_llm_url(f));
  j = run_json(cmd, &st);
  assert_int_equal(st, 0);
  assert_null(cJSON_GetObjectItem(j, "review"));
  assert_int_equal(fake_llm_request_count(f), 2);
  cJSON_Delete(j);
  fake_llm_stop(f);
}

static void test_review_failures_keep_verdict(void **state) {
  (void)state;
  char cmd[2048], out[8192];
  /* nobody listens on port 9: the verdict and exit status are the measured ones */
  snprintf(cmd, sizeof cmd, "env no_proxy=127.0.0.1 " EVAL "--review --review-model m "
           "--review-base-url http://127.0.0.1:9/v1 --review-threshold 0 2>&1 >/dev/null",
           th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "--review: no opinion"));
  /* usage */
  snprintf(cmd, sizeof cmd, "env -u CUDAL1_BASE_URL " EVAL "--review 2>&1", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--review needs --review-model"));
}

/* optimize --review: the reviewer is the policy model; its opinion is stored in the evaluation */
static char *policy_and_reviewer(void *ud, const char *body, int choice) {
  (void)ud;
  (void)choice;
  if (strstr(body, "Known ways to fake a speedup")) return strdup("VERDICT: honest\nA plain loop.");
  FILE *f = fopen("tests/legit/host/19_ReLU.c", "r");
  static char code[8192];
  size_t n = f ? fread(code, 1, sizeof code - 1, f) : 0;
  if (f) fclose(f);
  code[n] = 0;
  char *r = malloc(n + 64);
  sprintf(r, "## Code Implementation\n```c\n%s```\n", code);
  return r;
}

static void test_optimize_review_stores_the_reviewers_verdict(void **state) {
  const char *dir = ((th_store *)*state)->dir;
  fake_llm *f = fake_llm_start();
  fake_llm_set_default(f, policy_and_reviewer, NULL);
  char cmd[2048], out[8192];
  snprintf(cmd, sizeof cmd, "env no_proxy=127.0.0.1 %s/cudal1 optimize --task level1/19_ReLU "
           "--base-url %s --model pol --device host --shapes test --rounds 1 --samples 1 --review "
           "--review-threshold 0 --min-trials 10 --max-trials 30 --time-budget 0.3 --db %s/r.db "
           "--out %s/out --no-progress 2>&1", th_build(), fake_llm_url(f), dir, dir);
  int st = th_run(cmd, out, sizeof out);
  if (st) fail_msg("optimize exited %d: %s", st, out);
  snprintf(cmd, sizeof cmd, "python3 -c \"import sqlite3,json; r=sqlite3.connect('%s/r.db').execute("
           "'select result_json from evaluations').fetchone()[0]; print(json.loads(r)['review']['verdict'])\"",
           dir);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_string_equal(out, "honest\n");
  assert_int_equal(fake_llm_request_count(f), 2);
  /* replay has no model to ask */
  snprintf(cmd, sizeof cmd, "%s/cudal1 optimize --task level1/19_ReLU --backend replay --replay "
           "examples/replay-host.jsonl --device host --shapes test --review --db %s/x.db 2>&1",
           th_build(), dir);
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--review"));
  fake_llm_stop(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_review_opinion_kept),
      cmocka_unit_test(test_review_failures_keep_verdict),
      th_store_path_test(test_optimize_review_stores_the_reviewers_verdict),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
