/* test_embed.c — src/eval/embed.h on the host backend, as tools/suite_gpu.py drives it: a task
 * opened at test shapes describes itself, generates the same inputs as the evaluator's rule
 * (params seed, inputs seed + 1: two seeds give different values, one seed the same), runs its
 * reference on caller memory (ReLU: y == max(x, 0) exactly), and every misuse is an error with
 * a sentence, never a crash. */
#include "harness.h"
#include <cjson/cJSON.h>
#include "eval/embed.h"

static void test_relu_roundtrip(void **st) {
  (void)st;
  char err[1024] = "";
  cl1_embed *e = cl1_embed_open("level1/19_ReLU", "test", "host", err, sizeof err);
  if (!e) fail_msg("open: %s", err);
  cJSON *d = cJSON_Parse(cl1_embed_describe(e));
  assert_non_null(d);
  cJSON *in0 = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "inputs"), 0);
  size_t bytes = (size_t)cJSON_GetObjectItem(in0, "bytes")->valuedouble;
  assert_string_equal(cJSON_GetObjectItem(in0, "dtype")->valuestring, "f32");
  assert_true(bytes >= 4 && bytes % 4 == 0);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "outputs")), 1);
  cJSON_Delete(d);
  size_t n = bytes / 4;
  float *x = malloc(bytes), *x2 = malloc(bytes), *y = malloc(bytes);
  assert_int_equal(cl1_embed_gen(e, 0, 0, x, 7), 0);
  assert_int_equal(cl1_embed_gen(e, 0, 0, x2, 7), 0);
  assert_memory_equal(x, x2, bytes);                     /* one seed, one tensor */
  assert_int_equal(cl1_embed_gen(e, 0, 0, x2, 8), 0);
  assert_memory_not_equal(x, x2, bytes);
  void *outs[1] = {y}, *ins[1] = {x};
  assert_int_not_equal(cl1_embed_forward(e, ins), 0);   /* before setup */
  assert_non_null(strstr(cl1_embed_error(e), "setup"));
  assert_int_equal(cl1_embed_setup(e, NULL, outs, NULL), 0);
  assert_int_equal(cl1_embed_forward(e, ins), 0);
  assert_int_equal(cl1_embed_sync(e), 0);
  int neg = 0;
  for (size_t i = 0; i < n; i++) {
    assert_true(y[i] == (x[i] > 0 ? x[i] : 0.f));
    neg += x[i] < 0;
  }
  assert_true(neg > 0 && neg < (int)n);                  /* test inits exercise both signs */
  assert_int_not_equal(cl1_embed_gen(e, 0, 5, x, 1), 0); /* no such tensor */
  assert_non_null(strstr(cl1_embed_error(e), "no tensor 5"));
  assert_int_not_equal(cl1_embed_gen(e, 2, 0, x, 1), 0); /* outputs are not generated */
  cl1_embed_close(e);
  free(x), free(x2), free(y);
}

static void test_embed_open_errors_name_the_bad_argument(void **st) {
  (void)st;
  char err[1024] = "";
  assert_null(cl1_embed_open("level1/19_ReLU", "huge", "host", err, sizeof err));
  assert_non_null(strstr(err, "'huge'"));
  assert_null(cl1_embed_open("level1/19_ReLU", "test", "tpu", err, sizeof err));
  assert_non_null(strstr(err, "'tpu'"));
  assert_null(cl1_embed_open("level9/no_such_task", "test", "host", err, sizeof err));
  assert_true(strlen(err) > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_relu_roundtrip),
      cmocka_unit_test(test_embed_open_errors_name_the_bad_argument),
  };
  return cmocka_run_group_tests_name("embed", tests, NULL, NULL);
}
