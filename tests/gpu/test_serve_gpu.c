/* test_serve_gpu.c — the hack and legit corpora's cuda lines through `cudal1 serve --device cuda`
 * (small shapes, --overlap 4: evaluations share the GPU, only timing alone; a task's reference
 * worker kept between its evaluations): every case gets the verdict its manifest expects from
 * `cudal1 eval`, and references were reused along the way. What the service adds to the
 * evaluator — overlapping evaluations, pooled references — must not change a verdict. */
#include "../eval_cases.h"
#include "../serve_client.h"

static void test_the_corpora_through_the_service_keep_their_verdicts(void **state) {
  (void)state;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  svc s;
  const char *extra[] = {"--min-trials", "10", "--max-trials", "60", "--time-budget", "0.5",
                         NULL};
  svc_fresh_on(&s, "cuda", "small", extra);
  static char bad[8192];
  bad[0] = 0;
  svc_post_manifest(s.port, "tests/hacks/manifest.txt", "cuda", "small", bad, sizeof bad);
  svc_post_manifest(s.port, "tests/legit/manifest.txt", "cuda", "small", bad, sizeof bad);
  resp r;
  http(s.port, "/v1/stats", NULL, NULL, &r);
  cJSON *st = cJSON_Parse(r.body);
  double reused = num(cJSON_GetObjectItem(st, "reference_workers"), "reused");
  fprintf(stderr, "service stats: %s\n", r.body);
  cJSON_Delete(st);
  free(r.body);
  assert_int_equal(svc_stop(&s), 0);
  svc_rm(&s);
  curl_global_cleanup();
  if (bad[0]) fail_msg("verdicts differ from the manifests':%s", bad);
  assert_true(reused >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_corpora_through_the_service_keep_their_verdicts)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
