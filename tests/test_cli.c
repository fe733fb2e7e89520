/* test_cli.c — the command line as a user meets it: help texts, usage errors with exit 2 and a
 * message naming the flag or file, `task check` on good and bad files, `suite list/show`, and
 * `eval --device cuda` on a machine without a GPU: one line saying so, exit 3. */
#include "harness.h"

static char out[1 << 16];

static int cli(const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s/cudal1 %s 2>&1", th_build(), args);
  return th_run(cmd, out, sizeof out);
}

static void test_help(void **st) {
  (void)st;
  assert_int_equal(cli("--help"), 0);
  assert_non_null(strstr(out, "eval"));
  assert_int_equal(cli("eval --help"), 0);
  assert_non_null(strstr(out, "--solution"));
  assert_non_null(strstr(out, "--warm-cache"));
  assert_int_equal(cli(""), 2);
  assert_int_equal(cli("frobnicate"), 2);
  assert_non_null(strstr(out, "unknown command 'frobnicate'"));
}

static void test_eval_usage_errors(void **st) {
  (void)st;
  assert_int_equal(cli("eval --task level1/19_ReLU"), 2);
  assert_non_null(strstr(out, "--solution"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution x.c --device host --shapes huge"), 2);
  assert_non_null(strstr(out, "--shapes"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution x.c --device tpu"), 2);
  assert_non_null(strstr(out, "--device"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution /nonexistent/s.c --device host"), 2);
  assert_non_null(strstr(out, "/nonexistent/s.c"));
  assert_int_equal(cli("eval --task level9/nothing --solution x.c --device host"), 2);
  assert_non_null(strstr(out, "level9/nothing"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution tests/legit/host/19_ReLU.c --device cuda"), 2);
  assert_non_null(strstr(out, ".cu"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution x.c --min-trials abc"), 2);
  assert_non_null(strstr(out, "--min-trials"));
  assert_int_equal(cli("eval --task level1/19_ReLU --solution x.c --time-sets 9"), 2);
  assert_non_null(strstr(out, "--time-sets"));
}

static void test_task_check(void **st) {
  (void)st;
  assert_int_equal(cli("task check suite/level1/19_ReLU"), 0);
  assert_non_null(strstr(out, "ok level1/19_ReLU"));
  char *d = th_tmpdir();
  char p[512];
  snprintf(p, sizeof p, "%s/task.json", d);
  th_write(p, "{\"name\": \"1_x\", \"level\": 1, \"number\": 1, \"description\": \"d\", "
              "\"dims\": {\"test\": {\"N\": 1}, \"small\": {\"N\": 2}, \"large\": {\"N\": 3}}, "
              "\"inputs\": [], \"outputs\": [{\"name\": \"y\", \"dtype\": \"f99\", \"shape\": [\"N\"]}]}");
  char args[600];
  snprintf(args, sizeof args, "task check %s", d);
  assert_int_equal(cli(args), 2);
  assert_non_null(strstr(out, "outputs[0].dtype"));
  assert_non_null(strstr(out, "task.json"));
}

static void test_suite_list_show(void **st) {
  (void)st;
  assert_int_equal(cli("suite list"), 0);
  assert_non_null(strstr(out, "level1/19_ReLU"));
  assert_non_null(strstr(out, "level2/76_Gemm_Add_ReLU"));
  assert_int_equal(cli("suite list --level 2"), 0);
  assert_null(strstr(out, "level1/19_ReLU"));
  assert_int_equal(cli("suite show level1/23_Softmax"), 0);
  assert_non_null(strstr(out, "small:"));
  assert_non_null(strstr(out, "large:"));
  assert_int_equal(cli("suite show nothing_here"), 2);
}

static void test_no_gpu_is_infra_error(void **st) {
  (void)st;
  if (access("/dev/nvidia0", F_OK) == 0) skip(); /* this test is for machines without a GPU */
  int rc = cli("eval --task level1/19_ReLU --solution tests/gpu/candidates/19_ReLU.cu --shapes test");
  assert_int_equal(rc, 3);
  assert_non_null(strstr(out, "no CUDA GPU"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help), cmocka_unit_test(test_eval_usage_errors),
      cmocka_unit_test(test_task_check), cmocka_unit_test(test_suite_list_show),
      cmocka_unit_test(test_no_gpu_is_infra_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
