/* test_infra.c — the evaluator on any machine (issue 17): the last-level cache read from sysfs
 * (a fake tree stands for a machine whose cache is huge or oddly described), the candidate's
 * memory budget measured from what the harness holds, and every failure of the machine or the
 * harness reported as infra_error (exit 3), never as the candidate's crash. */
#include "harness.h"
#include <cjson/cJSON.h>
#include <sys/stat.h>
#include "base/llc.h"

/* A fake /sys with cpu0's caches: each spec "level type size shared" becomes indexN/. */
static char *fake_sysfs(int n, const char *const specs[]) {
  char *root = th_tmpdir();
  assert_non_null(root);
  for (int i = 0; i < n; i++) {
    char dir[512], path[600], level[8], type[32], size[32], shared[32];
    assert_int_equal(sscanf(specs[i], "%7s %31s %31s %31s", level, type, size, shared), 4);
    snprintf(dir, sizeof dir, "%s/devices/system/cpu/cpu0/cache/index%d", root, i);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    assert_int_equal(system(cmd), 0);
    const char *names[4] = {"level", "type", "size", "shared_cpu_list"};
    const char *vals[4] = {level, type, size, shared};
    for (int k = 0; k < 4; k++) {
      char v[64];
      snprintf(path, sizeof path, "%s/%s", dir, names[k]);
      snprintf(v, sizeof v, "%s\n", vals[k]);
      assert_int_equal(th_write(path, v), 0);
    }
  }
  return root;
}

static void test_parse_size(void **s) {
  (void)s;
  assert_int_equal(cl1_llc_parse_size("32K"), 32 * 1024);
  assert_int_equal(cl1_llc_parse_size("32768K\n"), (size_t)32 << 20);
  assert_int_equal(cl1_llc_parse_size("96M"), (size_t)96 << 20);
  assert_int_equal(cl1_llc_parse_size("1024"), 1024);
  assert_int_equal(cl1_llc_parse_size(""), 0);
  assert_int_equal(cl1_llc_parse_size("K"), 0);
  assert_int_equal(cl1_llc_parse_size("12Q"), 0);
  assert_int_equal(cl1_llc_parse_size(NULL), 0);
}

/* The highest data/unified level wins, instruction caches never; the flush is capped. */
static void test_llc_from_sysfs(void **s) {
  (void)s;
  const char *specs[] = {"1 Data 32K 0", "1 Instruction 32K 0", "2 Unified 1024K 0",
                         "3 Unified 1048576K 0-1"};
  char *root = fake_sysfs(4, specs);
  cl1_llc l;
  cl1_llc_read(root, &l);
  assert_int_equal(l.bytes, (size_t)1 << 30);
  assert_int_equal(l.level, 3);
  assert_int_equal(l.flush_bytes, CL1_LLC_FLUSH_MAX);
  assert_non_null(strstr(l.source, "sysfs L3"));
  assert_non_null(strstr(l.source, "0-1"));
  /* an ordinary cache: twice its size, no cap */
  const char *small[] = {"2 Unified 512K 0", "3 Unified 32768K 0-1"};
  cl1_llc_read(fake_sysfs(2, small), &l);
  assert_int_equal(l.bytes, (size_t)32 << 20);
  assert_int_equal(l.flush_bytes, (size_t)64 << 20);
  /* an instruction cache is never the last level, however large */
  const char *odd[] = {"2 Unified 2048K 0", "3 Instruction 65536K 0"};
  cl1_llc_read(fake_sysfs(2, odd), &l);
  assert_int_equal(l.bytes, (size_t)2 << 20);
  assert_int_equal(l.level, 2);
}

/* No cache in sysfs: sysconf or the default, said in the source; the cap holds either way. */
static void test_llc_fallback(void **s) {
  (void)s;
  cl1_llc l;
  cl1_llc_read(th_tmpdir(), &l);
  assert_true(l.bytes > 0);
  assert_int_equal(l.level, 0);
  assert_true(!strncmp(l.source, "sysconf", 7) || !strncmp(l.source, "default", 7));
  assert_true(l.flush_bytes <= CL1_LLC_FLUSH_MAX);
}

/* Runs `cudal1 eval --json` on the host with env prefixed; the parsed result (or fails). */
static cJSON *eval_json(const char *env, const char *solution, const char *extra, int *status) {
  static char out[1 << 18];
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "%s %s/cudal1 eval --task level1/19_ReLU --solution %s --device host --shapes test "
           "--json --min-trials 10 --max-trials 30 --time-budget 0.3 %s 2>/dev/null",
           env, th_build(), solution, extra);
  *status = th_run(cmd, out, sizeof out);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("no JSON from `%s` (exit %d): %.400s", cmd, *status, out);
  return j;
}

static const char *jstr(const cJSON *j, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
  return cJSON_IsString(v) ? v->valuestring : "";
}
static double jnum(const cJSON *j, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* The regression: a machine whose last-level cache reads 1 GiB. The flush is capped and the
 * candidate's budget does not shrink with it: an honest candidate passes (before the fix, glibc's
 * 384 MB on a CI VM made every host evaluation "crash": failed to map segment). */
static void test_huge_cache_passes(void **s) {
  (void)s;
  const char *specs[] = {"2 Unified 1024K 0", "3 Unified 1048576K 0-1"};
  char env[600];
  snprintf(env, sizeof env, "CUDAL1_SYSFS_ROOT=%s", fake_sysfs(2, specs));
  int st;
  cJSON *j = eval_json(env, "tests/legit/host/19_ReLU.c", "", &st);
  if (strcmp(jstr(j, "verdict"), "pass")) fail_msg("verdict %s: %s", jstr(j, "verdict"), jstr(j, "message"));
  assert_int_equal(st, 0);
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "machine");
  assert_non_null(m);
  assert_true(jnum(m, "cache_bytes") == (double)(1 << 30));
  assert_true(jnum(m, "flush_bytes") == (double)CL1_LLC_FLUSH_MAX);
  assert_non_null(strstr(jstr(m, "cache_source"), "sysfs L3"));
  cJSON_Delete(j);
}

/* The budget is the harness's own address space plus the allowance, exactly. */
static void test_budget_from_base(void **s) {
  (void)s;
  int st;
  cJSON *j = eval_json("", "tests/legit/host/19_ReLU.c", "--mem-allowance 700", &st);
  assert_string_equal(jstr(j, "verdict"), "pass");
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "machine");
  double base = jnum(m, "cand_vm_base_bytes"), lim = jnum(m, "cand_as_limit_bytes");
  assert_true(base > 0);
  assert_true(lim - base == 700.0 * 1048576);
  cJSON_Delete(j);
}

/* A solution that passed the gate but cannot be mapped under the budget (made too small on
 * purpose) is the harness's failure: infra_error, exit 3, the loader's reason in the message. */
static void test_unmappable_is_infra(void **s) {
  (void)s;
  int st;
  cJSON *j = eval_json("", "tests/infra/big_static.c", "--mem-allowance 64", &st);
  assert_string_equal(jstr(j, "verdict"), "infra_error");
  assert_int_equal(st, 3);
  assert_non_null(strstr(jstr(j, "message"), "not the candidate's fault"));
  assert_non_null(strstr(jstr(j, "message"), "cannot load the solution"));
  cJSON_Delete(j);
  /* with the default budget the same solution passes */
  j = eval_json("", "tests/infra/big_static.c", "", &st);
  if (strcmp(jstr(j, "verdict"), "pass")) fail_msg("verdict %s: %s", jstr(j, "verdict"), jstr(j, "message"));
  cJSON_Delete(j);
}

/* Over the gate's segment limit: the candidate's own doing, refused before it runs. */
static void test_huge_static_rejected(void **s) {
  (void)s;
  int st;
  cJSON *j = eval_json("", "tests/infra/huge_static.c", "", &st);
  assert_string_equal(jstr(j, "verdict"), "rejected:size");
  assert_int_equal(st, 1);
  assert_non_null(strstr(jstr(j, "message"), "320 MiB"));
  cJSON_Delete(j);
}

/* The device fails under both workers mid-verification (as when a GPU falls off the bus): the
 * candidate's failed call is not its fault. */
static void test_device_lost_is_infra(void **s) {
  (void)s;
  int st;
  cJSON *j = eval_json("CUDAL1_FAULT=device_lost@2", "tests/legit/host/19_ReLU.c", "", &st);
  assert_string_equal(jstr(j, "verdict"), "infra_error");
  assert_int_equal(st, 3);
  assert_non_null(strstr(jstr(j, "message"), "device lost"));
  assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "reward"))); /* no signal */
  assert_non_null(strstr(jstr(j, "message"), "not the candidate"));
  cJSON_Delete(j);
}

/* The worker program cannot be started at all. */
static void test_worker_missing_is_infra(void **s) {
  (void)s;
  int st;
  cJSON *j = eval_json("CUDAL1_WORKER=/nonexistent/cudal1", "tests/legit/host/19_ReLU.c", "", &st);
  assert_string_equal(jstr(j, "verdict"), "infra_error");
  assert_int_equal(st, 3);
  assert_non_null(strstr(jstr(j, "message"), "cannot start the worker program /nonexistent/cudal1"));
  cJSON_Delete(j);
}

/* And a candidate that crashes on a healthy machine is still the candidate's crash. */
static void test_candidate_crash_stays_crash(void **s) {
  (void)s;
  int st;
  cJSON *j = eval_json("", "tests/hacks/host/segfault.c", "", &st);
  assert_string_equal(jstr(j, "verdict"), "crash");
  assert_int_equal(st, 1);
  cJSON_Delete(j);
}

int main(void) {
  const struct CMUnitTest t[] = {
      cmocka_unit_test(test_parse_size),           cmocka_unit_test(test_llc_from_sysfs),
      cmocka_unit_test(test_llc_fallback),         cmocka_unit_test(test_huge_cache_passes),
      cmocka_unit_test(test_budget_from_base),     cmocka_unit_test(test_unmappable_is_infra),
      cmocka_unit_test(test_huge_static_rejected), cmocka_unit_test(test_device_lost_is_infra),
      cmocka_unit_test(test_worker_missing_is_infra),
      cmocka_unit_test(test_candidate_crash_stays_crash),
  };
  return cmocka_run_group_tests(t, NULL, NULL);
}
