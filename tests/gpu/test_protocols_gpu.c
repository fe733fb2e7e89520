/* test_protocols_gpu.c — the CUDA-graph and warm-cache timing protocols on the GPU: a correct
 * candidate passes under --graph (both solutions captured and replayed) and --warm-cache, and the
 * result names the protocol. */
#include "../harness.h"
#include <cjson/cJSON.h>

static char out[1 << 17];

static void run_protocol(const char *flag, const char *want_protocol) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s/cudal1 eval --task level1/19_ReLU --solution "
           "tests/gpu/candidates/19_ReLU.cu --shapes small --json %s 2>/dev/null", th_build(), flag);
  int status = th_run(cmd, out, sizeof out);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("no JSON (exit %d): %.300s", status, out);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "verdict");
  const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "protocol");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");
  if (strcmp(v->valuestring, "pass")) fail_msg("%s: %s: %s", flag, v->valuestring, m->valuestring);
  assert_string_equal(p->valuestring, want_protocol);
  assert_int_equal(status, 0);
  cJSON_Delete(j);
}

static void test_correct_candidate_passes_under_graph(void **st) {
  (void)st;
  run_protocol("--graph", "graph");
}

static void test_correct_candidate_passes_under_warm_cache(void **st) {
  (void)st;
  run_protocol("--warm-cache", "warm-cache");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_correct_candidate_passes_under_graph),
      cmocka_unit_test(test_correct_candidate_passes_under_warm_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
