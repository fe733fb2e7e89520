/* test_audit.c — `cudal1 suite audit` on the host backend: a task whose output is identically
 * zero (level2/80: x - mean over a dim of size 1) and one whose output is a constant (level2/23:
 * the mean of a GroupNorm output with zero bias) are flagged, real work (ReLU, matmul) is not;
 * the JSON says which test fired; --apply writes the note into a copy of the task and keeps the
 * file loadable, and leaves a task with a hand-written note alone; bad flags exit 2. */
#include "harness.h"
#include <cjson/cJSON.h>
#include "eval/audit.h"

static char out[1 << 16];

static int cli(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s/cudal1 suite audit %s 2>&1", th_build(), args);
  return th_run(cmd, out, sizeof out);
}

static void test_audit_flags_degenerate_outputs(void **st) {
  (void)st;
  cl1_audit_result r;
  cl1_err err = {{0}};
  assert_int_equal(cl1_audit_task("level2/80_Gemm_Max_Subtract_GELU", "test", "host", &r, &err), 0);
  assert_true(r.degenerate);
  assert_true(r.out[0].zero_passes);
  assert_non_null(strstr(r.note, "all zeros pass"));
  assert_int_equal(cl1_audit_task("level2/23_Conv3d_GroupNorm_Mean", "test", "host", &r, &err), 0);
  assert_true(r.degenerate);
  assert_true(r.out[0].constant);
  assert_false(r.out[0].zero_passes);
  assert_int_equal(cl1_audit_task("level1/19_ReLU", "test", "host", &r, &err), 0);
  assert_false(r.degenerate);
  assert_true(r.out[0].zero_share > 0.3 && r.out[0].zero_share < 0.7); /* relu of normal(0, 1) */
  assert_int_equal(cl1_audit_task("level1/1_Square_matrix_multiplication_", "test", "host", &r, &err), 0);
  assert_false(r.degenerate);
  assert_int_not_equal(cl1_audit_task("level1/19_ReLU", "medium", "host", &r, &err), 0);
  assert_non_null(strstr(err.msg, "'medium'"));
}

/* The copy of a task without its "degenerate" note (the suite's own copy carries one). */
static void strip_note(const char *d, const char *name) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s/task.json", d, name);
  FILE *f = fopen(p, "r");
  assert_non_null(f);
  static char js[1 << 16];
  size_t n = fread(js, 1, sizeof js - 1, f);
  fclose(f);
  js[n] = 0;
  cJSON *doc = cJSON_Parse(js);
  assert_non_null(doc);
  cJSON_DeleteItemFromObjectCaseSensitive(doc, "degenerate");
  char *s = cJSON_Print(doc);
  assert_int_equal(th_write(p, s), 0);
  free(s);
  cJSON_Delete(doc);
}

static void test_cli_json_and_apply(void **st) {
  (void)st;
  char *d = th_tmpdir(), cmd[2048], args[2048];
  snprintf(cmd, sizeof cmd, "cp -r suite/level2/80_Gemm_Max_Subtract_GELU %s/t80 && "
           "cp -r suite/level1/19_ReLU %s/t19", d, d);
  assert_int_equal(th_run(cmd, NULL, 0), 0);
  strip_note(d, "t80");
  snprintf(args, sizeof args, "--device host %s/t80 %s/t19 --json %s/a.json --apply", d, d, d);
  assert_int_equal(cli(args), 0);
  assert_non_null(strstr(out, "degenerate level2/80_Gemm_Max_Subtract_GELU"));
  assert_non_null(strstr(out, "[note added]"));
  assert_non_null(strstr(out, "ok level1/19_ReLU"));
  assert_non_null(strstr(out, "audit: 2 tasks, 1 degenerate, 0 errors"));
  /* the note is in the copy's task.json, which still loads */
  snprintf(cmd, sizeof cmd, "%s/cudal1 suite show %s/t80", th_build(), d);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "degenerate: audit (test, host): output 'y' is so small"));
  /* a second run keeps the (now existing) note and adds nothing */
  assert_int_equal(cli(args), 0);
  assert_non_null(strstr(out, "[noted]"));
  snprintf(cmd, sizeof cmd, "grep -c degenerate %s/t80/task.json", d);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_int_equal(atoi(out), 1);
  snprintf(cmd, sizeof cmd, "%s/a.json", d);
  FILE *f = fopen(cmd, "r");
  assert_non_null(f);
  static char js[1 << 16];
  size_t n = fread(js, 1, sizeof js - 1, f);
  fclose(f);
  js[n] = 0;
  cJSON *doc = cJSON_Parse(js);
  assert_non_null(doc);
  cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "tasks"), 0);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(row, "degenerate")));
  cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItem(row, "outputs"), 0);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "zero_passes")));
  cJSON_Delete(doc);
}

static void test_audit_cli_usage_errors_stop_before_auditing(void **st) {
  (void)st;
  assert_int_equal(cli("--device tpu"), 2);
  assert_non_null(strstr(out, "--device: expected cuda or host"));
  assert_int_equal(cli("--device host --shapes huge level1/19_ReLU"), 2);
  assert_non_null(strstr(out, "--shapes"));
  /* an unknown task stops the audit before it starts on the others */
  assert_int_equal(cli("--device host level1/19_ReLU level9/nothing"), 2);
  assert_non_null(strstr(out, "cudal1 suite audit: no task 'level9/nothing'"));
  assert_null(strstr(out, "ok level1/19_ReLU"));
  assert_int_equal(cli("--frob"), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_audit_flags_degenerate_outputs),
      cmocka_unit_test(test_cli_json_and_apply),
      cmocka_unit_test(test_audit_cli_usage_errors_stop_before_auditing),
  };
  return cmocka_run_group_tests_name("audit", tests, NULL, NULL);
}
