/* test_serve_gpu.c — the hack and legit corpora's cuda lines through `cudal1 serve --device cuda`
 * (small shapes, --overlap 4: evaluations share the GPU, only timing alone; a task's reference
 * worker kept between its evaluations): every case gets the verdict its manifest expects from
 * `cudal1 eval`, and references were reused along the way. What the service adds to the
 * evaluator — overlapping evaluations, pooled references — must not change a verdict. */
#include "../eval_cases.h"
#include "../serve_client.h"

/* One corpus through its own fresh service: a service keeps each task's best speedup so far, and
 * one corpus's fast candidate would make another's honest one look like a jump (above_2x_best,
 * a flag that a trainer's service rightly raises across its history). Returns how many
 * references the service reused. */
static double corpus_through_service(const char *manifest, char *bad, size_t n) {
  svc s;
  const char *extra[] = {"--min-trials", "10", "--max-trials", "60", "--time-budget", "0.5",
                         NULL};
  svc_fresh_on(&s, "cuda", "small", extra);
  svc_post_manifest(s.port, manifest, "cuda", "small", bad, n);
  resp r;
  http(s.port, "/v1/stats", NULL, NULL, &r);
  cJSON *st = cJSON_Parse(r.body);
  double reused = num(cJSON_GetObjectItem(st, "reference_workers"), "reused");
  fprintf(stderr, "%s: service stats: %s\n", manifest, r.body);
  cJSON_Delete(st);
  free(r.body);
  assert_int_equal(svc_stop(&s), 0);
  svc_rm(&s);
  return reused;
}

static void test_the_corpora_through_the_service_keep_their_verdicts(void **state) {
  (void)state;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  static char bad[8192];
  bad[0] = 0;
  double reused = corpus_through_service("tests/hacks/manifest.txt", bad, sizeof bad);
  reused += corpus_through_service("tests/legit/manifest.txt", bad, sizeof bad);
  curl_global_cleanup();
  if (bad[0]) fail_msg("verdicts differ from the manifests':%s", bad);
  assert_true(reused >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_the_corpora_through_the_service_keep_their_verdicts)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
