/* test_reward.c — reward shaping beyond the unit formulas (test_eval_units.c): the log reward
 * never drops below a failure, the running per-task statistics file (create, update, best,
 * malformed files named with their field), a stats file driving `cudal1 eval`, and the GPU peaks
 * cache with its roofline floor. */
#include "harness.h"
#include <math.h>
#include "peaks/peaks.h"
#include "eval/reward.h"

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void test_log_reward_above_floor(void **st) {
  (void)st;
  cl1_reward_cfg c;
  cl1_reward_cfg_default(&c);
  c.log_speedup = true;
  bool valid;
  double fail = cl1_reward_raw(&c, "incorrect", 0, &valid);
  assert_true(fabs(cl1_reward_raw(&c, "pass", 2.0, &valid) - log(2.0)) < 1e-12);
  /* 1e-6x is ln = -13.8: still above a failure */
  assert_true(cl1_reward_raw(&c, "pass", 1e-6, &valid) > fail);
  assert_true(cl1_reward_raw(&c, "hack:unstable", 5, &valid) < fail);
}

static void test_stats_file_running(void **st) {
  (void)st;
  char path[300];
  snprintf(path, sizeof path, "%s/stats.json", th_tmpdir());
  cl1_reward_cfg c;
  cl1_reward_cfg_default(&c);
  cl1_err err = {{0}};
  cl1_reward_stats s;
  double best = -1, norm = 0;
  /* absent task in an absent file: zeros, and the file is created */
  assert_int_equal(cl1_reward_file_get(path, "level1/19_ReLU", &s, &best, &err), 0);
  assert_int_equal(s.n, 0);
  assert_true(best == 0);
  /* speedups 1, 2, 3: the third is normalised against mean 1.5, sd 0.707 -> clipped to 1.5 */
  assert_int_equal(cl1_reward_file_record(path, "level1/19_ReLU", &c, "pass", 1.0, &norm, &err), 0);
  assert_int_equal(cl1_reward_file_record(path, "level1/19_ReLU", &c, "pass", 2.0, &norm, &err), 0);
  assert_true(fabs(norm - 1.0) < 1e-12); /* one sample: r - mu alone */
  assert_int_equal(cl1_reward_file_record(path, "level1/19_ReLU", &c, "pass", 3.0, &norm, &err), 0);
  assert_true(fabs(norm - 1.5) < 1e-12);
  /* a failure earns the floor and does not join the statistics */
  assert_int_equal(cl1_reward_file_record(path, "level1/19_ReLU", &c, "incorrect", 0, &norm, &err), 0);
  assert_true(norm == c.floor);
  assert_int_equal(cl1_reward_file_get(path, "level1/19_ReLU", &s, &best, &err), 0);
  assert_int_equal(s.n, 3);
  assert_true(fabs(s.mean - 2.0) < 1e-12);
  assert_true(fabs(s.m2 - 2.0) < 1e-12);
  assert_true(best == 3.0);
  /* another task is independent */
  assert_int_equal(cl1_reward_file_get(path, "level1/23_Softmax", &s, &best, &err), 0);
  assert_int_equal(s.n, 0);
}

static void test_stats_file_malformed(void **st) {
  (void)st;
  char path[300];
  snprintf(path, sizeof path, "%s/bad.json", th_tmpdir());
  cl1_reward_stats s;
  double best, norm;
  cl1_reward_cfg c;
  cl1_reward_cfg_default(&c);
  cl1_err err = {{0}};
  write_text(path, "[1, 2]");
  assert_int_equal(cl1_reward_file_get(path, "t", &s, &best, &err), -1);
  assert_non_null(strstr(err.msg, "bad.json"));
  write_text(path, "{\"tasks\": {\"t\": {\"n\": \"three\", \"mean\": 0, \"m2\": 0, \"best_speedup\": 0}}}");
  assert_int_equal(cl1_reward_file_get(path, "t", &s, &best, &err), -1);
  assert_non_null(strstr(err.msg, "tasks.t.n"));
  /* a malformed file is never overwritten by a record */
  assert_int_equal(cl1_reward_file_record(path, "t", &c, "pass", 2.0, &norm, &err), -1);
  FILE *f = fopen(path, "r");
  char buf[256] = "";
  assert_non_null(fgets(buf, sizeof buf, f));
  fclose(f);
  assert_non_null(strstr(buf, "three"));
}

/* The CLI: a host evaluation with --reward-stats reports the normalised reward and updates the
 * file; a malformed file stops it with exit 2 naming the file. */
static void test_eval_with_stats(void **st) {
  (void)st;
  char path[300], cmd[1200], out[8192];
  snprintf(path, sizeof path, "%s/stats.json", th_tmpdir());
  snprintf(cmd, sizeof cmd, "%s/cudal1 eval --task level1/19_ReLU --solution "
           "tests/legit/host/19_ReLU.c --device host --shapes test --json --reward-stats %s",
           th_build(), path);
  FILE *p = popen(cmd, "r");
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = 0;
  assert_int_equal(WEXITSTATUS(pclose(p)), 0);
  assert_non_null(strstr(out, "\"reward_normalized\""));
  cl1_reward_stats s;
  double best;
  cl1_err err = {{0}};
  assert_int_equal(cl1_reward_file_get(path, "level1/19_ReLU", &s, &best, &err), 0);
  assert_int_equal(s.n, 1);
  assert_true(best > 0);
  write_text(path, "not json");
  snprintf(cmd, sizeof cmd, "%s/cudal1 eval --task level1/19_ReLU --solution "
           "tests/legit/host/19_ReLU.c --device host --shapes test --reward-stats %s 2>&1",
           th_build(), path);
  p = popen(cmd, "r");
  n = fread(out, 1, sizeof out - 1, p);
  out[n] = 0;
  assert_int_equal(WEXITSTATUS(pclose(p)), 2);
  assert_non_null(strstr(out, path));
}

static void test_peaks_cache(void **st) {
  (void)st;
  const char *dir = th_tmpdir();
  char path[400];
  cl1_err err = {{0}};
  assert_int_equal(cl1_peaks_path(dir, "NVIDIA H200", path, sizeof path, &err), 0);
  assert_non_null(strstr(path, "/peaks/NVIDIA_H200.json"));
  cl1_peaks p, q;
  assert_int_equal(cl1_peaks_load(path, &p, &err), 1); /* none yet */
  memset(&p, 0, sizeof p);
  snprintf(p.device, sizeof p.device, "NVIDIA H200");
  p.copy_bps = 4.0e12, p.fp32_flops = 5.0e13, p.tf32_flops = 4.0e14, p.bf16_flops = 7.0e14;
  p.gemm_n = 8192;
  assert_int_equal(cl1_peaks_save(path, &p, &err), 0);
  assert_int_equal(cl1_peaks_load(path, &q, &err), 0);
  assert_string_equal(q.device, "NVIDIA H200");
  assert_true(q.bf16_flops == 7.0e14 && q.gemm_n == 8192);
  /* floor: the larger of bytes / bandwidth and FLOPs / the fastest rate */
  assert_true(fabs(cl1_peaks_floor_ms(&q, 0, 4.0e9) - 1.0) < 1e-9);
  assert_true(fabs(cl1_peaks_floor_ms(&q, 7.0e11, 4.0e6) - 1.0) < 1e-9);
  assert_true(cl1_peaks_floor_ms(&q, 0, 0) == 0);
  write_text(path, "{\"device\": \"x\", \"copy_bytes_per_s\": -1}");
  assert_int_equal(cl1_peaks_load(path, &q, &err), -1);
  assert_non_null(strstr(err.msg, "copy_bytes_per_s"));
}

/* Without a GPU, `cudal1 gpu peaks` says so in one line with exit 3. */
static void test_peaks_cli_no_gpu(void **st) {
  (void)st;
  if (access("/dev/nvidia0", F_OK) == 0) skip();
  char cmd[600], out[2048];
  snprintf(cmd, sizeof cmd, "%s/cudal1 gpu peaks 2>&1", th_build());
  FILE *p = popen(cmd, "r");
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = 0;
  assert_int_equal(WEXITSTATUS(pclose(p)), 3);
  assert_non_null(strstr(out, "no CUDA GPU"));
  snprintf(cmd, sizeof cmd, "%s/cudal1 gpu bogus 2>&1", th_build());
  p = popen(cmd, "r");
  n = fread(out, 1, sizeof out - 1, p);
  assert_int_equal(WEXITSTATUS(pclose(p)), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_log_reward_above_floor), cmocka_unit_test(test_stats_file_running),
      cmocka_unit_test(test_stats_file_malformed),   cmocka_unit_test(test_eval_with_stats),
      cmocka_unit_test(test_peaks_cache),            cmocka_unit_test(test_peaks_cli_no_gpu),
  };
  return cmocka_run_group_tests_name("reward", tests, NULL, NULL);
}
