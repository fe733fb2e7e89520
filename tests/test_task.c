/* test_task.c — the task module: dim expressions, loading and validating task.json (a valid
 * fixture, its instances at each shape set, and many malformed variants with the message each
 * must give), finding tasks by id, and every task of the suite that exists when the tests run. */
#include <glob.h>
#include <math.h>
#include <sys/stat.h>
#include "harness.h"
#include "base/rng.h"
#include "task/task.h"

/* ---- expressions ------------------------------------------------------------------------------ */

static cl1_task *expr_task(void) {
  static cl1_task t;
  static char *names[] = {"N", "K", "S", "big"};
  memset(&t, 0, sizeof t);
  t.n_dims = 4;
  for (int k = 0; k < 4; k++) t.dim_names[k] = names[k];
  int64_t v[CL1_SHAPES_N][4] = {{10, 3, 2, 4611686018427387904LL}, {100, 5, 3, 1}, {7, 7, 1, 1}};
  for (int s = 0; s < CL1_SHAPES_N; s++) {
    t.has_set[s] = true;
    for (int k = 0; k < 4; k++) t.dims[s][k] = v[s][k];
  }
  return &t;
}

static int64_t ev(const char *e, int set) {
  int64_t v = 0xdead;
  cl1_err err = {{0}};
  if (cl1_expr_eval(e, expr_task(), set, &v, &err)) fail_msg("'%s': %s", e, err.msg);
  return v;
}

static void ev_err(const char *e, const char *want) {
  int64_t v = 0;
  cl1_err err = {{0}};
  if (!cl1_expr_eval(e, expr_task(), 0, &v, &err)) fail_msg("'%s' evaluated to %lld", e, (long long)v);
  if (!strstr(err.msg, want)) fail_msg("'%s': got \"%s\", want \"%s\"", e, err.msg, want);
}

static void test_expr_values(void **state) {
  (void)state;
  assert_int_equal(ev("1+2*3", 0), 7);
  assert_int_equal(ev("(1+2)*3", 0), 9);
  assert_int_equal(ev("10 - 2 - 3", 0), 5);  /* left associative */
  assert_int_equal(ev("100 / 10 / 5", 0), 2);
  assert_int_equal(ev("2*3%4", 0), 2);       /* * and % share precedence, left to right */
  assert_int_equal(ev("N-K+1", 0), 8);
  assert_int_equal(ev("(N - K) / S + 1", 0), 4);
  assert_int_equal(ev("(N - K) / S + 1", 1), 32);
  assert_int_equal(ev("  N  ", 2), 7);
  assert_int_equal(ev("((N))*((K))", 0), 30);
  assert_int_equal(ev("-N", 0), -10);
  assert_int_equal(ev("2*-3", 0), -6);
  assert_int_equal(ev("--4", 0), 4);
  /* floor division and modulo as in Python / torch.div(rounding_mode="floor") */
  assert_int_equal(ev("7/2", 0), 3);
  assert_int_equal(ev("-7/2", 0), -4);
  assert_int_equal(ev("7/-2", 0), -4);
  assert_int_equal(ev("-7/-2", 0), 3);
  assert_int_equal(ev("-6/2", 0), -3);
  assert_int_equal(ev("-7%2", 0), 1);
  assert_int_equal(ev("7%-2", 0), -1);
  assert_int_equal(ev("-7%-2", 0), -1);
  assert_int_equal(ev("(K-N)/S", 0), -4);
  assert_int_equal(ev("big/2", 0), 2305843009213693952LL);
  assert_int_equal(ev("9223372036854775807", 0), INT64_MAX);
}

static void test_expr_errors(void **state) {
  (void)state;
  ev_err("N/(K-3)", "division by zero");
  ev_err("N%(S-2)", "modulo by zero");
  ev_err("M+1", "unknown dim 'M'");
  ev_err("M+1", "dims: N, K, S, big");
  ev_err("N*", "malformed expression");
  ev_err("N*", "column 3");
  ev_err("(N", "expected ')'");
  ev_err("N)", "unmatched ')'");
  ev_err("N $ 2", "unexpected character");
  ev_err("2N", "malformed number");
  ev_err("1.5", "malformed number");
  ev_err("", "empty expression");
  ev_err("   ", "empty expression");
  ev_err("9223372036854775807+1", "overflow");
  ev_err("99999999999999999999", "too large");
  ev_err("big*4", "overflow");
  ev_err("N K", "unexpected character");
  char deep[300];
  memset(deep, '(', 200);
  strcpy(deep + 200, "1");
  ev_err(deep, "nested too deeply");
  int64_t v;
  cl1_err err;
  assert_int_not_equal(cl1_expr_eval("N", NULL, 0, &v, &err), 0);
  assert_non_null(strstr(err.msg, "unknown dim 'N'"));
}

/* ---- a valid fixture and its malformed variants --------------------------------------------- */

static const char *fixture =
    "{\n"
    "  \"name\": \"7_Fixture\", \"level\": 2, \"number\": 7,\n"
    "  \"description\": \"fixture: conv-like shapes\",\n"
    "  \"dims\": {\n"
    "    \"test\": {\"B\": 2, \"C\": 3, \"H\": 8, \"K\": 3},\n"
    "    \"small\": {\"B\": 4, \"C\": 16, \"H\": 32, \"K\": 5},\n"
    "    \"large\": {\"B\": 64, \"C\": 64, \"H\": 256, \"K\": 7}\n"
    "  },\n"
    "  \"shapes_note\": {\"large\": \"B scaled down\"},\n"
    "  \"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"B\", \"C\", \"H\", \"H\"],\n"
    "              \"init\": {\"dist\": \"uniform\", \"low\": -1, \"high\": 1},\n"
    "              \"init_small\": {\"dist\": \"normal\", \"mean\": 0.5, \"std\": 2}}],\n"
    "  \"params\": [{\"name\": \"w\", \"dtype\": \"float16\", \"shape\": [\"C\", \"C\", \"K\", \"K\"],\n"
    "              \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": \"C*K*K\"}},\n"
    "             {\"name\": \"b\", \"dtype\": \"bf16\", \"shape\": [\"C\"],\n"
    "              \"init\": {\"dist\": \"fan_in_uniform\", \"fan_in\": \"C*K*K\"}},\n"
    "             {\"name\": \"idx\", \"dtype\": \"i64\", \"shape\": [5],\n"
    "              \"init\": {\"dist\": \"randint\", \"low\": 0, \"high\": 10}},\n"
    "             {\"name\": \"mask\", \"dtype\": \"bool\", \"shape\": [\"B\", 1],\n"
    "              \"init\": {\"dist\": \"bernoulli\", \"p\": 0.25}}],\n"
    "  \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"B\", \"C\", \"(H - K) / 2 + 1\", \"H-K+1\"]}],\n"
    "  \"attrs\": {\"eps\": 1e-5, \"kernel_size\": \"K\", \"stride\": 2, \"bias\": true},\n"
    "  \"tolerance\": {\"atol\": 0.01, \"rtol\": 0.001},\n"
    "  \"flops\": \"2*B*C*C*K*K*(H-K+1)*(H-K+1)\",\n"
    "  \"bytes\": \"4*B*C*H*H\",\n"
    "  \"notes\": \"fixture\", \"degenerate\": \"none\", \"source\": \"hand-written\"\n"
    "}\n";

static const char *minimal =
    "{\"name\": \"19_ReLU\", \"level\": 1, \"number\": 19, \"description\": \"y = max(x, 0)\",\n"
    " \"dims\": {\"test\": {\"n\": 4}, \"small\": {\"n\": 16}, \"large\": {\"n\": 64}},\n"
    " \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"n\"], \"init\": {\"dist\": \"uniform\"}}],\n"
    " \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"n\"]}]}\n";

/* Writes text as DIR/task.json in a fresh temp folder; returns the file's path (static). */
static const char *write_task(const char *text) {
  static char path[8][300];
  static int k;
  char *p = path[k++ % 8];
  const char *dir = th_tmpdir();
  assert_non_null(dir);
  snprintf(p, 300, "%s/task.json", dir);
  assert_int_equal(th_write(p, text), 0);
  return p;
}

/* The fixture with the first occurrence of `from` replaced by `to`. */
static char *variant(const char *from, const char *to) {
  const char *at = strstr(fixture, from);
  if (!at) fail_msg("fixture has no '%s'", from);
  size_t n = strlen(fixture) - strlen(from) + strlen(to) + 1;
  char *s = malloc(n);
  assert_non_null(s);
  snprintf(s, n, "%.*s%s%s", (int)(at - fixture), fixture, to, at + strlen(from));
  return s;
}

static void test_fixture_load(void **state) {
  (void)state;
  const char *path = write_task(fixture);
  cl1_task *t = NULL;
  cl1_err err = {{0}};
  if (cl1_task_load(path, &t, &err)) fail_msg("%s", err.msg);
  assert_string_equal(t->path, path);
  assert_int_equal(strncmp(t->dir, path, strlen(t->dir)), 0);
  assert_string_equal(path + strlen(t->dir), "/task.json");
  assert_string_equal(t->id, "level2/7_Fixture");
  assert_string_equal(t->name, "7_Fixture");
  assert_int_equal(t->level, 2);
  assert_int_equal(t->number, 7);
  assert_string_equal(t->description, "fixture: conv-like shapes");
  assert_int_equal(t->n_dims, 4);
  assert_string_equal(t->dim_names[0], "B");
  assert_string_equal(t->dim_names[3], "K");
  assert_int_equal(t->dims[CL1_SHAPES_SMALL][2], 32);
  assert_int_equal(t->dims[CL1_SHAPES_LARGE][1], 64);
  assert_null(t->shapes_note[CL1_SHAPES_TEST]);
  assert_string_equal(t->shapes_note[CL1_SHAPES_LARGE], "B scaled down");
  assert_int_equal(t->n_inputs, 1);
  assert_int_equal(t->n_params, 4);
  assert_int_equal(t->n_outputs, 1);
  assert_int_equal(t->inputs[0].dtype, CL1_F32);
  assert_int_equal(t->params[0].dtype, CL1_F16);
  assert_int_equal(t->params[1].dtype, CL1_BF16);
  assert_int_equal(t->params[2].dtype, CL1_I64);
  assert_int_equal(t->params[3].dtype, CL1_BOOL);
  assert_string_equal(t->params[3].name, "mask");
  assert_int_equal(t->outputs[0].ndim, 4);
  assert_string_equal(t->outputs[0].shape[2], "(H - K) / 2 + 1");
  assert_string_equal(t->params[2].shape[0], "5");
  assert_true(t->inputs[0].has_init[CL1_SHAPES_SMALL]);
  assert_false(t->inputs[0].has_init[CL1_SHAPES_LARGE]);
  assert_int_equal(t->params[0].init.kind, CL1_INIT_KAIMING_UNIFORM);
  assert_string_equal(t->params[0].init.fan_in, "C*K*K");
  assert_true(fabs(t->params[0].init.a - sqrt(5.0)) < 1e-15);
  assert_int_equal(t->n_attrs, 4);
  assert_string_equal(t->attr_names[1], "kernel_size");
  assert_true(t->atol == 0.01 && t->rtol == 0.001);
  assert_string_equal(t->flops, "2*B*C*C*K*K*(H-K+1)*(H-K+1)");
  assert_string_equal(t->notes, "fixture");
  assert_string_equal(t->degenerate, "none");
  cl1_task_free(t);

  /* the folder works as well as the file */
  char dir[300];
  snprintf(dir, sizeof dir, "%.*s", (int)(strlen(path) - strlen("/task.json")), path);
  if (cl1_task_load(dir, &t, &err)) fail_msg("%s", err.msg);
  assert_string_equal(t->path, path);
  cl1_task_free(t);
}

static void test_fixture_instance(void **state) {
  (void)state;
  cl1_task *t = NULL;
  cl1_err err = {{0}};
  if (cl1_task_load(write_task(fixture), &t, &err)) fail_msg("%s", err.msg);
  cl1_inst in;
  if (cl1_task_instance(t, CL1_SHAPES_TEST, &in, &err)) fail_msg("%s", err.msg);
  assert_ptr_equal(in.task, t);
  assert_int_equal(in.n_inputs, 1);
  assert_int_equal(in.n_params, 4);
  const cl1_tinst *x = &in.inputs[0], *w = &in.params[0], *b = &in.params[1], *y = &in.outputs[0];
  assert_string_equal(x->name, "x");
  assert_int_equal(x->ndim, 4);
  int64_t xs[4] = {2, 3, 8, 8}, ys[4] = {2, 3, 3, 6};
  for (int k = 0; k < 4; k++) assert_int_equal(x->shape[k], xs[k]);
  for (int k = 0; k < 4; k++) assert_int_equal(y->shape[k], ys[k]);
  assert_int_equal(x->numel, 384);
  assert_int_equal(x->bytes, 1536);
  assert_int_equal(x->dist, CL1_DIST_UNIFORM);
  assert_true(x->a == -1 && x->b == 1);
  assert_int_equal(w->numel, 81);
  assert_int_equal(w->bytes, 162);
  assert_int_equal(w->dist, CL1_DIST_UNIFORM);
  assert_true(fabs(w->b - 1 / sqrt(27.0)) < 1e-15 && w->a == -w->b);
  assert_true(fabs(b->b - 1 / sqrt(27.0)) < 1e-15 && b->a == -b->b);
  assert_int_equal(b->bytes, 6);
  assert_int_equal(in.params[2].dist, CL1_DIST_RANDINT);
  assert_true(in.params[2].a == 0 && in.params[2].b == 10);
  assert_int_equal(in.params[3].dist, CL1_DIST_BERNOULLI);
  assert_true(in.params[3].a == 0.25);
  assert_int_equal(in.params[3].bytes, 2);
  assert_int_equal(in.in_bytes, 1536);
  assert_int_equal(in.par_bytes, 162 + 6 + 40 + 2);
  assert_int_equal(in.out_bytes, 108 * 4);
  assert_int_equal(in.n_attrs, 4);
  assert_string_equal(in.attrs[0].name, "eps");
  assert_true(in.attrs[0].value == 1e-5);
  assert_true(in.attrs[1].value == 3);
  assert_true(in.attrs[2].value == 2);
  assert_true(in.attrs[3].value == 1);
  assert_true(in.flops == 2.0 * 2 * 3 * 3 * 3 * 3 * 6 * 6);
  assert_true(in.bytes == 4.0 * 2 * 3 * 8 * 8);

  /* small: the init_small override and K = 5 */
  if (cl1_task_instance(t, CL1_SHAPES_SMALL, &in, &err)) fail_msg("%s", err.msg);
  assert_int_equal(in.inputs[0].dist, CL1_DIST_NORMAL);
  assert_true(in.inputs[0].a == 0.5 && in.inputs[0].b == 2);
  assert_int_equal(in.outputs[0].shape[2], (32 - 5) / 2 + 1);
  assert_true(fabs(in.params[0].b - 1 / sqrt(16.0 * 25)) < 1e-15);
  assert_true(in.attrs[1].value == 5);

  /* large: the default init again */
  if (cl1_task_instance(t, CL1_SHAPES_LARGE, &in, &err)) fail_msg("%s", err.msg);
  assert_int_equal(in.inputs[0].dist, CL1_DIST_UNIFORM);
  assert_int_equal(in.inputs[0].numel, 64LL * 64 * 256 * 256);
  assert_int_equal(in.in_bytes, 4ULL * 64 * 64 * 256 * 256);

  assert_int_not_equal(cl1_task_instance(t, 3, &in, &err), 0);
  cl1_task_free(t);
}

static void test_minimal_task_gets_defaults(void **state) {
  (void)state;
  cl1_task *t = NULL;
  cl1_err err = {{0}};
  if (cl1_task_load(write_task(minimal), &t, &err)) fail_msg("%s", err.msg);
  assert_string_equal(t->id, "level1/19_ReLU");
  assert_true(t->atol == 1e-4 && t->rtol == 1e-4);
  assert_int_equal(t->n_params, 0);
  assert_int_equal(t->n_attrs, 0);
  assert_null(t->flops);
  assert_null(t->notes);
  cl1_inst in;
  if (cl1_task_instance(t, CL1_SHAPES_LARGE, &in, &err)) fail_msg("%s", err.msg);
  assert_true(in.inputs[0].a == 0 && in.inputs[0].b == 1); /* torch.rand */
  assert_true(in.flops == 0 && in.bytes == 0);
  assert_int_equal(in.outputs[0].numel, 64);
  cl1_task_free(t);
}

typedef struct {
  const char *from, *to, *want;
} bad_case;

static const bad_case bad_cases[] = {
    {"\"name\": \"7_Fixture\", ", "", ": name: missing"},
    {"\"name\": \"7_Fixture\"", "\"name\": 7", ": name: must be a string"},
    {"\"name\": \"7_Fixture\"", "\"name\": \"8_Fixture\"", ": name: '8_Fixture' must start with the task number, '7_'"},
    {"\"level\": 2", "\"level\": 4", ": level: must be 1, 2 or 3 (got 4)"},
    {"\"level\": 2", "\"level\": 0", ": level: must be 1, 2 or 3"},
    {"\"level\": 2", "\"level\": \"2\"", ": level: must be an integer (got a string)"},
    {"\"level\": 2", "\"level\": 2, \"level\": 2", ": level: duplicate key"},
    {"\"number\": 7,", "", ": number: missing"},
    {"\"description\": \"fixture: conv-like shapes\",", "", ": description: missing"},
    {"\"dims\"", "\"dimz\"", ": dimz: unknown key"},
    {",\n    \"large\": {\"B\": 64, \"C\": 64, \"H\": 256, \"K\": 7}", "", ": dims.large: missing"},
    {"\"large\": {\"B\": 64", "\"huge\": {\"B\": 64", ": dims.huge: unknown key"},
    {"\"K\": 5}", "\"M\": 5}", ": dims.small.M: dim not in dims.test"},
    {", \"K\": 5}", "}", ": dims.small: missing dim 'K'"},
    {"\"H\": 32", "\"H\": 0", ": dims.small.H: must be a positive integer (got 0)"},
    {"\"H\": 32", "\"H\": 2.5", ": dims.small.H: must be a positive integer (got 2.5)"},
    {"\"H\": 32", "\"H\": \"32\"", ": dims.small.H: must be a positive integer (got a string)"},
    {"\"H\": 32", "\"H\": 32, \"H\": 33", ": dims.small.H: duplicate dim"},
    {"{\"B\": 2,", "{\"B-1\": 2,", ": dims.test.B-1: a dim name must be an identifier"},
    {"\"large\": \"B scaled down\"", "\"larg\": \"B scaled down\"", ": shapes_note.larg: unknown key"},
    {"\"dtype\": \"f32\", \"shape\": [\"B\"", "\"dtype\": \"f33\", \"shape\": [\"B\"", ": inputs[0].dtype: unknown dtype 'f33'"},
    {"\"dtype\": \"float16\"", "\"dtpye\": \"float16\"", ": params[0].dtpye: unknown key"},
    {"[\"B\", \"C\", \"H\", \"H\"]", "[\"B\", \"M\", \"H\", \"H\"]", ": inputs[0].shape[1]: unknown dim 'M'"},
    {"[\"B\", \"C\", \"H\", \"H\"]", "[\"B\", \"C*\", \"H\", \"H\"]", ": inputs[0].shape[1]: malformed expression"},
    {"[\"B\", \"C\", \"H\", \"H\"]", "[\"B\", \"C\", \"H\", \"H\", 1, 1, 1, 1, 1]", ": inputs[0].shape: 9 entries; at most 8"},
    {"[\"B\", \"C\", \"H\", \"H\"]", "[\"B\", 0, \"H\", \"H\"]", ": inputs[0].shape[1]: must be a positive integer or a dim expression (got 0)"},
    {"[\"B\", \"C\", \"H\", \"H\"]", "[\"B\", [3], \"H\", \"H\"]", ": inputs[0].shape[1]: must be a number or a dim expression string (got an array)"},
    {"[\"B\", \"C\", \"H\", \"H\"]", "\"B\"", ": inputs[0].shape: must be an array (got a string)"},
    {"\"H-K+1\"", "\"K-H\"", ": outputs[0].shape[3]: at shapes 'test': 'K-H' is -5; every dim must be >= 1"},
    {"\"H-K+1\"", "\"H/(K-3)\"", ": outputs[0].shape[3]: at shapes 'test': division by zero"},
    {"\"init\": {\"dist\": \"uniform\", \"low\": -1, \"high\": 1},", "", ": inputs[0].init: missing (inputs and params need an init)"},
    {"\"dist\": \"uniform\"", "\"dist\": \"gaussian\"", ": inputs[0].init.dist: unknown dist 'gaussian'"},
    {"{\"dist\": \"uniform\", ", "{", ": inputs[0].init.dist: missing"},
    {"\"low\": -1, \"high\": 1", "\"low\": 1, \"high\": 1", ": inputs[0].init.low: low (1) must be below high (1)"},
    {"\"low\": -1, \"high\": 1", "\"low\": -1, \"high\": \"1\"", ": inputs[0].init.high: must be a number (got a string)"},
    {"\"low\": -1, \"high\": 1", "\"low\": -1, \"std\": 1", ": inputs[0].init.std: unknown key"},
    {"\"std\": 2", "\"std\": -2", ": inputs[0].init_small.std: must be > 0"},
    {"\"init_small\"", "\"init_huge\"", ": inputs[0].init_huge: unknown key"},
    {"{\"dist\": \"kaiming_uniform\", \"fan_in\": \"C*K*K\"}", "{\"dist\": \"kaiming_uniform\"}", ": params[0].init.fan_in: missing"},
    {"{\"dist\": \"kaiming_uniform\", \"fan_in\": \"C*K*K\"}", "{\"dist\": \"kaiming_uniform\", \"fan_in\": \"C-C\"}", ": params[0].init.fan_in: at shapes 'test': 'C-C' is 0; fan_in must be >= 1"},
    {"{\"dist\": \"kaiming_uniform\", \"fan_in\": \"C*K*K\"}", "{\"dist\": \"kaiming_uniform\", \"fan_in\": \"C*Q\"}", ": params[0].init.fan_in: unknown dim 'Q'"},
    {"\"low\": 0, \"high\": 10", "\"low\": 10, \"high\": 10", ": params[2].init.low: low (10) must be below high (10)"},
    {"\"low\": 0, \"high\": 10", "\"low\": 0.5, \"high\": 10", ": params[2].init.low: must be an integer"},
    {"\"p\": 0.25", "\"p\": 1.5", ": params[3].init.p: must be in [0, 1]"},
    {"{\"dist\": \"bernoulli\", \"p\": 0.25}", "{\"dist\": \"rademacher\", \"p\": 0.5}", ": params[3].init.p: unknown key"},
    {"{\"dist\": \"normal\", \"mean\": 0.5, \"std\": 2}", "{\"dist\": \"softmax_normal\", \"mean\": 0, \"std\": 0}", ": inputs[0].init_small.std: must be > 0"},
    {"{\"dist\": \"normal\", \"mean\": 0.5, \"std\": 2}", "{\"dist\": \"softmax_normal\", \"low\": 0}", ": inputs[0].init_small.low: unknown key"},
    {"{\"dist\": \"normal\", \"mean\": 0.5, \"std\": 2}", "{\"dist\": \"softmax_uniform\", \"low\": 1, \"high\": 0}", ": inputs[0].init_small.low: low (1) must be below high (0)"},
    {"{\"dist\": \"normal\", \"mean\": 0.5, \"std\": 2}", "{\"dist\": \"softmax\"}", ": inputs[0].init_small.dist: unknown dist 'softmax'"},
    {"\"name\": \"b\"", "\"name\": \"x\"", ": params[1].name: duplicate tensor name 'x' (also inputs[0])"},
    {"\"name\": \"b\"", "\"name\": \"w\"", ": params[1].name: duplicate tensor name 'w' (also params[0])"},
    {"\"name\": \"y\"", "\"name\": \"x\"", ": outputs[0].name: duplicate tensor name 'x' (also inputs[0])"},
    {"\"name\": \"b\"", "\"name\": \"\"", ": params[1].name: '' is not a valid tensor name"},
    {"\"H-K+1\"]}", "\"H-K+1\"], \"init\": {\"dist\": \"zeros\"}}", ": outputs[0].init: outputs have no init"},
    {"\"H-K+1\"]}", "\"H-K+1\"], \"init_small\": {\"dist\": \"zeros\"}}", ": outputs[0].init_small: outputs have no init"},
    {"\"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"B\", \"C\", \"(H - K) / 2 + 1\", \"H-K+1\"]}]", "\"outputs\": []", ": outputs: no outputs"},
    {"\"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"B\", \"C\", \"(H - K) / 2 + 1\", \"H-K+1\"]}],", "", ": outputs: missing"},
    {"\"inputs\": [", "\"inputs\": {\"a\": [", ": not valid JSON"},
    {"\"atol\": 0.01", "\"atol\": -0.01", ": tolerance.atol: must be >= 0"},
    {"\"rtol\": 0.001", "\"rtol\": \"tight\"", ": tolerance.rtol: must be a number (got a string)"},
    {"\"rtol\": 0.001", "\"rtl\": 0.001", ": tolerance.rtl: unknown key"},
    {"\"tolerance\": {", "\"tolerance_large\": {\"atol\": -1}, \"tolerance\": {", ": tolerance_large.atol: must be >= 0"},
    {"\"tolerance\": {", "\"tolerance_test\": 0.1, \"tolerance\": {", ": tolerance_test: must be an object (got a number)"},
    {"\"tolerance\": {", "\"tolerance_huge\": {}, \"tolerance\": {", ": tolerance_huge: unknown key"},
    {"\"tolerance\": {", "\"reference\": \"/etc/ref.c\", \"tolerance\": {", ": reference: '/etc/ref.c' must be a relative path to a .c file"},
    {"\"tolerance\": {", "\"reference\": \"../none/reference.c\", \"tolerance\": {", ": reference: '../none/reference.c' not found"},
    {"\"tolerance\": {", "\"reference\": 3, \"tolerance\": {", ": reference: must be a string"},
    {"\"stride\": 2", "\"stride\": [2, 2]", ": attrs.stride: must be a number, a boolean or a dim expression string (got an array)"},
    {"\"stride\": 2", "\"stride\": {\"h\": 2}", ": attrs.stride: must be a number, a boolean or a dim expression string (got an object)"},
    {"\"kernel_size\": \"K\"", "\"kernel_size\": \"Q\"", ": attrs.kernel_size: unknown dim 'Q'"},
    {"\"stride\": 2", "\"stride\": 2, \"stride\": 3", ": attrs.stride: duplicate attr"},
    {"\"flops\": \"2*B", "\"flops\": \"2**B", ": flops: malformed expression"},
    {"\"bytes\": \"4*B*C*H*H\"", "\"bytes\": \"B*B*B*B*B*B*B*B*B*B*B*B*B*B*B*B*B*B*B*B\"", ": bytes: at shapes 'large': integer overflow"},
    {"\"notes\": \"fixture\"", "\"note\": \"fixture\"", ": note: unknown key"},
    {"\"notes\": \"fixture\"", "\"notes\": 3", ": notes: must be a string (got a number)"},
};

static void test_malformed_task_refused_naming_the_field(void **state) {
  (void)state;
  int n = (int)(sizeof bad_cases / sizeof bad_cases[0]);
  for (int i = 0; i < n; i++) {
    char *text = variant(bad_cases[i].from, bad_cases[i].to);
    const char *path = write_task(text);
    free(text);
    cl1_task *t = (cl1_task *)1;
    cl1_err err = {{0}};
    if (cl1_task_load(path, &t, &err) == 0)
      fail_msg("case %d (%s -> %s) loaded", i, bad_cases[i].from, bad_cases[i].to);
    assert_null(t);
    if (strncmp(err.msg, path, strlen(path)) || !strstr(err.msg, bad_cases[i].want))
      fail_msg("case %d: got \"%s\"\n  want \"%s\"", i, err.msg, bad_cases[i].want);
    if (getenv("CL1_TEST_VERBOSE")) print_message("%s\n", err.msg + strlen(path));
  }
  print_message("%d malformed variants rejected with their messages\n", n);
}

/* tolerance_<set> overrides one shape set's tolerance, field by field; the others keep
 * "tolerance". */
static void test_set_tolerance(void **state) {
  (void)state;
  char *text = variant("\"tolerance\": {", "\"tolerance_test\": {\"atol\": 0.5}, "
                       "\"tolerance_large\": {\"atol\": 2, \"rtol\": 0.25}, \"tolerance\": {");
  cl1_task *t = NULL;
  cl1_err err = {{0}};
  if (cl1_task_load(write_task(text), &t, &err)) fail_msg("%s", err.msg);
  free(text);
  cl1_inst in;
  double want[3][2] = {{0.5, 0.001}, {0.01, 0.001}, {2, 0.25}};
  for (int s = 0; s < CL1_SHAPES_N; s++) {
    if (cl1_task_instance(t, s, &in, &err)) fail_msg("%s", err.msg);
    assert_true(in.atol == want[s][0] && in.rtol == want[s][1]);
  }
  assert_true(t->atol == 0.01 && t->rtol == 0.001);
  cl1_task_free(t);
}

/* rademacher and the row-softmax dists: parsed, resolved and generated on the host. */
static void test_new_dists(void **state) {
  (void)state;
  static const char *text =
      "{\"name\": \"98_x\", \"level\": 1, \"number\": 98, \"description\": \"dists\",\n"
      " \"dims\": {\"test\": {\"r\": 3, \"c\": 37}, \"small\": {\"r\": 1, \"c\": 1},"
      " \"large\": {\"r\": 2, \"c\": 5}},\n"
      " \"inputs\": [{\"name\": \"p\", \"dtype\": \"f32\", \"shape\": [\"r\", \"c\"],\n"
      "   \"init\": {\"dist\": \"softmax_normal\", \"mean\": 0.5, \"std\": 2},\n"
      "   \"init_large\": {\"dist\": \"softmax_uniform\", \"high\": 0.5}},\n"
      "  {\"name\": \"t\", \"dtype\": \"f32\", \"shape\": [\"r\", \"c\"], \"init\": {\"dist\": \"rademacher\"}}],\n"
      " \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [1]}]}\n";
  cl1_task *t = NULL;
  cl1_err err = {{0}};
  if (cl1_task_load(write_task(text), &t, &err)) fail_msg("%s", err.msg);
  cl1_inst in;
  if (cl1_task_instance(t, CL1_SHAPES_TEST, &in, &err)) fail_msg("%s", err.msg);
  const cl1_tinst *p = &in.inputs[0], *r = &in.inputs[1];
  assert_int_equal(p->dist, CL1_DIST_SOFTMAX_NORMAL);
  assert_true(p->a == 0.5 && p->b == 2);
  assert_int_equal(r->dist, CL1_DIST_RADEMACHER);
  float pv[3 * 37], rv[3 * 37];
  const uint64_t seed = 12345;
  cl1_gen_host(p, pv, seed, cl1_tensor_id_input(0));
  cl1_gen_host(r, rv, seed, cl1_tensor_id_input(1));
  int plus = 0;
  for (int i = 0; i < 3 * 37; i++) {
    if (rv[i] != 1.0f && rv[i] != -1.0f) fail_msg("rademacher element %d is %g", i, rv[i]);
    plus += rv[i] > 0;
  }
  assert_true(plus > 20 && plus < 3 * 37 - 20);  // both signs, roughly balanced
  /* each row: the softmax of the N(0.5, 2^2) samples of the same counters */
  for (int row = 0; row < 3; row++) {
    double v[37], m = -INFINITY, sum = 0, tot = 0;
    for (int j = 0; j < 37; j++) {
      v[j] = cl1_rng_sample(CL1_DIST_NORMAL, 0.5, 2, seed, cl1_tensor_id_input(0),
                            (uint64_t)(row * 37 + j));
      m = fmax(m, v[j]);
    }
    for (int j = 0; j < 37; j++) sum += exp(v[j] - m);
    for (int j = 0; j < 37; j++) {
      double want = exp(v[j] - m) / sum;
      float got = pv[row * 37 + j];
      if (!(got > 0) || fabs(got - want) > 1e-7 * want)
        fail_msg("softmax_normal row %d col %d: got %.9g want %.9g", row, j, got, want);
      tot += got;
    }
    assert_true(fabs(tot - 1) < 1e-5);
  }
  /* large: uniform samples in [0, 0.5) before the softmax; 0-dim-like small rows of one */
  if (cl1_task_instance(t, CL1_SHAPES_LARGE, &in, &err)) fail_msg("%s", err.msg);
  assert_int_equal(in.inputs[0].dist, CL1_DIST_SOFTMAX_UNIFORM);
  assert_true(in.inputs[0].a == 0 && in.inputs[0].b == 0.5);
  float q[10];
  cl1_gen_host(&in.inputs[0], q, seed, cl1_tensor_id_input(0));
  for (int row = 0; row < 2; row++) {
    double tot = 0;
    for (int j = 0; j < 5; j++) {
      float x = q[row * 5 + j];
      assert_true(x > 1.0 / 5 / 1.7 && x < 1.7 / 5);  // exp of a spread < 0.5: near-uniform
      tot += x;
    }
    assert_true(fabs(tot - 1) < 1e-6);
  }
  if (cl1_task_instance(t, CL1_SHAPES_SMALL, &in, &err)) fail_msg("%s", err.msg);
  float one;
  cl1_gen_host(&in.inputs[0], &one, seed, cl1_tensor_id_input(0));
  assert_true(one == 1.0f);
  cl1_task_free(t);
}

static void test_not_json(void **state) {
  (void)state;
  const char *path = write_task("{\n  \"name\": \"1_x\",\n  \"level\": 1,,\n}\n");
  cl1_task *t = NULL;
  cl1_err err;
  assert_int_not_equal(cl1_task_load(path, &t, &err), 0);
  assert_null(t);
  if (!strstr(err.msg, ": line 3, column ") || !strstr(err.msg, "not valid JSON"))
    fail_msg("%s", err.msg);
  assert_int_not_equal(cl1_task_load(write_task("[1, 2]"), &t, &err), 0);
  assert_non_null(strstr(err.msg, "must be an object (got an array)"));
  assert_int_not_equal(cl1_task_load(write_task(""), &t, &err), 0);
  assert_non_null(strstr(err.msg, "line 1, column 1: not valid JSON"));
}

static void test_not_found(void **state) {
  (void)state;
  cl1_task *t = NULL;
  cl1_err err;
  assert_int_not_equal(cl1_task_load("/nonexistent/cl1/task.json", &t, &err), 0);
  assert_null(t);
  assert_non_null(strstr(err.msg, "/nonexistent/cl1/task.json: No such file"));
  const char *dir = th_tmpdir(); /* a folder without a task.json */
  assert_int_not_equal(cl1_task_load(dir, &t, &err), 0);
  assert_non_null(strstr(err.msg, "/task.json: No such file"));
  /* a NUL byte would stop the JSON parser short of the rest of the file */
  char p[300];
  snprintf(p, sizeof p, "%s/task.json", dir);
  assert_int_equal(th_write_bytes(p, "{}\0{\"x\": 1}", 12), 0);
  assert_int_not_equal(cl1_task_load(p, &t, &err), 0);
  assert_non_null(strstr(err.msg, "task.json: contains a NUL byte"));
  unlink(p);
}

/* ---- find ------------------------------------------------------------------------------------- */

static void mk_task(const char *root, const char *rel) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", root, rel);
  for (char *s = p + strlen(root) + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      mkdir(p, 0755);
      *s = '/';
    }
  mkdir(p, 0755);
  strcat(p, "/task.json");
  assert_int_equal(th_write(p, "{}"), 0);
}

static void find_ok(const char *root, const char *q, const char *want_rel) {
  char out[512], want[512];
  cl1_err err = {{0}};
  if (cl1_task_find(root, q, out, sizeof out, &err)) fail_msg("'%s': %s", q, err.msg);
  snprintf(want, sizeof want, "%s/%s", root, want_rel);
  if (strcmp(out, want)) fail_msg("'%s' -> %s, want %s", q, out, want);
}

static void test_find_resolves_task_ids_and_paths(void **state) {
  (void)state;
  const char *root = th_tmpdir();
  mk_task(root, "level1/19_ReLU");
  mk_task(root, "level1/1_Square_matrix_multiplication_");
  mk_task(root, "level1/100_HingeLoss");
  mk_task(root, "level2/19_ConvTranspose2d_GELU_GroupNorm");
  mk_task(root, "level3/1_MLP");
  find_ok(root, "level1/19_ReLU", "level1/19_ReLU");
  find_ok(root, "19_ReLU", "level1/19_ReLU");
  find_ok(root, "level1/19", "level1/19_ReLU");
  find_ok(root, "1/19", "level1/19_ReLU");
  find_ok(root, "2/19", "level2/19_ConvTranspose2d_GELU_GroupNorm");
  find_ok(root, "level1/1", "level1/1_Square_matrix_multiplication_"); /* not 100_ or 19_ */
  find_ok(root, "level1/100", "level1/100_HingeLoss");
  find_ok(root, "1_MLP", "level3/1_MLP");
  find_ok(root, "level1/19_ReLU/", "level1/19_ReLU");

  char out[512], path[512];
  cl1_err err;
  snprintf(path, sizeof path, "%s/level3/1_MLP", root);
  assert_int_equal(cl1_task_find("/nonexistent", path, out, sizeof out, &err), 0);
  assert_string_equal(out, path);
  strcat(path, "/task.json");
  assert_int_equal(cl1_task_find("/nonexistent", path, out, sizeof out, &err), 0);
  path[strlen(path) - strlen("/task.json")] = 0;
  assert_string_equal(out, path);

  /* another file in the folder does not stand for its task.json */
  snprintf(path, sizeof path, "%s/level3/1_MLP/reference.c", root);
  assert_int_equal(th_write(path, "int x;\n"), 0);
  assert_int_equal(cl1_task_find("/nonexistent", path, out, sizeof out, &err), 1);

  /* nothing matching is 1, other errors -1: the CLI words the first one for the user */
  assert_int_equal(cl1_task_find(root, "19", out, sizeof out, &err), -1);
  assert_non_null(strstr(err.msg, "ambiguous"));
  assert_int_equal(cl1_task_find(root, "level1/42_Nope", out, sizeof out, &err), 1);
  assert_non_null(strstr(err.msg, "not found"));
  assert_non_null(strstr(err.msg, "level1/42_Nope"));
  assert_int_not_equal(cl1_task_find(root, "level4/19", out, sizeof out, &err), 0);
  assert_int_not_equal(cl1_task_find(root, "99_Nothing", out, sizeof out, &err), 0);
  assert_non_null(strstr(err.msg, "level3/99_Nothing")); /* it says what it tried */
  assert_int_not_equal(cl1_task_find(root, "level1/19_ReLU", out, 8, &err), 0);
}

static void test_suite_root(void **state) {
  (void)state;
  char *old = getenv("CUDAL1_SUITE") ? strdup(getenv("CUDAL1_SUITE")) : NULL;
  setenv("CUDAL1_SUITE", "/some/suite", 1);
  assert_string_equal(cl1_suite_root(), "/some/suite");
  unsetenv("CUDAL1_SUITE");
  const char *r = cl1_suite_root(); /* build/tests/../suite does not exist */
  assert_true(!strcmp(r, "suite") || strstr(r, "/suite"));
  if (old) setenv("CUDAL1_SUITE", old, 1), free(old);
}

static void test_dtype_and_shape_set_names_round_trip(void **state) {
  (void)state;
  assert_int_equal(cl1_dtype_parse("f32"), CL1_F32);
  assert_int_equal(cl1_dtype_parse("float32"), CL1_F32);
  assert_int_equal(cl1_dtype_parse("bfloat16"), CL1_BF16);
  assert_int_equal(cl1_dtype_parse("int64"), CL1_I64);
  assert_int_equal(cl1_dtype_parse("uint8"), CL1_U8);
  assert_int_equal(cl1_dtype_parse("bool"), CL1_BOOL);
  assert_int_equal(cl1_dtype_parse("f33"), -1);
  assert_int_equal(cl1_dtype_parse(NULL), -1);
  static const size_t sizes[] = {4, 2, 2, 8, 4, 8, 1, 1};
  for (int d = 0; d < 8; d++) {
    assert_int_equal(cl1_dtype_size(d), sizes[d]);
    assert_int_equal(cl1_dtype_parse(cl1_dtype_name(d)), d);
  }
  assert_int_equal(cl1_dtype_size(8), 0);
  for (int s = 0; s < CL1_SHAPES_N; s++) assert_int_equal(cl1_shapes_parse(cl1_shapes_name(s)), s);
  assert_int_equal(cl1_shapes_parse("huge"), -1);
}

/* ---- the suite -------------------------------------------------------------------------------- */

static void test_suite_tasks(void **state) {
  (void)state;
  glob_t g;
  int rc = glob("suite/level*/*/task.json", 0, NULL, &g);
  if (rc == GLOB_NOMATCH) {
    print_message("no suite tasks yet\n");
    return;
  }
  assert_int_equal(rc, 0);
  int bad = 0;
  for (size_t i = 0; i < g.gl_pathc; i++) {
    const char *p = g.gl_pathv[i];
    cl1_task *t = NULL;
    cl1_err err;
    if (cl1_task_load(p, &t, &err)) {
      print_error("%s\n", err.msg);
      bad++;
      continue;
    }
    char want[600]; /* suite/<level>/<name>/task.json: the folder names are the id */
    snprintf(want, sizeof want, "suite/%s/task.json", t->id);
    if (strcmp(p, want)) {
      print_error("%s: id %s does not match its folder\n", p, t->id);
      bad++;
    }
    cl1_inst in;
    for (int s = 0; s < CL1_SHAPES_N; s++)
      if (cl1_task_instance(t, s, &in, &err)) print_error("%s\n", err.msg), bad++;
    cl1_task_free(t);
  }
  print_message("%zu suite tasks checked\n", g.gl_pathc);
  globfree(&g);
  assert_int_equal(bad, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_expr_values),  cmocka_unit_test(test_expr_errors),
      cmocka_unit_test(test_fixture_load), cmocka_unit_test(test_fixture_instance),
      cmocka_unit_test(test_minimal_task_gets_defaults),     cmocka_unit_test(test_malformed_task_refused_naming_the_field),
      cmocka_unit_test(test_new_dists),    cmocka_unit_test(test_set_tolerance),
      cmocka_unit_test(test_not_json),     cmocka_unit_test(test_not_found),
      cmocka_unit_test(test_find_resolves_task_ids_and_paths),         cmocka_unit_test(test_suite_root),
      cmocka_unit_test(test_dtype_and_shape_set_names_round_trip),        cmocka_unit_test(test_suite_tasks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
