/* test_eval_options.c — the evaluation options `cudal1 eval` and `cudal1 optimize` share
 * (src/cli/cli_evalopts.c) behave as one definition: both commands refuse the same out-of-range
 * values with the same message naming the option, accept the same in-range ones, and list the
 * same line for each in --help. Runs the built binary; nothing is evaluated. */
#include "harness.h"

static char out[1 << 16];

/* Arguments before the option under test that get each command past its own requirements. */
static const char *const prefix[2] = {
    "eval --task level1/19_ReLU --solution x.c",
    "optimize --task level1/19_ReLU --backend replay --replay x.jsonl"};
static const char *const name[2] = {"eval", "optimize"};

static int cli(const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s/cudal1 %s 2>&1", th_build(), args);
  return th_run(cmd, out, sizeof out);
}

/* The output with "cudal1 CMD: " taken out wherever it appears. */
static void without_command(const char *cmd, char *dst, size_t cap) {
  char tag[64];
  snprintf(tag, sizeof tag, "cudal1 %s: ", cmd);
  size_t k = 0;
  for (const char *p = out; *p && k + 1 < cap;) {
    if (!strncmp(p, tag, strlen(tag))) { p += strlen(tag); continue; }
    dst[k++] = *p++;
  }
  dst[k] = 0;
}

static void test_both_commands_refuse_the_same_values_with_the_same_message(void **st) {
  (void)st;
  static const char *const bad[][2] = {
      {"--min-trials", "4"},     {"--min-trials", "4097"},  {"--min-trials", "abc"},
      {"--min-trials", "100000"}, {"--max-trials", "4"},    {"--max-trials", "4097"},
      {"--time-budget", "0"},    {"--time-budget", "3601"}, {"--time-budget", "-1"},
      {"--device", "tpu"},       {"--shapes", "huge"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    static char said[2][1024];
    for (int c = 0; c < 2; c++) {
      char args[512];
      snprintf(args, sizeof args, "%s %s %s", prefix[c], bad[i][0], bad[i][1]);
      int rc = cli(args);
      if (rc != 2 || !strstr(out, bad[i][0]) || !strstr(out, bad[i][1]))
        fail_msg("cudal1 %s: exit %d, expected 2 naming %s and '%s': %s", args, rc, bad[i][0],
                 bad[i][1], out);
      without_command(name[c], said[c], sizeof said[c]);
    }
    if (strcmp(said[0], said[1]))
      fail_msg("%s %s: eval said '%s', optimize said '%s'", bad[i][0], bad[i][1], said[0], said[1]);
  }
}

static void test_both_commands_accept_the_same_values(void **st) {
  (void)st;
  static const char *const good[][2] = {
      {"--min-trials", "5"},   {"--min-trials", "4096"},  {"--max-trials", "5"},
      {"--max-trials", "4096"}, {"--time-budget", "0.01"}, {"--time-budget", "3600"},
      {"--device", "host"},    {"--device", "cuda"},      {"--shapes", "test"},
      {"--shapes", "large"}};
  for (size_t i = 0; i < sizeof good / sizeof *good; i++)
    for (int c = 0; c < 2; c++) {
      /* accepted, the parser goes on to the next argument, which it does not know */
      char args[512];
      snprintf(args, sizeof args, "%s %s %s --zzz-unknown", prefix[c], good[i][0], good[i][1]);
      int rc = cli(args);
      if (rc != 2 || !strstr(out, "unknown option '--zzz-unknown'"))
        fail_msg("cudal1 %s: exit %d: %s", args, rc, out);
    }
}

static void test_a_shared_option_without_its_value_is_said_alike(void **st) {
  (void)st;
  for (int c = 0; c < 2; c++) {
    char args[512], want[128];
    snprintf(args, sizeof args, "%s --max-trials", prefix[c]);
    assert_int_equal(cli(args), 2);
    snprintf(want, sizeof want, "cudal1 %s: --max-trials needs a value", name[c]);
    if (!strstr(out, want)) fail_msg("cudal1 %s: %s", args, out);
  }
}

/* The line of out that starts with "  OPT " (NULL if none), copied into line. */
static const char *help_line(const char *opt, char *line, size_t cap) {
  char key[64];
  snprintf(key, sizeof key, "\n  %s ", opt);
  const char *p = strstr(out, key);
  if (!p) return NULL;
  p += 1;
  size_t k = 0;
  while (p[k] && p[k] != '\n' && k + 1 < cap) line[k] = p[k], k++;
  line[k] = 0;
  return line;
}

static void test_help_of_both_lists_the_shared_options_alike(void **st) {
  (void)st;
  static const char *const shared[] = {"--device", "--shapes", "--min-trials", "--max-trials",
                                       "--time-budget"};
  static char lines[2][5][256];
  for (int c = 0; c < 2; c++) {
    char args[64];
    snprintf(args, sizeof args, "%s --help", name[c]);
    assert_int_equal(cli(args), 0);
    assert_non_null(strstr(out, "(shared with cudal1"));
    for (int i = 0; i < 5; i++)
      if (!help_line(shared[i], lines[c][i], sizeof lines[c][i]))
        fail_msg("cudal1 %s --help does not list %s:\n%s", name[c], shared[i], out);
  }
  for (int i = 0; i < 5; i++) assert_string_equal(lines[0][i], lines[1][i]);
  /* the range and the default are said where the option is */
  assert_non_null(strstr(lines[0][2], "5-4096, default 30"));
  assert_non_null(strstr(lines[0][3], "5-4096, default 500"));
  assert_non_null(strstr(lines[0][4], "0.01-3600, default 2"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_both_commands_refuse_the_same_values_with_the_same_message),
      cmocka_unit_test(test_both_commands_accept_the_same_values),
      cmocka_unit_test(test_a_shared_option_without_its_value_is_said_alike),
      cmocka_unit_test(test_help_of_both_lists_the_shared_options_alike),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
