/* test_worker.c — the worker program (build/cudal1-worker) as the judge drives it: spawned through
 * judge_proc with its pipes and shared memory, spoken to in the protocol directly (no judge in
 * between), so requests the judge never sends can be tried; and the program's own boundary: what
 * it links and what it says when started by hand. */
#include <sys/stat.h>
#include "harness.h"
#include "base/err.h"
#include "eval/compile.h"
#include "eval/judge_proc.h"
#include "task/task.h"
#include "worker/proto.h"
#include "worker/worker.h"

#define TASK "suite/level1/19_ReLU"

/* A host ReLU that needs nothing but the ABI header. */
static const char *k_relu =
    "#include <cudal1/solution.h>\n"
    "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"
    "  const float *x = (const float *)c->inputs[0].data;\n"
    "  float *y = (float *)c->outputs[0].data;\n"
    "  int64_t n = 1;\n"
    "  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];\n"
    "  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;\n"
    "  return 0;\n"
    "}\n";

typedef struct {
  cl1_wproc w;
  size_t region_bytes;
  char so[4096];
} fixture;

static cJSON *setup_request(const fixture *f) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "role", "ref");
  cJSON_AddStringToObject(m, "backend", "host");
  cJSON_AddStringToObject(m, "task", TASK);
  cJSON_AddStringToObject(m, "shapes", "test");
  cJSON_AddStringToObject(m, "so", f->so);
  cJSON_AddNumberToObject(m, "regions", 1);
  cJSON_AddStringToObject(m, "tmpdir", f->w.tmpdir);
  return m;
}

/* One request, its reply dropped: the status (and f->w.msg on failure) is what tests look at. */
static cl1_wstatus call(fixture *f, int type, cJSON *m) {
  cJSON *reply = NULL;
  cl1_wstatus s = cl1_wproc_call(&f->w, type, m, 60, &reply);
  cJSON_Delete(m);
  cJSON_Delete(reply);
  return s;
}

/* A host solution compiled into f->so. */
static int compile_host(fixture *f, const char *src, cl1_err *err) {
  char cache[300], ops[4096], inc[4096];
  snprintf(cache, sizeof cache, "%s/cache", th_tmpdir());
  cl1_compile_opts o = {.backend = CL1_BACKEND_HOST, .cache_dir = cache};
  if (cl1_compile_find_dirs(&o, NULL, ops, sizeof ops, inc, sizeof inc, err)) return -1;
  o.ops_dir = ops;
  o.include_dir = inc;
  cl1_compile_result res;
  if (cl1_compile_source(src, strlen(src), &o, &res, err)) return -1;
  snprintf(f->so, sizeof f->so, "%s", res.so_path);
  return 0;
}

/* A worker started with the ReLU compiled and the region size known, not yet set up. */
static int spawn_only(void **state) {
  fixture *f = calloc(1, sizeof *f);
  cl1_err err = {{0}};
  char exe[4096];
  if (compile_host(f, k_relu, &err)) goto fail;
  cl1_task *t;
  cl1_inst in;
  size_t offs[CL1_TASK_MAX_TENSORS];
  if (cl1_task_load(TASK, &t, &err)) goto fail;
  if (cl1_task_instance(t, cl1_shapes_parse("test"), &in, &err)) { cl1_task_free(t); goto fail; }
  f->region_bytes = cl1_worker_layout(&in, offs);
  cl1_task_free(t);
  if (cl1_worker_exe(exe, sizeof exe, &err)) goto fail;
  if (cl1_wproc_spawn(&f->w, exe, f->region_bytes, "ref", NULL, &err)) goto fail;
  *state = f;
  return 0;
fail:
  fprintf(stderr, "test_worker set-up: %s\n", err.msg);
  free(f);
  return -1;
}

/* The same, set up (the ReLU loaded, one output region mapped). */
static int spawn_set_up(void **state) {
  if (spawn_only(state)) return -1;
  fixture *f = *state;
  if (call(f, CL1_MSG_SETUP, setup_request(f)) == CL1_W_OK &&
      call(f, CL1_MSG_LOAD, cJSON_CreateObject()) == CL1_W_OK)
    return 0;
  fprintf(stderr, "setup: %s\n", f->w.msg);
  cl1_wproc_close(&f->w);
  free(f);
  return -1;
}

static int spawn_tear_down(void **state) {
  fixture *f = *state;
  cl1_wproc_close(&f->w);
  free(f);
  return 0;
}

static cl1_wstatus fetch(fixture *f, int region) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddNumberToObject(m, "region", region);
  return call(f, CL1_MSG_FETCH, m);
}

/* Before issue 19 the bound check read (region + 1) * size > total, which region -1 passes: the
 * worker then wrote a region's worth of outputs in front of its shared memory. */
static void test_fetch_refuses_a_negative_region(void **state) {
  fixture *f = *state;
  assert_int_equal(fetch(f, -1), CL1_W_FAILED);
  assert_non_null(strstr(f->w.msg, "region -1 out of range"));
  assert_int_equal(fetch(f, 0), CL1_W_OK); /* the worker is still serving */
}

static void test_fetch_refuses_a_region_past_the_mapping(void **state) {
  fixture *f = *state;
  assert_int_equal(fetch(f, 1), CL1_W_FAILED);
  assert_non_null(strstr(f->w.msg, "region 1 out of range"));
  assert_int_equal(fetch(f, 1 << 30), CL1_W_FAILED);
  assert_int_equal(fetch(f, 0), CL1_W_OK);
}

/* Each request but SETUP, LOAD, PING and QUIT needs a loaded solution: before one, a clear
 * failure (the request handlers then assert what setup established). SETUP alone loads nothing:
 * a judge sharing the GPU runs it beside other evaluations' timing, so no solution code may run
 * in it (src/eval/gpu_lock.h). */
static void test_requests_before_setup_fail_without_killing_the_worker(void **state) {
  fixture *f = *state;
  int types[] = {CL1_MSG_PARAMS, CL1_MSG_RUN, CL1_MSG_TIME_PREP, CL1_MSG_WARMUP, CL1_MSG_TRIAL,
                 CL1_MSG_FETCH};
  assert_int_equal(call(f, CL1_MSG_LOAD, cJSON_CreateObject()), CL1_W_FAILED);
  assert_non_null(strstr(f->w.msg, "no successful setup"));
  for (int step = 0; step < 2; step++) {  /* before SETUP, then after SETUP but before LOAD */
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
      assert_int_equal(call(f, types[i], cJSON_CreateObject()), CL1_W_FAILED);
      assert_non_null(strstr(f->w.msg, "before a successful setup and load"));
    }
    if (!step) assert_int_equal(call(f, CL1_MSG_SETUP, setup_request(f)), CL1_W_OK);
  }
  assert_int_equal(call(f, CL1_MSG_LOAD, cJSON_CreateObject()), CL1_W_OK);
  assert_int_equal(fetch(f, 0), CL1_W_OK);
  assert_int_equal(call(f, CL1_MSG_LOAD, cJSON_CreateObject()), CL1_W_FAILED);
  assert_non_null(strstr(f->w.msg, "already loaded"));
}

/* The solution's code runs at LOAD, not SETUP: a constructor that writes a file in the worker's
 * folder has not run after SETUP and has after LOAD. */
static void test_setup_runs_no_solution_code(void **state) {
  fixture *f = *state;
  char mark[400], src[2048];
  snprintf(mark, sizeof mark, "%s/ctor-ran", f->w.tmpdir);
  snprintf(src, sizeof src,
           "#include <stdio.h>\n%s"
           "__attribute__((constructor)) static void mark(void) {\n"
           "  FILE *m = fopen(\"%s\", \"w\");\n  if (m) fclose(m);\n}\n", k_relu, mark);
  cl1_err err = {{0}};
  if (compile_host(f, src, &err)) fail_msg("compile: %s", err.msg);
  assert_int_equal(call(f, CL1_MSG_SETUP, setup_request(f)), CL1_W_OK);
  assert_int_not_equal(access(mark, F_OK), 0);
  assert_int_equal(call(f, CL1_MSG_LOAD, cJSON_CreateObject()), CL1_W_OK);
  assert_int_equal(access(mark, F_OK), 0);
}

static void test_second_setup_is_refused(void **state) {
  fixture *f = *state;
  assert_int_equal(call(f, CL1_MSG_SETUP, setup_request(f)), CL1_W_FAILED);
  assert_non_null(strstr(f->w.msg, "already set up"));
  assert_int_equal(fetch(f, 0), CL1_W_OK);
}

/* A spare (src/eval/spare.h): started with its memory unsized, OPENed — device and op library, no
 * task — then sized and set up as any worker, and it serves calls. OPEN once, and only first;
 * SETUP must then agree with what OPEN opened. */
static void test_an_opened_spare_sets_up_and_serves(void **state) {
  fixture *f = *state;
  cl1_err err = {{0}};
  char exe[4096];
  cl1_wproc_close(&f->w);
  assert_int_equal(cl1_worker_exe(exe, sizeof exe, &err), 0);
  assert_int_equal(cl1_wproc_spawn(&f->w, exe, 0, "spare", NULL, &err), 0);
  assert_null(f->w.shm);
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "backend", "host");
  assert_int_equal(call(f, CL1_MSG_OPEN, m), CL1_W_OK);
  m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "backend", "host");
  assert_int_equal(call(f, CL1_MSG_OPEN, m), CL1_W_FAILED);
  assert_non_null(strstr(f->w.msg, "already open"));
  /* a SETUP that asks for an op library the spare did not preload is refused, not half-served */
  cJSON *bad = setup_request(f);
  cJSON_AddStringToObject(bad, "preload", "/nonexistent/libcl1ops_host.so");
  assert_int_equal(call(f, CL1_MSG_SETUP, bad), CL1_W_FAILED);
  assert_non_null(strstr(f->w.msg, "differs from the one opened"));
  assert_int_equal(cl1_wproc_size(&f->w, f->region_bytes, &err), 0);
  assert_int_equal(call(f, CL1_MSG_SETUP, setup_request(f)), CL1_W_OK);
  assert_int_equal(call(f, CL1_MSG_LOAD, cJSON_CreateObject()), CL1_W_OK);
  assert_int_equal(fetch(f, 0), CL1_W_OK);
  m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "backend", "host");
  assert_int_equal(call(f, CL1_MSG_OPEN, m), CL1_W_FAILED);
}

static void test_setup_on_another_backend_than_opened_is_refused(void **state) {
  fixture *f = *state;
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "backend", "host");
  assert_int_equal(call(f, CL1_MSG_OPEN, m), CL1_W_OK);
  cJSON *s = setup_request(f);
  cJSON_ReplaceItemInObject(s, "backend", cJSON_CreateString("cuda"));
  assert_int_equal(call(f, CL1_MSG_SETUP, s), CL1_W_FAILED);
  assert_non_null(strstr(f->w.msg, "differs from the one opened"));
  assert_int_equal(call(f, CL1_MSG_SETUP, setup_request(f)), CL1_W_OK);
}

/* Timing-set indices come off the pipe: out of range or unprepared is a failure, not a read
 * past the slot arrays (a task without inputs once skipped the range check of TRIAL). */
static void test_timing_sets_out_of_range_are_refused(void **state) {
  fixture *f = *state;
  cJSON *m = cJSON_CreateObject();
  cJSON_AddNumberToObject(m, "sets", 0);
  assert_int_equal(call(f, CL1_MSG_WARMUP, m), CL1_W_FAILED);
  assert_non_null(strstr(f->w.msg, "sets 0 out of range"));
  m = cJSON_CreateObject();
  cJSON_AddNumberToObject(m, "sets", 1);
  assert_int_equal(call(f, CL1_MSG_WARMUP, m), CL1_W_FAILED); /* no TIME_PREP yet */
  assert_non_null(strstr(f->w.msg, "not prepared"));
  int bad[] = {-5, -1, 4, 1 << 20};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "set", bad[i]);
    assert_int_equal(call(f, CL1_MSG_TRIAL, m), CL1_W_FAILED);
    assert_non_null(strstr(f->w.msg, "out of range"));
  }
  assert_int_equal(fetch(f, 0), CL1_W_OK);
}

/* The sandboxed process's surface is what the worker program links: none of the judge's store,
 * HTTP client, TLS stack or ELF reader (issue 19, item 1). */
static void test_worker_program_links_no_judge_libraries(void **state) {
  (void)state;
  char cmd[600], out[8192];
  snprintf(cmd, sizeof cmd, "readelf -d %s/cudal1-worker 2>&1", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "libcjson"));
  assert_non_null(strstr(out, "libseccomp"));
  const char *banned[] = {"libcurl", "libsqlite3", "libcrypto", "libssl", "libelf", "libmicrohttpd"};
  for (size_t i = 0; i < sizeof banned / sizeof *banned; i++)
    if (strstr(out, banned[i])) fail_msg("cudal1-worker links %s:\n%s", banned[i], out);
}

static void test_worker_program_started_by_hand_says_what_it_is(void **state) {
  (void)state;
  char cmd[600], out[2048];
  snprintf(cmd, sizeof cmd, "%s/cudal1-worker 3<&- 4<&- 5<&- 2>&1", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "not by hand"));
  snprintf(cmd, sizeof cmd, "%s/cudal1-worker --help 2>&1", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  assert_non_null(strstr(out, "CUDAL1_WORKER"));
  /* CUDAL1_WORKER pointed at the cudal1 binary, as it was before: a message, not a hang */
  snprintf(cmd, sizeof cmd, "%s/cudal1 __worker 2>&1", th_build());
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "cudal1-worker"));
}

/* $CUDAL1_WORKER names the worker program the judge starts, for the reference and the candidate:
 * here a wrapper that notes each start, then becomes the real worker. */
static void test_cudal1_worker_names_the_program_the_judge_starts(void **state) {
  (void)state;
  char *d = th_tmpdir(), wrap[300], mark[300], script[1200], cmd[2400], out[8192];
  char real[4096];
  snprintf(real, sizeof real, "%s/cudal1-worker", th_build());
  char *abs_real = realpath(real, NULL);
  assert_non_null(abs_real);
  snprintf(wrap, sizeof wrap, "%s/worker.sh", d);
  snprintf(mark, sizeof mark, "%s/starts", d);
  snprintf(script, sizeof script, "#!/bin/sh\necho started >> %s\nexec %s \"$@\"\n", mark, abs_real);
  free(abs_real);
  assert_int_equal(th_write(wrap, script), 0);
  assert_int_equal(chmod(wrap, 0755), 0);
  snprintf(cmd, sizeof cmd,
           "CUDAL1_WORKER=%s %s/cudal1 eval --task level1/19_ReLU --solution "
           "tests/legit/host/19_ReLU.c --device host --shapes test --min-trials 5 --max-trials 5 "
           "--time-budget 0.1 2>&1", wrap, th_build());
  /* a verdict on the candidate (0 or 1; a loaded machine may judge timing otherwise), not the
     harness's failure to start its workers (3) */
  int rc = th_run(cmd, out, sizeof out);
  if (rc != 0 && rc != 1) fail_msg("eval exited %d:\n%s", rc, out);
  assert_non_null(strstr(out, "verdict"));
  assert_null(strstr(out, "infra_error"));
  char got[256];
  FILE *f = fopen(mark, "r");
  assert_non_null(f);
  int starts = 0;
  while (fgets(got, sizeof got, f)) starts++;
  fclose(f);
  assert_true(starts >= 2); /* the reference's and the candidate's (re-measures start more) */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_fetch_refuses_a_negative_region, spawn_set_up,
                                      spawn_tear_down),
      cmocka_unit_test_setup_teardown(test_fetch_refuses_a_region_past_the_mapping, spawn_set_up,
                                      spawn_tear_down),
      cmocka_unit_test_setup_teardown(test_requests_before_setup_fail_without_killing_the_worker,
                                      spawn_only, spawn_tear_down),
      cmocka_unit_test_setup_teardown(test_second_setup_is_refused, spawn_set_up, spawn_tear_down),
      cmocka_unit_test_setup_teardown(test_an_opened_spare_sets_up_and_serves, spawn_only,
                                      spawn_tear_down),
      cmocka_unit_test_setup_teardown(test_setup_on_another_backend_than_opened_is_refused,
                                      spawn_only, spawn_tear_down),
      cmocka_unit_test_setup_teardown(test_setup_runs_no_solution_code, spawn_only,
                                      spawn_tear_down),
      cmocka_unit_test_setup_teardown(test_timing_sets_out_of_range_are_refused, spawn_set_up,
                                      spawn_tear_down),
      cmocka_unit_test(test_worker_program_links_no_judge_libraries),
      cmocka_unit_test(test_cudal1_worker_names_the_program_the_judge_starts),
      cmocka_unit_test(test_worker_program_started_by_hand_says_what_it_is),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
