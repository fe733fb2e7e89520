/* test_corpus.c — bench/corpus on the host backend: a small manifest (two host lines and a cuda
 * line that must be skipped) run twice each gives one JSON document with the header fields and
 * one row per host file holding both runs' verdicts, flags, speedups and medians, matched when
 * every run met its expectation; a wrong expectation is reported as a mismatch (exit 1); usage
 * errors exit 2 and an unreadable manifest 3. */
#include "harness.h"
#include <cjson/cJSON.h>
#include "expect.h"

static char out[1 << 16];

/* Fewer trials than a measurement would take: the test checks the document, not the speedups. */
#define QUICK "--eval-args '--min-trials 10 --max-trials 30 --time-budget 0.3'"

static int corpus(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "CL1_COMMIT=test-commit-1 %s/bench/corpus %s 2>&1", th_build(), args);
  return th_run(cmd, out, sizeof out);
}

static cJSON *load(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return cJSON_Parse(buf);
}

static const char *str_of(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_corpus_writes_a_row_per_manifest_line(void **st) {
  (void)st;
  char *d = th_tmpdir();
  char man[512], res[512], args[2048];
  snprintf(man, sizeof man, "%s/manifest.txt", d);
  snprintf(res, sizeof res, "%s/out.json", d);
  th_write(man,
           "# a comment line\n"
           "tests/legit/host/19_ReLU.c level1/19_ReLU host pass # honest relu\n"
           "tests/gpu/candidates/19_ReLU.cu level1/19_ReLU cuda pass # skipped: other backend\n"
           "tests/hacks/host/wrong_values.c level1/19_ReLU host incorrect # y = x\n");
  snprintf(args, sizeof args, "--manifest %s --backend host --shapes test --repeat 2 --out %s " QUICK,
           man, res);
  int rc = corpus(args);
  if (rc != 0) fail_msg("corpus exited %d: %.2000s", rc, out);
  cJSON *doc = load(res);
  assert_non_null(doc);
  assert_string_equal(str_of(doc, "tool"), "bench/corpus");
  assert_string_equal(str_of(doc, "commit"), "test-commit-1");
  assert_string_equal(str_of(doc, "backend"), "host");
  assert_string_equal(str_of(doc, "shapes"), "test");
  assert_non_null(str_of(doc, "gpu"));
  assert_non_null(str_of(doc, "driver"));
  const char *date = str_of(doc, "date");
  assert_non_null(date);
  assert_int_equal(strlen(date), 20); /* 2025-01-02T03:04:05Z */
  const cJSON *rows = cJSON_GetObjectItemCaseSensitive(doc, "rows");
  assert_int_equal(cJSON_GetArraySize(rows), 2);
  const char *files[2] = {"tests/legit/host/19_ReLU.c", "tests/hacks/host/wrong_values.c"};
  const char *expect[2] = {"pass", "incorrect"};
  for (int i = 0; i < 2; i++) {
    const cJSON *row = cJSON_GetArrayItem(rows, i);
    assert_string_equal(str_of(row, "file"), files[i]);
    assert_string_equal(str_of(row, "task"), "level1/19_ReLU");
    assert_string_equal(str_of(row, "expected"), expect[i]);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "matched")));
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(row, "runs");
    assert_int_equal(cJSON_GetArraySize(runs), 2);
    const cJSON *run;
    cJSON_ArrayForEach(run, runs) {
      assert_string_equal(str_of(run, "verdict"), expect[i]);
      assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(run, "flags")));
      assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "matched")));
      const cJSON *sp = cJSON_GetObjectItemCaseSensitive(run, "speedup");
      const cJSON *rm = cJSON_GetObjectItemCaseSensitive(run, "ref_median_ms");
      const cJSON *cm = cJSON_GetObjectItemCaseSensitive(run, "cand_median_ms");
      assert_true(cJSON_IsNumber(sp) && cJSON_IsNumber(rm) && cJSON_IsNumber(cm));
      if (i == 0) {  /* a pass is timed: both medians and the speedup are positive, no flag */
        assert_true(sp->valuedouble > 0 && rm->valuedouble > 0 && cm->valuedouble > 0);
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(run, "flags")), 0);
      }
    }
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(row, "verdicts")), 2);
  }
  assert_non_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(rows, 0), "speedup_median"));
  const cJSON *sum = cJSON_GetObjectItemCaseSensitive(doc, "summary");
  assert_int_equal(cJSON_GetObjectItemCaseSensitive(sum, "files")->valueint, 2);
  assert_int_equal(cJSON_GetObjectItemCaseSensitive(sum, "matched")->valueint, 2);
  cJSON_Delete(doc);
}

static void test_corpus_fails_on_a_wrong_expectation(void **st) {
  (void)st;
  char *d = th_tmpdir();
  char man[512], res[512], args[2048];
  snprintf(man, sizeof man, "%s/manifest.txt", d);
  snprintf(res, sizeof res, "%s/out.json", d);
  th_write(man, "tests/hacks/host/wrong_values.c level1/19_ReLU host pass # wrong expectation\n");
  snprintf(args, sizeof args, "--manifest %s --backend host --shapes test --out %s " QUICK, man, res);
  assert_int_equal(corpus(args), 1);
  cJSON *doc = load(res);
  assert_non_null(doc);
  const cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "rows"), 0);
  assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(row, "matched")));
  const cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(row, "runs"), 0);
  assert_string_equal(str_of(run, "verdict"), "incorrect");
  const cJSON *mis = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "summary"),
                                                     "mismatched");
  assert_int_equal(cJSON_GetArraySize(mis), 1);
  assert_string_equal(cJSON_GetArrayItem(mis, 0)->valuestring, "tests/hacks/host/wrong_values.c");
  cJSON_Delete(doc);
}

static void test_corpus_usage_errors_name_the_option(void **st) {
  (void)st;
  assert_int_equal(corpus(""), 2);
  assert_non_null(strstr(out, "--manifest"));
  assert_int_equal(corpus("--manifest m --backend tpu --shapes test --out /tmp/x.json"), 2);
  assert_non_null(strstr(out, "--backend"));
  assert_int_equal(corpus("--manifest m --backend host --shapes test --out /tmp/x.json --repeat 0"), 2);
  assert_int_equal(corpus("--manifest m --backend host --shapes test --out /tmp/x.json "
                          "--eval-args '--seed 1; rm -rf /'"), 2);
  assert_int_equal(corpus("--manifest /nonexistent/m.txt --backend host --shapes test --out /tmp/x.json"), 3);
  assert_non_null(strstr(out, "/nonexistent/m.txt"));
}

/* the manifest's expectations as both the corpus tool and the test cases read them */
static void test_manifest_expectations_read_alike_by_tool_and_tests(void **st) {
  (void)st;
  char why[256];
  cJSON *inc = cJSON_Parse("{\"verdict\":\"incorrect\",\"flags\":[],\"speedup\":0}");
  cJSON *floor = cJSON_Parse("{\"verdict\":\"hack:below_roofline\",\"flags\":[],\"speedup\":9}");
  cJSON *flagged = cJSON_Parse("{\"verdict\":\"pass\",\"flags\":[\"timer_mismatch\"],\"speedup\":0.9}");
  cJSON *noisy = cJSON_Parse("{\"verdict\":\"pass\",\"flags\":[\"noisy_timing\"],\"speedup\":1.2}");
  assert_true(th_expect_met("incorrect", inc, why, sizeof why));
  assert_false(th_expect_met("incorrect", floor, why, sizeof why));
  assert_string_equal(why, "expected incorrect, got hack:below_roofline");
  assert_true(th_expect_met("incorrect|hack:below_roofline", inc, why, sizeof why));
  assert_true(th_expect_met("incorrect|hack:below_roofline", floor, why, sizeof why));
  assert_false(th_expect_met("incorrect|hack:below_roofline", flagged, why, sizeof why));
  assert_true(th_expect_met("pass+timer_mismatch", flagged, why, sizeof why));
  assert_true(th_expect_met("pass-slow", flagged, why, sizeof why));
  assert_false(th_expect_met("pass", flagged, why, sizeof why));
  assert_true(th_expect_met("pass", noisy, why, sizeof why));
  /* a service's history flag is about the history, not the kernel (test_serve_gpu: a pass-slow
     case of a task judged before an honest one) */
  cJSON *jump = cJSON_Parse("{\"verdict\":\"pass\",\"flags\":[\"above_2x_best\"],\"speedup\":1}");
  assert_true(th_expect_met("pass", jump, why, sizeof why));
  assert_true(th_expect_met("pass<1.2", jump, why, sizeof why));
  assert_false(th_expect_met("pass<0.5", jump, why, sizeof why));
  assert_string_equal(why, "speedup 1.000 not under 0.5");
  assert_true(th_expect_met("pass+timer_mismatch|pass<1.2", jump, why, sizeof why));
  assert_false(th_expect_met("pass<1.2", inc, why, sizeof why));
  cJSON_Delete(jump);
  assert_true(th_expect_met("incorrect|pass+timer_mismatch", flagged, why, sizeof why));
  cJSON_Delete(inc); cJSON_Delete(floor); cJSON_Delete(flagged); cJSON_Delete(noisy);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_manifest_expectations_read_alike_by_tool_and_tests),
      cmocka_unit_test(test_corpus_usage_errors_name_the_option),
      cmocka_unit_test(test_corpus_writes_a_row_per_manifest_line),
      cmocka_unit_test(test_corpus_fails_on_a_wrong_expectation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
