/* test_serve_gpu.c — the hack and legit corpora's cuda lines through `cudal1 serve --device cuda`
 * (small shapes, --overlap 4: evaluations share the GPU, only timing alone; a task's reference
 * worker kept between its evaluations): every case gets the verdict its manifest expects from
 * `cudal1 eval`, and references were reused along the way. What the service adds to the
 * evaluator — overlapping evaluations, pooled references — must not change a verdict. */
#include "../eval_cases.h"
#include "../serve_client.h"

/* Every case of the manifest's cuda lines in one request; failures listed in bad. */
static void post_manifest(int port, const char *manifest, char *bad, size_t bad_n) {
  th_case *cs;
  int n = th_manifest(manifest, "cuda", "small", &cs);
  assert_true(n > 0);
  cJSON *d = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(d, "items");
  static char buf[1 << 18];
  for (int i = 0; i < n; i++) {
    FILE *f = fopen(cs[i].file, "r");
    assert_non_null(f);
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    buf[k] = 0;
    fclose(f);
    cJSON *it = cJSON_CreateObject();
    cJSON_AddNumberToObject(it, "id", i);
    cJSON_AddStringToObject(it, "task", cs[i].task);
    cJSON_AddStringToObject(it, "code", buf);
    cJSON_AddItemToArray(a, it);
  }
  char *body = cJSON_PrintUnformatted(d);
  cJSON_Delete(d);
  resp r;
  http(port, "/v1/score", body, NULL, &r);
  free(body);
  assert_int_equal(r.status, 200);
  cJSON *doc = cJSON_Parse(r.body);
  for (int i = 0; i < n; i++) {
    const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), i);
    char why[256];
    if (!th_expect_met(cs[i].expect, x, why, sizeof why))
      snprintf(bad + strlen(bad), bad_n - strlen(bad), "\n  %s (%s): %s", cs[i].file,
               cs[i].task, why);
  }
  cJSON_Delete(doc);
  free(r.body);
  free(cs);
}

static void test_the_corpora_through_the_service_keep_their_verdicts(void **state) {
  (void)state;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  svc s;
  const char *extra[] = {"--min-trials", "10", "--max-trials", "60", "--time-budget", "0.5",
                         NULL};
  svc_fresh_on(&s, "cuda", "small", extra);
  static char bad[8192];
  bad[0] = 0;
  post_manifest(s.port, "tests/hacks/manifest.txt", bad, sizeof bad);
  post_manifest(s.port, "tests/legit/manifest.txt", bad, sizeof bad);
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
