/* test_pytask.c — KernelBench problems as tasks (`cudal1 task import`, `eval --task PROBLEM.py`)
 * and what the Python path tells a user: the task.json an import writes (dims, shapes as dim
 * names, distributions from the generators or the values, params, constructor arguments per
 * set), the import's refusals, the task loader's rules for a Python reference, and the messages of
 * a refused parameter mapping and of a module that does not import. */
#include "harness.h"
#include <cjson/cJSON.h>
#include <math.h>
#include "eval/judge_int.h"
#include "task/task.h"
#include "worker/sandbox.h"

#define PROBLEM "tests/python/problems/1_Linear_ReLU.py"

static char out[1 << 16];

static cJSON *read_json(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  return cJSON_Parse(buf);
}

static int import(const char *problem, const char *dir, const char *extra) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s/cudal1 task import %s %s %s 2>&1", th_build(), problem, dir, extra);
  return th_run(cmd, out, sizeof out);
}

static const cJSON *at(const cJSON *o, const char *path) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *k = strtok(buf, "."); k && o; k = strtok(NULL, ".")) {
    if (cJSON_IsArray(o)) o = cJSON_GetArrayItem(o, atoi(k));
    else o = cJSON_GetObjectItemCaseSensitive(o, k);
  }
  return o;
}

static void assert_str_at(const cJSON *o, const char *path, const char *want) {
  const cJSON *v = at(o, path);
  if (!cJSON_IsString(v) || strcmp(v->valuestring, want))
    fail_msg("%s: want '%s', got %s", path, want, cJSON_IsString(v) ? v->valuestring : "(none)");
}

static void import_writes_the_task(void **state) {
  (void)state;
  char dir[300], js[400];
  snprintf(dir, sizeof dir, "%s/t", th_tmpdir());
  int rc = import(PROBLEM, dir, "--set test:batch_size=3,in_features=8,out_features=5");
  if (rc) fail_msg("exit %d: %s", rc, out);
  snprintf(js, sizeof js, "%s/task.json", dir);
  cJSON *t = read_json(js);
  assert_non_null(t);
  assert_str_at(t, "name", "1_Linear_ReLU");
  assert_int_equal(at(t, "dims.test.batch_size")->valueint, 3);
  assert_int_equal(at(t, "dims.small.batch_size")->valueint, 16);
  assert_int_equal(at(t, "dims.large.in_features")->valueint, 64);
  assert_str_at(t, "inputs.0.name", "x");  /* forward's own argument name */
  assert_str_at(t, "inputs.0.shape.0", "batch_size");
  assert_str_at(t, "inputs.0.shape.1", "in_features");
  assert_str_at(t, "inputs.0.init.dist", "normal");  /* torch.randn */
  assert_str_at(t, "params.0.name", "fc.weight");
  assert_str_at(t, "params.0.shape.0", "out_features");
  assert_str_at(t, "params.0.init.dist", "uniform");
  /* nn.Linear's own init: U(-1/sqrt(64), 1/sqrt(64)) */
  double hi = at(t, "params.0.init.high")->valuedouble;
  assert_true(hi > 0.09 && hi <= 0.125 + 1e-9);
  assert_str_at(t, "params.1.name", "fc.bias");
  assert_str_at(t, "outputs.0.shape.1", "out_features");
  assert_int_equal(at(t, "python.init.test.0")->valueint, 8);
  assert_int_equal(at(t, "python.init.small.1")->valueint, 32);
  assert_true(fabs(at(t, "python.init.small.2")->valuedouble - 0.5) < 1e-12);
  assert_true(fabs(at(t, "tolerance.atol")->valuedouble - 1e-4) < 1e-12);
  cJSON_Delete(t);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "%s/cudal1 task check %s 2>&1", th_build(), dir);
  if (th_run(cmd, out, sizeof out)) fail_msg("task check: %s", out);
  assert_non_null(strstr(out, "ok level1/1_Linear_ReLU (1 inputs, 2 params, 1 outputs)"));
  snprintf(js, sizeof js, "%s/reference.py", dir);
  assert_int_equal(access(js, R_OK), 0);
}

static const char *write_problem(const char *body) {
  static char path[400];
  snprintf(path, sizeof path, "%s/5_problem.py", th_tmpdir());
  assert_int_equal(th_write(path, body), 0);
  return path;
}

static const char *HEAD =
    "import torch\nimport torch.nn as nn\n"
    "class Model(nn.Module):\n    def forward(self, x):\n        return x * 2\n"
    "n = 32\n";

static void import_refuses_what_is_not_a_problem(void **state) {
  (void)state;
  char body[1024];
  snprintf(body, sizeof body, "%s", HEAD);  /* no get_inputs / get_init_inputs */
  const char *p = write_problem(body);
  char dir[300];
  snprintf(dir, sizeof dir, "%s/t", th_tmpdir());
  assert_int_equal(import(p, dir, ""), 1);
  assert_non_null(strstr(out, "defines no get_inputs"));
  /* a --set naming a dim the module does not have: the message lists those it has */
  snprintf(body, sizeof body, "%sdef get_inputs():\n    return [torch.randn(n, 4)]\n"
           "def get_init_inputs():\n    return []\n", HEAD);
  p = write_problem(body);
  assert_int_equal(import(p, dir, "--set test:batch=2"), 1);
  assert_non_null(strstr(out, "'batch' is not a module-level integer"));
  assert_non_null(strstr(out, "those are: n"));
  /* the problem's own failure, said with its exception */
  snprintf(body, sizeof body, "%sdef get_inputs():\n    return [torch.randn(n, 4)]\n"
           "def get_init_inputs():\n    raise ValueError('no sizes today')\n", HEAD);
  p = write_problem(body);
  assert_int_equal(import(p, dir, ""), 1);
  assert_non_null(strstr(out, "ValueError: no sizes today"));
}

static void import_reads_derived_inputs_by_value(void **state) {
  (void)state;
  char body[1024], dir[300], js[400];
  /* rand * 2 - 1 is no generator's own tensor: its distribution comes from its values */
  snprintf(body, sizeof body, "%sdef get_inputs():\n    return [torch.rand(n, 64) * 2 - 1]\n"
           "def get_init_inputs():\n    return []\n", HEAD);
  const char *p = write_problem(body);
  snprintf(dir, sizeof dir, "%s/t", th_tmpdir());
  if (import(p, dir, "")) fail_msg("%s", out);
  snprintf(js, sizeof js, "%s/task.json", dir);
  cJSON *t = read_json(js);
  assert_non_null(t);
  assert_str_at(t, "inputs.0.init.dist", "uniform");
  assert_true(at(t, "inputs.0.init.low")->valuedouble < -0.9);
  assert_true(at(t, "inputs.0.init.high")->valuedouble > 0.9);
  assert_str_at(t, "inputs.0.shape.0", "n");
  assert_int_equal(at(t, "inputs.0.shape.1")->valueint, 64);  /* no dim is 64: a number */
  cJSON_Delete(t);
}

/* Found in CUDA-L1's file (issue 22): module integers of 0 or below are constants, not dims (a
 * dim must be positive), and a problem the meta device cannot run (BatchNorm's training step)
 * runs on the CPU instead. */
static void import_handles_what_cuda_l1_problems_hold(void **state) {
  (void)state;
  const char *p = write_problem(
      "import torch\nimport torch.nn as nn\n"
      "class Model(nn.Module):\n"
      "    def __init__(self, c, pad, lo):\n"
      "        super().__init__()\n"
      "        self.bn = nn.BatchNorm2d(c)\n"
      "        self.pad, self.lo = pad, lo\n"
      "    def forward(self, x):\n"
      "        return torch.clamp(self.bn(nn.functional.pad(x, (self.pad,) * 4)), min=self.lo)\n"
      "batch = 2\nchannels = 3\nside = 8\npadding = 0\nlow = -1\n"
      "def get_inputs():\n    return [torch.randn(batch, channels, side, side)]\n"
      "def get_init_inputs():\n    return [channels, padding, low]\n");
  char dir[300], js[400];
  snprintf(dir, sizeof dir, "%s/t", th_tmpdir());
  if (import(p, dir, "")) fail_msg("%s", out);
  snprintf(js, sizeof js, "%s/task.json", dir);
  cJSON *t = read_json(js);
  assert_non_null(t);
  assert_null(at(t, "dims.small.padding"));
  assert_null(at(t, "dims.small.low"));
  assert_int_equal(at(t, "dims.small.side")->valueint, 8);
  assert_int_equal(at(t, "python.init.small.1")->valueint, 0);
  assert_int_equal(at(t, "python.init.small.2")->valueint, -1);
  assert_str_at(t, "params.0.name", "bn.weight");
  assert_str_at(t, "params.0.init.dist", "ones");
  assert_str_at(t, "outputs.0.shape.3", "side");
  cJSON_Delete(t);
}

/* The problem runs confined to its folder: a write elsewhere fails (where the kernel has
 * Landlock; without it the build's other rules still hold, and this case says nothing). */
static void import_is_confined(void **state) {
  (void)state;
  if (cl1_sandbox_landlock_abi() < 1) skip();
  char body[1024], dir[300], victim[300];
  snprintf(victim, sizeof victim, "%s/written", th_tmpdir());
  snprintf(body, sizeof body, "%sopen('%s', 'w').write('x')\ndef get_inputs():\n"
           "    return [torch.randn(n, 4)]\ndef get_init_inputs():\n    return []\n", HEAD, victim);
  const char *p = write_problem(body);
  snprintf(dir, sizeof dir, "%s/t", th_tmpdir());
  assert_int_equal(import(p, dir, ""), 1);
  assert_non_null(strstr(out, "PermissionError"));
  assert_int_not_equal(access(victim, F_OK), 0);
}

static void loader_rules_for_a_python_reference(void **state) {
  (void)state;
  char *d = th_tmpdir(), path[400], cmd[600];
  snprintf(path, sizeof path, "%s/reference.py", d);
  assert_int_equal(th_write(path, "# empty\n"), 0);
  snprintf(path, sizeof path, "%s/reference.c", d);
  assert_int_equal(th_write(path, "/* empty */\n"), 0);
  const char *base =
      "{\"name\": \"1_x\", \"level\": 1, \"number\": 1, \"description\": \"d\","
      " \"dims\": {\"test\": {\"n\": 2}, \"small\": {\"n\": 2}, \"large\": {\"n\": 2}},"
      " \"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"n\"],"
      " \"init\": {\"dist\": \"normal\", \"mean\": 0, \"std\": 1}}], \"params\": [],"
      " \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"n\"]}], %s}";
  static const struct { const char *tail, *msg; } cases[] = {
      {"\"python\": {\"init\": {\"test\": [], \"small\": []}}", "python.init.large: missing"},
      {"\"reference\": \"reference.c\", \"python\": {\"init\": {}}", "not both"},
      {"\"python\": {\"reference\": \"../x.py\"}", "must be a relative path to a .py file"},
      {"\"python\": {\"init\": {\"test\": 1}}", "python.init.test: must be a list"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char js[2048];
    snprintf(js, sizeof js, base, cases[i].tail);
    snprintf(path, sizeof path, "%s/task.json", d);
    assert_int_equal(th_write(path, js), 0);
    snprintf(cmd, sizeof cmd, "%s/cudal1 task check %s 2>&1", th_build(), d);
    assert_int_equal(th_run(cmd, out, sizeof out), 2);
    if (!strstr(out, cases[i].msg)) fail_msg("case %zu: want '%s' in: %s", i, cases[i].msg, out);
  }
  char js[2048];
  snprintf(js, sizeof js, base,
           "\"python\": {\"init\": {\"test\": [], \"small\": [], \"large\": []}}");
  assert_int_equal(th_write(path, js), 0);
  if (th_run(cmd, out, sizeof out)) fail_msg("a good Python task: %s", out);
}

static cJSON *eval_json(const char *task, const char *sol) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s/cudal1 eval --task %s --solution %s --device host --shapes test "
           "--json --min-trials 10 --max-trials 40 --time-budget 0.3 2>/dev/null", th_build(), task,
           sol);
  th_run(cmd, out, sizeof out);
  cJSON *j = cJSON_Parse(out);
  if (!j) fail_msg("no JSON: %.300s", out);
  return j;
}

/* The messages a user reads: a mapping refused with both lists (a native task's generated
 * params; a KernelBench-format task's modules are constructed instead), the line of a syntax
 * error. */
static void python_failures_say_why(void **state) {
  (void)state;
  cJSON *j = eval_json("level1/40_LayerNorm", "tests/python/common/layernorm_unmappable.py");
  assert_str_at(j, "verdict", "crash");
  const cJSON *log = at(j, "candidate_log_tail");
  assert_true(cJSON_IsString(log));
  assert_non_null(strstr(log->valuestring, "cannot map the task's params ['ln.weight["));
  assert_non_null(strstr(log->valuestring, "onto the module's state ['gain[1]']"));
  cJSON_Delete(j);
  /* the same kind of ModelNew on a KernelBench-format task: constructed, no refusal; its
     uninitialised weight gives wrong outputs */
  j = eval_json(PROBLEM, "tests/python/common/linear_transposed.py");
  assert_str_at(j, "verdict", "incorrect");
  assert_str_at(j, "task", "level1/1_Linear_ReLU");
  cJSON_Delete(j);
  j = eval_json("level1/19_ReLU", "tests/python/common/relu_syntax.py");
  assert_str_at(j, "verdict", "compile_error");
  const cJSON *d = at(j, "compile.diagnostics");
  assert_true(cJSON_IsString(d));
  assert_non_null(strstr(d->valuestring, "syntax error: line 6"));
  cJSON_Delete(j);
}

/* What the judge gives a Triton module's build step to warm at (compile.h: warm; pybuild.py):
 * the native task's twin, dims, attrs and its inputs at the evaluation's shape set. */
static void warm_spec_names_the_tasks_shapes(void **st) {
  (void)st;
  cl1_task *t = NULL;
  cl1_inst inst;
  cl1_err err;
  assert_int_equal(cl1_task_load("suite/level1/40_LayerNorm", &t, &err), 0);
  assert_int_equal(cl1_task_instance(t, CL1_SHAPES_TEST, &inst, &err), 0);
  char *s = cl1_judge_py_warm(t, &inst);
  assert_non_null(s);
  cJSON *j = cJSON_Parse(s);
  assert_non_null(j);
  assert_non_null(strstr(cJSON_GetObjectItem(j, "twin")->valuestring, "40_LayerNorm/twin.py"));
  assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "dims"), "dim2")->valueint, 17);
  assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "attrs"), "eps"));
  char *ins = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "inputs"));
  assert_string_equal(ins, "[[\"f32\",[3,5,16,17]]]");
  free(ins);
  cJSON_Delete(j);
  free(s);
  cl1_task_free(t);
  cl1_task py = {.py = true};  /* a KernelBench problem: its module's get_inputs() is the one */
  assert_null(cl1_judge_py_warm(&py, &inst));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(import_writes_the_task),
      cmocka_unit_test(import_refuses_what_is_not_a_problem),
      cmocka_unit_test(import_reads_derived_inputs_by_value),
      cmocka_unit_test(import_handles_what_cuda_l1_problems_hold),
      cmocka_unit_test(import_is_confined),
      cmocka_unit_test(loader_rules_for_a_python_reference),
      cmocka_unit_test(python_failures_say_why),
      cmocka_unit_test(warm_spec_names_the_tasks_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
