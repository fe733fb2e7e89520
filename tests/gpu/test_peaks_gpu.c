/* test_peaks_gpu.c — `cudal1 gpu peaks` on a GPU: plausible ceilings (the copy between 0.5 and
 * 20 TB/s; FP32 < TF32 < BF16 matmul rates, each above 5 TFLOP/s), cached on the second call. */
#include "../harness.h"
#include <cjson/cJSON.h>

static cJSON *run_peaks(const char *cache, const char *extra) {
  char cmd[800], out[4096];
  snprintf(cmd, sizeof cmd, "%s/cudal1 gpu peaks --json --cache %s %s", th_build(), cache, extra);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = 0;
  assert_int_equal(WEXITSTATUS(pclose(p)), 0);
  fprintf(stderr, "%s", out);
  cJSON *j = cJSON_Parse(out);
  assert_non_null(j);
  return j;
}

static double num(const cJSON *j, const char *k) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, k);
  assert_true(cJSON_IsNumber(x));
  return x->valuedouble;
}

static void test_peaks_measured_plausibly_then_cached(void **st) {
  (void)st;
  const char *cache = th_tmpdir();
  cJSON *a = run_peaks(cache, "--force");
  assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "cached")));
  double bw = num(a, "copy_bytes_per_s"), f32 = num(a, "fp32_flops"), t32 = num(a, "tf32_flops"),
         b16 = num(a, "bf16_flops");
  assert_true(bw > 5e11 && bw < 2e13);
  assert_true(f32 > 5e12 && t32 > f32 && b16 > t32);
  cJSON *b = run_peaks(cache, "");
  assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "cached")));
  assert_true(num(b, "bf16_flops") == b16);
  cJSON_Delete(a);
  cJSON_Delete(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_peaks_measured_plausibly_then_cached)};
  return cmocka_run_group_tests_name("peaks_gpu", tests, NULL, NULL);
}
