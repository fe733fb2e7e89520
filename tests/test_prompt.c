/* test_prompt.c — the contrastive prompt (src/loop/prompt.h). Golden files: the default template
 * (prompts/contrastive.txt + rules.txt) rendered for level1/19_ReLU on cuda with two exemplars and
 * for level2/76_Gemm_Add_ReLU on host with none must equal tests/golden/prompt_*.txt byte for
 * byte. After an intended change to the template, the rules, the ABI header or those tasks, run
 *     CL1_UPDATE_GOLDEN=1 build/tests/test_prompt
 * from the repository root to rewrite the golden files, and review their diff before committing.
 * Also: the facts every prompt must carry (independent of the golden text), a user template with
 * sections, comments and literal braces, the unknown-placeholder error and the other template
 * errors, a task without twin.py or reference.c, bad inputs, and code fences inside exemplars.
 * KernelBench format: a golden prompt (contrastive_kernelbench.txt + rules_kernelbench.txt) for
 * level1/19_ReLU on cuda with one exemplar; the PyTorch reference shown (twin.py with its make()
 * note, or an imported task's reference.py), KernelBench's rules, python exemplars, and none of
 * the C ABI's instructions. */
#include "harness.h"
#include <limits.h>
#include <sys/stat.h>
#include "loop/prompt.h"

#define RELU_SLOW                                                                               \
  "#include <cudal1/solution.h>\n"                                                              \
  "__global__ static void relu_k(const float *x, float *y, long n) {\n"                         \
  "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"                                   \
  "  if (i < n) y[i] = fmaxf(x[i], 0.f);\n"                                                     \
  "}\n"                                                                                         \
  "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"                                           \
  "  long n = 1; for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];\n"     \
  "  relu_k<<<(n + 255) / 256, 256, 0, (cudaStream_t)c->stream>>>(\n"                           \
  "      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);\n"                  \
  "  return cudaGetLastError() == cudaSuccess ? 0 : 1;\n"                                       \
  "}\n"

#define RELU_FAST                                                                               \
  "#include <cudal1/solution.h>\n"                                                              \
  "__global__ static void relu4(const float4 *__restrict__ x, float4 *__restrict__ y, long n4) {\n" \
  "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"                                   \
  "  if (i < n4) {\n"                                                                           \
  "    float4 v = x[i];\n"                                                                      \
  "    v.x = fmaxf(v.x, 0.f), v.y = fmaxf(v.y, 0.f), v.z = fmaxf(v.z, 0.f), v.w = fmaxf(v.w, 0.f);\n" \
  "    y[i] = v;\n"                                                                             \
  "  }\n"                                                                                       \
  "}\n"                                                                                         \
  "CL1_EXPORT int cl1_forward(const cl1_call *c) {\n"                                           \
  "  long n = 1; for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];\n"     \
  "  if (n % 4) return 1;\n"                                                                    \
  "  relu4<<<(n / 4 + 255) / 256, 256, 0, (cudaStream_t)c->stream>>>(\n"                        \
  "      (const float4 *)c->inputs[0].data, (float4 *)c->outputs[0].data, n / 4);\n"            \
  "  return cudaGetLastError() == cudaSuccess ? 0 : 1;\n"                                       \
  "}\n"

/* the faster one first: the prompt shows them slowest first */
static const cl1_exemplar RELU_EX[2] = {{RELU_FAST, 1.84, 12}, {RELU_SLOW, 1.02, 7}};

static int setup(void **st) {
  (void)st;
  /* the repository's own files, whatever sits beside the test binary */
  setenv("CUDAL1_PROMPTS", "prompts", 1);
  setenv("CUDAL1_INCLUDE", "include", 1);
  return 0;
}

static cl1_task *load(const char *id) {
  char dir[PATH_MAX];
  cl1_err err = {{0}};
  cl1_task *t = NULL;
  if (cl1_task_find(cl1_suite_root(), id, dir, sizeof dir, &err) || cl1_task_load(dir, &t, &err))
    fail_msg("%s: %s", id, err.msg);
  return t;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (b) b[n] = 0;
  fclose(f);
  return b;
}

/* The golden file holds "=== system ===\n" SYSTEM "\n=== user ===\n" USER "\n". */
static void check_golden(const char *name, const char *sys, const char *user) {
  char path[256];
  snprintf(path, sizeof path, "tests/golden/%s", name);
  size_t n = strlen(sys) + strlen(user) + 64;
  char *got = malloc(n);
  assert_non_null(got);
  snprintf(got, n, "=== system ===\n%s\n=== user ===\n%s\n", sys, user);
  const char *upd = getenv("CL1_UPDATE_GOLDEN");
  if (upd && !strcmp(upd, "1")) {
    mkdir("tests/golden", 0755);
    assert_int_equal(th_write(path, got), 0);
    fprintf(stderr, "rewrote %s\n", path);
  }
  char *want = slurp(path);
  if (!want) fail_msg("%s missing: run with CL1_UPDATE_GOLDEN=1 to create it", path);
  if (strcmp(got, want)) {
    size_t i = 0;
    while (got[i] && got[i] == want[i]) i++;
    int line = 1;
    for (size_t k = 0; k < i; k++) line += got[k] == '\n';
    fail_msg("%s differs at line %d: got '%.60s', golden '%.60s' (CL1_UPDATE_GOLDEN=1 rewrites "
             "it after an intended change)", path, line, got + i, want + i);
  }
  free(want), free(got);
}

static void build_ok(const cl1_prompt_in *in, char **sys, char **user) {
  cl1_err err = {{0}};
  if (cl1_prompt_build(in, sys, user, &err)) fail_msg("prompt: %s", err.msg);
  assert_non_null(*sys);
  assert_non_null(*user);
}

static void test_golden_cuda(void **st) {
  (void)st;
  cl1_task *t = load("level1/19_ReLU");
  cl1_prompt_in in = {t, "cuda", "small", NULL, NULL, "NVIDIA H200", RELU_EX, 2, CL1_FORMAT_CABI};
  char *sys, *user;
  build_ok(&in, &sys, &user);
  check_golden("prompt_level1_19_ReLU_cuda.txt", sys, user);
  free(sys), free(user);
  cl1_task_free(t);
}

static void test_golden_host(void **st) {
  (void)st;
  cl1_task *t = load("level2/76_Gemm_Add_ReLU");
  cl1_prompt_in in = {t, "host", "test", NULL, NULL, NULL, NULL, 0, CL1_FORMAT_CABI};
  char *sys, *user;
  build_ok(&in, &sys, &user);
  check_golden("prompt_level2_76_Gemm_Add_ReLU_host.txt", sys, user);
  free(sys), free(user);
  cl1_task_free(t);
}

/* What must be in the prompt whatever its wording: checked against the source files. */
static void test_content(void **st) {
  (void)st;
  cl1_task *t = load("level1/19_ReLU");
  cl1_prompt_in in = {t, "cuda", "small", NULL, NULL, NULL, RELU_EX, 2, CL1_FORMAT_CABI};
  char *sys, *user, *twin = slurp("suite/level1/19_ReLU/twin.py"),
       *ref = slurp("suite/level1/19_ReLU/reference.c"), *abi = slurp("include/cudal1/solution.h");
  assert_non_null(twin), assert_non_null(ref), assert_non_null(abi);
  twin[strlen(twin) - 1] = 0, ref[strlen(ref) - 1] = 0, abi[strlen(abi) - 1] = 0; /* final \n */
  build_ok(&in, &sys, &user);
  assert_true(strlen(sys) > 100);
  assert_non_null(strstr(user, twin));
  assert_non_null(strstr(user, ref));
  assert_non_null(strstr(user, abi));
  assert_non_null(strstr(user, t->description));
  const char *a = strstr(user, "Solution A — 1.02x the reference");
  const char *b = strstr(user, "Solution B — 1.84x the reference");
  assert_non_null(a), assert_non_null(b);
  assert_true(a < b);
  assert_true(strstr(user, "relu_k") < strstr(user, "relu4")); /* each code under its label */
  assert_true(strstr(user, "relu4") > b);
  assert_non_null(strstr(user, "```cuda\n#include <cudal1/solution.h>"));
  assert_non_null(strstr(user, "batch_size = 16, dim = 16384"));
  assert_non_null(strstr(user, "[0] x: f32 [batch_size, dim] = [16, 16384]"));
  assert_non_null(strstr(user, "atol = 0.0001, rtol = 0.0001"));
  assert_non_null(strstr(user, "CUDA C++ (.cu)"));
  assert_non_null(strstr(user, "the best so far is 1.84x"));
  assert_non_null(strstr(user, "## Performance Analysis\n## Algorithm Design\n## Code Implementation"));
  assert_non_null(strstr(user, "call->stream")); /* the cuda rules */
  assert_null(strstr(user, "call->stream is NULL"));
  assert_null(strstr(user, "first round"));
  assert_null(strstr(user, "Target GPU")); /* no gpu given */
  assert_null(strstr(user, "{{"));
  assert_null(strstr(sys, "{{"));
  free(sys), free(user);
  /* host, no exemplars */
  in.device = "host", in.shapes = "test", in.exemplars = NULL, in.n_exemplars = 0;
  build_ok(&in, &sys, &user);
  assert_non_null(strstr(user, "first round"));
  assert_non_null(strstr(user, "C11 (.c)"));
  assert_non_null(strstr(user, "tagged ```c,"));
  assert_non_null(strstr(user, "call->stream is NULL"));
  assert_non_null(strstr(user, "batch_size = 7, dim = 1001"));
  assert_null(strstr(user, "Solution A"));
  assert_null(strstr(user, "nvcc"));
  assert_null(strstr(sys, "CUDA"));
  free(sys), free(user);
  free(twin), free(ref), free(abi);
  cl1_task_free(t);
}

static char *write_tmp(const char *name, const char *text) {
  static char path[8][512];
  static int k;
  char *p = path[k++ % 8];
  snprintf(p, 512, "%s/%s", th_tmpdir(), name);
  assert_int_equal(th_write(p, text), 0);
  return p;
}

static void rm_tmp(const char *path) {
  unlink(path);
  char dir[512];
  snprintf(dir, sizeof dir, "%s", path);
  char *s = strrchr(dir, '/');
  if (s) *s = 0, rmdir(dir);
}

static void test_user_template(void **st) {
  (void)st;
  cl1_task *t = load("level1/19_ReLU");
  const char *tpl = write_tmp("mine.txt",
      "{{! my template }}\n"
      "\n"
      "=== system ===\n"
      "Be fast on {{ device }}.\n"
      "=== user ===\n"
      "Task {{task_id}} (level {{level}}, {{shapes_name}}), {{n_exemplars}} shown.\n"
      "{{#exemplars}}\n"
      "{{#cuda}}\n"
      "cuda with exemplars, fence {{fence}}\n"
      "{{/cuda}}\n"
      "{{^host}}not host{{/host}}\n"
      "{{/exemplars}}\n"
      "{{^exemplars}}\n"
      "none yet\n"
      "{{/exemplars}}\n"
      "Literal {{0}} and { {x} } stay.\n"
      "{{exemplars}}\n");
  /* exemplar code holding a placeholder and a fence: inserted verbatim, fenced longer */
  cl1_exemplar ex = {"int a; /* {{task_id}} */\n// ```\n", 2.5, 1};
  cl1_prompt_in in = {t, "cuda", "large", tpl, NULL, NULL, &ex, 1, CL1_FORMAT_CABI};
  char *sys, *user;
  build_ok(&in, &sys, &user);
  assert_string_equal(sys, "Be fast on cuda.");
  assert_string_equal(user, "Task level1/19_ReLU (level 1, large), 1 shown.\n"
                            "cuda with exemplars, fence cuda\n"
                            "not host\n"
                            "Literal {{0}} and { {x} } stay.\n"
                            "### Solution A — 2.50x the reference\n\n"
                            "````cuda\nint a; /* {{task_id}} */\n// ```\n````");
  free(sys), free(user);
  in.device = "host", in.n_exemplars = 0;
  build_ok(&in, &sys, &user);
  assert_string_equal(user, "Task level1/19_ReLU (level 1, large), 0 shown.\n"
                            "none yet\n"
                            "Literal {{0}} and { {x} } stay.");
  free(sys), free(user);
  rm_tmp(tpl);
  cl1_task_free(t);
}

/* Builds with a template text; returns the error message (static) or NULL on success. */
static const char *build_err(cl1_task *t, const char *text, char **path_out) {
  static cl1_err err;
  const char *tpl = write_tmp("t.txt", text);
  cl1_prompt_in in = {t, "cuda", "small", tpl, NULL, NULL, NULL, 0, CL1_FORMAT_CABI};
  char *sys = (char *)1, *user = (char *)1;
  memset(&err, 0, sizeof err);
  int rc = cl1_prompt_build(&in, &sys, &user, &err);
  if (path_out) *path_out = strdup(tpl);
  rm_tmp(tpl);
  if (rc == 0) {
    free(sys), free(user);
    return NULL;
  }
  assert_int_equal(rc, -1);
  assert_null(sys), assert_null(user);
  return err.msg;
}

static void test_unknown_placeholder(void **st) {
  (void)st;
  cl1_task *t = load("level1/19_ReLU");
  char *path;
  const char *e = build_err(t, "=== system ===\nhi\n=== user ===\nline one\n{{task_idd}}\n", &path);
  assert_non_null(e);
  assert_non_null(strstr(e, path));
  assert_non_null(strstr(e, "line 5"));
  assert_non_null(strstr(e, "unknown placeholder {{task_idd}}"));
  assert_non_null(strstr(e, "task_id")); /* the known ones are listed */
  free(path);
  /* in the system part, inside a section that would not render: still an error */
  e = build_err(t, "=== system ===\n{{#host}}{{gpuu}}{{/host}}\n=== user ===\nx\n", NULL);
  assert_non_null(e);
  assert_non_null(strstr(e, "{{gpuu}}"));
  assert_non_null(strstr(e, "line 2"));
  cl1_task_free(t);
}

static void test_template_errors(void **st) {
  (void)st;
  cl1_task *t = load("level1/19_ReLU");
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"just text\n", "no '=== system ===' line"},
      {"=== system ===\nx\n", "no '=== user ===' line"},
      {"=== user ===\nx\n=== system ===\ny\n", "no '=== user ===' line"},
      {"preamble\n=== system ===\nx\n=== user ===\ny\n", "text before the '=== system ===' line"},
      {"=== system ===\nx\n=== user ===\n{{#cuda}}y\n", "{{#cuda}} is never closed"},
      {"=== system ===\nx\n=== user ===\n{{#cuda}}{{^host}}y{{/cuda}}{{/host}}\n",
       "closes the section {{^host}}"},
      {"=== system ===\nx\n=== user ===\ny{{/cuda}}\n", "closes no open section"},
      {"=== system ===\nx\n=== user ===\n{{#rocm}}y{{/rocm}}\n", "unknown condition 'rocm'"},
      {"=== system ===\nx\n=== user ===\n{{task_id}\n", "malformed placeholder"},
      {"=== system ===\nx\n=== user ===\n{{! never closed\n", "comment {{! is never closed"},
      {"=== system ===\nx\n=== user ===\n{{#}}\n", "malformed section tag"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *e = build_err(t, cases[i].text, NULL);
    if (!e || !strstr(e, cases[i].want))
      fail_msg("case %zu: want '%s', got '%s'", i, cases[i].want, e ? e : "success");
  }
  /* a missing template file names it */
  cl1_prompt_in in = {t, "cuda", "small", "/nonexistent/x.txt", NULL, NULL, NULL, 0,
                      CL1_FORMAT_CABI};
  char *sys, *user;
  cl1_err err = {{0}};
  assert_int_equal(cl1_prompt_build(&in, &sys, &user, &err), -1);
  assert_non_null(strstr(err.msg, "/nonexistent/x.txt"));
  /* the rules file may not include itself */
  const char *rules = write_tmp("rules.txt", "{{rules}}\n");
  const char *tpl = write_tmp("t.txt", "=== system ===\n=== user ===\n{{rules}}\n");
  in.template_path = tpl, in.rules_path = rules;
  assert_int_equal(cl1_prompt_build(&in, &sys, &user, &err), -1);
  assert_non_null(strstr(err.msg, "cannot use {{rules}}"));
  /* a missing rules file names it */
  in.rules_path = "/nonexistent/rules.txt";
  assert_int_equal(cl1_prompt_build(&in, &sys, &user, &err), -1);
  assert_non_null(strstr(err.msg, "/nonexistent/rules.txt"));
  rm_tmp(rules), rm_tmp(tpl);
  cl1_task_free(t);
}

/* ---- kernelbench ------------------------------------------------------------------------------ */

#define RELU_MODELNEW                                                                           \
  "import torch\n"                                                                              \
  "import torch.nn as nn\n"                                                                     \
  "\n"                                                                                          \
  "class ModelNew(nn.Module):\n"                                                                \
  "    def forward(self, x):\n"                                                                 \
  "        return torch.clamp_min(x, 0)\n"

static const cl1_exemplar RELU_KB_EX[1] = {{RELU_MODELNEW, 1.10, 21}};

static void test_golden_kernelbench(void **st) {
  (void)st;
  cl1_task *t = load("level1/19_ReLU");
  cl1_prompt_in in = {t, "cuda", "small", NULL, NULL, "NVIDIA H200", RELU_KB_EX, 1,
                      CL1_FORMAT_KERNELBENCH};
  char *sys, *user;
  build_ok(&in, &sys, &user);
  check_golden("prompt_level1_19_ReLU_kernelbench.txt", sys, user);
  free(sys), free(user);
  cl1_task_free(t);
}

/* What a KernelBench prompt must say and must not: checked against the source files. */
static void test_kernelbench_content(void **st) {
  (void)st;
  cl1_task *t = load("level2/76_Gemm_Add_ReLU");
  cl1_prompt_in in = {t, "cuda", "small", NULL, NULL, NULL, RELU_KB_EX, 1,
                      CL1_FORMAT_KERNELBENCH};
  char *sys, *user, *twin = slurp("suite/level2/76_Gemm_Add_ReLU/twin.py"),
                    *ref = slurp("suite/level2/76_Gemm_Add_ReLU/reference.c");
  assert_non_null(twin), assert_non_null(ref);
  twin[strlen(twin) - 1] = 0, ref[strlen(ref) - 1] = 0;
  build_ok(&in, &sys, &user);
  /* the reference Model's source, and that its make() is no part of the interface */
  assert_non_null(strstr(user, twin));
  assert_non_null(strstr(user, "(twin.py)"));
  assert_non_null(strstr(user, "`make(dims, attrs)`"));
  assert_non_null(strstr(user, "not part of the interface"));
  /* KernelBench's rules */
  assert_non_null(strstr(user, "class ModelNew(nn.Module)"));
  assert_non_null(strstr(user, "same `__init__` signature as Model"));
  assert_non_null(strstr(user, "load_inline"));
  assert_non_null(strstr(user, "Triton"));
  assert_non_null(strstr(user, "no side streams"));
  assert_non_null(strstr(user, "Never cache results"));
  assert_non_null(strstr(user, "ONE fenced code block, tagged ```python"));
  /* the exemplar as python; the shapes as the module sees them */
  assert_non_null(strstr(user, "### Solution A — 1.10x the reference\n\n```python\nimport torch"));
  assert_non_null(strstr(user, "forward() inputs, in order:\n  x: float32 [batch_size, "
                               "in_features] = [128, 1024]"));
  assert_non_null(strstr(user, "Model's parameters (state_dict):\n  gemm.weight: float32"));
  assert_non_null(strstr(sys, "ModelNew"));
  /* nothing of the C ABI */
  static const char *const cabi[] = {"cl1_forward", "solution.h", "call->", "cl1_op_", "```c\n",
                                     "```cuda", "CUDA C++ (.cu)", "cl1_setup"};
  for (size_t i = 0; i < sizeof cabi / sizeof *cabi; i++) {
    if (strstr(user, cabi[i])) fail_msg("the kernelbench prompt shows '%s'", cabi[i]);
    if (strstr(sys, cabi[i])) fail_msg("the kernelbench system prompt shows '%s'", cabi[i]);
  }
  assert_null(strstr(user, ref));
  assert_null(strstr(user, "{{"));
  free(sys), free(user);
  /* host: CPU tensors, the first round */
  in.device = "host", in.shapes = "test", in.exemplars = NULL, in.n_exemplars = 0;
  build_ok(&in, &sys, &user);
  assert_non_null(strstr(user, "first round"));
  assert_non_null(strstr(user, "CPU tensors"));
  assert_null(strstr(user, "Triton"));
  assert_null(strstr(user, "Solution A"));
  free(sys), free(user);
  free(twin), free(ref);
  cl1_task_free(t);
}

/* An imported KernelBench task: its reference.py is the Model shown, without twin.py's make(). */
static void test_kernelbench_shows_reference_py_when_the_task_has_one(void **st) {
  (void)st;
  char dir[400], cmd[1400], out[512], path[480];
  snprintf(dir, sizeof dir, "%s/level1/19_ReLU", th_tmpdir());
  snprintf(cmd, sizeof cmd, "mkdir -p %s && cp suite/level1/19_ReLU/* %s/", dir, dir);
  assert_int_equal(th_run(cmd, out, sizeof out), 0);
  static const char refpy[] =
      "import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n"
      "    def forward(self, x):\n        return torch.relu(x)  # the imported reference\n\n"
      "def get_inputs():\n    return [torch.randn(16, 16384)]\n\n"
      "def get_init_inputs():\n    return []\n";
  snprintf(path, sizeof path, "%s/reference.py", dir);
  assert_int_equal(th_write(path, refpy), 0);
  cl1_task *t = NULL;
  cl1_err err = {{0}};
  if (cl1_task_load(dir, &t, &err)) fail_msg("%s", err.msg);
  cl1_prompt_in in = {t, "cuda", "small", NULL, NULL, NULL, NULL, 0, CL1_FORMAT_KERNELBENCH};
  char *sys, *user;
  build_ok(&in, &sys, &user);
  assert_non_null(strstr(user, "# the imported reference"));
  assert_non_null(strstr(user, "def get_init_inputs():"));
  assert_non_null(strstr(user, "(reference.py)"));
  assert_null(strstr(user, "def make("));
  assert_null(strstr(user, "make(dims, attrs)"));
  free(sys), free(user);
  /* the C ABI prompt of the same task is unchanged by it: twin.py and reference.c */
  in.format = CL1_FORMAT_CABI;
  build_ok(&in, &sys, &user);
  assert_non_null(strstr(user, "def make("));
  assert_null(strstr(user, "# the imported reference"));
  free(sys), free(user);
  cl1_task_free(t);
  snprintf(cmd, sizeof cmd, "rm -rf %s/level1", th_tmpdir());
  th_run(cmd, out, sizeof out);
}

/* A copy of 19_ReLU's folder without one of its files. */
static void test_missing_files(void **st) {
  (void)st;
  static const char *const drop[2] = {"twin.py", "reference.c"};
  static const char *const want[2] = {"the PyTorch twin", "the reference"};
  for (int k = 0; k < 2; k++) {
    char root[256], lv[300], dir[340], cmd[1400], out[512];
    snprintf(root, sizeof root, "%s", th_tmpdir());
    snprintf(lv, sizeof lv, "%s/level1", root);
    snprintf(dir, sizeof dir, "%s/19_ReLU", lv);
    snprintf(cmd, sizeof cmd, "mkdir -p %s && cp suite/level1/19_ReLU/* %s/ && rm %s/%s", dir,
             dir, dir, drop[k]);
    assert_int_equal(th_run(cmd, out, sizeof out), 0);
    cl1_task *t = NULL;
    cl1_err err = {{0}};
    if (cl1_task_load(dir, &t, &err)) fail_msg("%s", err.msg);
    cl1_prompt_in in = {t, "cuda", "small", NULL, NULL, NULL, NULL, 0, CL1_FORMAT_CABI};
    char *sys, *user;
    assert_int_equal(cl1_prompt_build(&in, &sys, &user, &err), -1);
    if (!strstr(err.msg, want[k]) || !strstr(err.msg, drop[k]) ||
        !strstr(err.msg, "No such file"))
      fail_msg("missing %s: %s", drop[k], err.msg);
    cl1_task_free(t);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    th_run(cmd, out, sizeof out);
  }
}

static void test_bad_prompt_inputs_are_refused(void **st) {
  (void)st;
  cl1_task *t = load("level1/19_ReLU");
  cl1_exemplar bad_speed = {"int x;", 0.0, 3}, no_code = {NULL, 1.5, 4};
  cl1_exemplar many[CL1_PROMPT_MAX_EXEMPLARS + 1];
  for (int i = 0; i <= CL1_PROMPT_MAX_EXEMPLARS; i++) many[i] = (cl1_exemplar){"int x;", 1.0 + i, i};
  static const struct {
    const char *device, *shapes;
    int which, n;
    const char *want;
  } cases[] = {
      {"rocm", "small", 0, 0, "device 'rocm'"},
      {"cuda", "huge", 0, 0, "shape set 'huge'"},
      {"cuda", "small", 1, 1, "solution 3) has speedup 0"},
      {"cuda", "small", 2, 1, "solution 4) has no code"},
      {"cuda", "small", 3, CL1_PROMPT_MAX_EXEMPLARS + 1, "27 exemplars"},
      {"cuda", "small", 0, 2, "2 exemplars but none given"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const cl1_exemplar *ex = cases[i].which == 1 ? &bad_speed : cases[i].which == 2 ? &no_code
                             : cases[i].which == 3 ? many : NULL;
    cl1_prompt_in in = {t, cases[i].device, cases[i].shapes, NULL, NULL, NULL, ex, cases[i].n,
                        CL1_FORMAT_CABI};
    char *sys, *user;
    cl1_err err = {{0}};
    assert_int_equal(cl1_prompt_build(&in, &sys, &user, &err), -1);
    if (!strstr(err.msg, cases[i].want)) fail_msg("case %zu: got '%s'", i, err.msg);
  }
  /* 26 exemplars are fine: labels A..Z */
  cl1_prompt_in in = {t, "cuda", "small", NULL, NULL, NULL, many, CL1_PROMPT_MAX_EXEMPLARS,
                      CL1_FORMAT_CABI};
  char *sys, *user;
  build_ok(&in, &sys, &user);
  assert_non_null(strstr(user, "### Solution Z — 26.00x the reference"));
  free(sys), free(user);
  cl1_err err = {{0}};
  assert_int_equal(cl1_prompt_build(NULL, &sys, &user, &err), -1);
  cl1_task_free(t);
}

static void test_prompt_dir_prefers_the_variable(void **st) {
  (void)st;
  setenv("CUDAL1_PROMPTS", "/some/where", 1);
  assert_string_equal(cl1_prompt_dir(), "/some/where");
  unsetenv("CUDAL1_PROMPTS");
  /* from the build folder the binary's ../prompts is absent (or is the repository's): either
     way the folder found holds the default template */
  char p[PATH_MAX + 32];
  snprintf(p, sizeof p, "%s/contrastive.txt", cl1_prompt_dir());
  assert_int_equal(access(p, R_OK), 0);
  setenv("CUDAL1_PROMPTS", "prompts", 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden_cuda),        cmocka_unit_test(test_golden_host),
      cmocka_unit_test(test_content),            cmocka_unit_test(test_user_template),
      cmocka_unit_test(test_unknown_placeholder), cmocka_unit_test(test_template_errors),
      cmocka_unit_test(test_missing_files),      cmocka_unit_test(test_bad_prompt_inputs_are_refused),
      cmocka_unit_test(test_prompt_dir_prefers_the_variable),
      cmocka_unit_test(test_golden_kernelbench),   cmocka_unit_test(test_kernelbench_content),
      cmocka_unit_test(test_kernelbench_shows_reference_py_when_the_task_has_one),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
