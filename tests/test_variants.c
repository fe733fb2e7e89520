/* test_variants.c — the verification variants (task.h, src/task/variant.c): which tensors each
 * variant changes and into what distribution, the values the host generator then draws (the same
 * per-element function the GPU generator runs, deterministic, different from the task's own
 * values, the extreme fraction), and task.json's verify_variants opt-outs: loaded with their
 * reasons, rejected with a message naming the field, and left out by cl1_inst_variants. */
#include <glob.h>
#include <math.h>
#include "harness.h"
#include "base/rng.h"
#include "task/gen_cuda.h"
#include "task/task.h"

/* Inputs: two float inputs that every input variant changes (normal, uniform), an f16 one too,
 * and five it must leave alone (integer, bool, rademacher, row-softmax). Params: three constant
 * floats (ones, zeros, const < 0), a constant integer and a kaiming float that OFF_DEFAULT
 * must leave alone. VV is where the verify_variants field goes. */
#define FIXTURE(VV)                                                                                 \
  "{\"name\": \"5_Variants\", \"level\": 1, \"number\": 5, \"description\": \"variants fixture\",\n" \
  " \"dims\": {\"test\": {\"n\": 4096}, \"small\": {\"n\": 8192}, \"large\": {\"n\": 16}},\n"        \
  " \"inputs\": [\n"                                                                                \
  "  {\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"init\": {\"dist\": \"normal\"}},\n"  \
  "  {\"name\": \"u\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"init\": {\"dist\": \"uniform\"}},\n" \
  "  {\"name\": \"h\", \"dtype\": \"f16\", \"shape\": [\"n\"],\n"                                    \
  "   \"init\": {\"dist\": \"normal\", \"mean\": 0.5, \"std\": 2}},\n"                                  \
  "  {\"name\": \"i\", \"dtype\": \"i64\", \"shape\": [\"n\"],\n"                                    \
  "   \"init\": {\"dist\": \"randint\", \"low\": 0, \"high\": 7}},\n"                                  \
  "  {\"name\": \"m\", \"dtype\": \"bool\", \"shape\": [\"n\"],\n"                                   \
  "   \"init\": {\"dist\": \"bernoulli\", \"p\": 0.5}},\n"                                            \
  "  {\"name\": \"r\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"init\": {\"dist\": \"rademacher\"}},\n" \
  "  {\"name\": \"p\", \"dtype\": \"f32\", \"shape\": [4, 16], \"init\": {\"dist\": \"softmax_normal\"}},\n" \
  "  {\"name\": \"xi\", \"dtype\": \"f32\", \"shape\": [\"n\"],\n"                                   \
  "   \"init\": {\"dist\": \"uniform\", \"low\": 2, \"high\": 3},\n"                                   \
  "   \"init_small\": {\"dist\": \"uniform\", \"low\": -1, \"high\": 3}}],\n"                          \
  " \"params\": [\n"                                                                                \
  "  {\"name\": \"w\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"init\": {\"dist\": \"ones\"}},\n"    \
  "  {\"name\": \"b\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"init\": {\"dist\": \"zeros\"}},\n"   \
  "  {\"name\": \"c\", \"dtype\": \"f32\", \"shape\": [3],\n"                                        \
  "   \"init\": {\"dist\": \"const\", \"value\": -2.5}},\n"                                             \
  "  {\"name\": \"k\", \"dtype\": \"i32\", \"shape\": [3],\n"                                        \
  "   \"init\": {\"dist\": \"const\", \"value\": 3}},\n"                                                \
  "  {\"name\": \"lw\", \"dtype\": \"f32\", \"shape\": [\"n\"],\n"                                   \
  "   \"init\": {\"dist\": \"kaiming_uniform\", \"fan_in\": \"n\"}}],\n"                               \
  " \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"n\"]}],\n"                      \
  " \"attrs\": {\"eps\": 1e-5}" VV "}\n"

enum { IN_X, IN_U, IN_H, IN_I, IN_M, IN_R, IN_P, IN_XI, N_IN };
enum { PAR_W, PAR_B, PAR_C, PAR_K, PAR_LW, N_PAR };

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

static cl1_task *load(const char *text) {
  cl1_task *t = NULL;
  cl1_err err = {{0}};
  if (cl1_task_load(write_task(text), &t, &err)) fail_msg("%s", err.msg);
  return t;
}

static void instance(const cl1_task *t, int set, cl1_inst *in) {
  cl1_err err = {{0}};
  if (cl1_task_instance(t, set, in, &err)) fail_msg("%s", err.msg);
}

static void test_variant_names_round_trip(void **state) {
  (void)state;
  for (int v = 0; v < CL1_VARIANT_N; v++)
    assert_int_equal(cl1_variant_parse(cl1_variant_name((cl1_variant)v)), v);
  assert_string_equal(cl1_variant_name(CL1_VARIANT_OFF_DEFAULT), "off_default");
  assert_string_equal(cl1_variant_name(CL1_VARIANT_EXTREME), "extreme");
  assert_int_equal(cl1_variant_parse("offsets"), -1);
  assert_int_equal(cl1_variant_parse(NULL), -1);
  assert_string_equal(cl1_variant_name(CL1_VARIANT_N), "?");
}

/* Each variant changes exactly its tensors: OFF_DEFAULT the constant float params, the input
 * variants the float inputs drawn from uniform or normal; outputs never. */
static void test_each_variant_changes_exactly_its_tensors(void **state) {
  (void)state;
  cl1_task *t = load(FIXTURE(""));
  cl1_inst in, out;
  instance(t, CL1_SHAPES_TEST, &in);
  static const bool want_in[CL1_VARIANT_N][N_IN] = {
      [CL1_VARIANT_OFFSET] = {[IN_X] = 1, [IN_U] = 1, [IN_H] = 1, [IN_XI] = 1},
      [CL1_VARIANT_WIDE] = {[IN_X] = 1, [IN_U] = 1, [IN_H] = 1, [IN_XI] = 1},
      [CL1_VARIANT_EXTREME] = {[IN_X] = 1, [IN_U] = 1, [IN_H] = 1, [IN_XI] = 1}};
  static const bool want_par[CL1_VARIANT_N][N_PAR] = {
      [CL1_VARIANT_OFF_DEFAULT] = {[PAR_W] = 1, [PAR_B] = 1, [PAR_C] = 1}};
  for (int v = 0; v < CL1_VARIANT_N; v++) {
    cl1_tinst o;
    for (int i = 0; i < N_IN; i++) {
      bool ch = cl1_tinst_variant(&in.inputs[i], 0, (cl1_variant)v, &o);
      if (ch != want_in[v][i])
        fail_msg("variant %s, input %s: changed %d, want %d", cl1_variant_name((cl1_variant)v),
                 in.inputs[i].name, ch, want_in[v][i]);
      if (!ch) assert_memory_equal(&o, &in.inputs[i], sizeof o);
      /* the same tensor as a param: the input variants never touch params */
      assert_false(cl1_tinst_variant(&in.inputs[i], 1, (cl1_variant)v, &o) &&
                   v != CL1_VARIANT_OFF_DEFAULT);
    }
    for (int i = 0; i < N_PAR; i++) {
      bool ch = cl1_tinst_variant(&in.params[i], 1, (cl1_variant)v, &o);
      if (ch != want_par[v][i])
        fail_msg("variant %s, param %s: changed %d, want %d", cl1_variant_name((cl1_variant)v),
                 in.params[i].name, ch, want_par[v][i]);
      if (!ch) assert_memory_equal(&o, &in.params[i], sizeof o);
      /* a constant input is not a param: OFF_DEFAULT is about params only */
      if (v == CL1_VARIANT_OFF_DEFAULT) assert_false(cl1_tinst_variant(&in.params[i], 0, (cl1_variant)v, &o));
    }
    assert_false(cl1_tinst_variant(&in.outputs[0], 2, (cl1_variant)v, &o));
    /* the whole instance: outputs, attrs, tolerance and sizes unchanged; true iff any tensor is */
    bool any = cl1_inst_variant(&in, (cl1_variant)v, &out);
    assert_int_equal(any, v != CL1_VARIANT_NONE);
    assert_int_equal(cl1_inst_variant_applies(&in, (cl1_variant)v), any);
    assert_memory_equal(&out.outputs[0], &in.outputs[0], sizeof out.outputs[0]);
    assert_true(out.atol == in.atol && out.rtol == in.rtol && out.attrs[0].value == in.attrs[0].value);
    assert_true(out.in_bytes == in.in_bytes && out.par_bytes == in.par_bytes);
    for (int i = 0; i < N_IN; i++) {
      assert_int_equal(out.inputs[i].numel, in.inputs[i].numel);
      if (!want_in[v][i]) assert_memory_equal(&out.inputs[i], &in.inputs[i], sizeof out.inputs[i]);
    }
    for (int i = 0; i < N_PAR; i++)
      if (!want_par[v][i]) assert_memory_equal(&out.params[i], &in.params[i], sizeof out.params[i]);
  }
  /* in place: out may be in */
  cl1_inst copy = in;
  assert_true(cl1_inst_variant(&copy, CL1_VARIANT_WIDE, &copy));
  assert_true(copy.inputs[IN_X].b == 100);
  cl1_task_free(t);
}

/* The distributions each variant resolves to. */
static void test_each_variant_resolves_to_its_distribution(void **state) {
  (void)state;
  cl1_task *t = load(FIXTURE(""));
  cl1_inst in, v;
  instance(t, CL1_SHAPES_TEST, &in);
  cl1_inst_variant(&in, CL1_VARIANT_OFF_DEFAULT, &v);
  const cl1_tinst *w = &v.params[PAR_W], *b = &v.params[PAR_B], *c = &v.params[PAR_C];
  assert_int_equal(w->dist, CL1_DIST_UNIFORM);
  assert_true(w->a == 0.25 && w->b == 1.75);       /* ones: 1 * U[0.25, 1.75) */
  assert_true(b->a == -0.75 && b->b == 0.75);      /* zeros */
  assert_true(c->a == -4.375 && c->b == -0.625);   /* -2.5: the sign kept */

  cl1_inst_variant(&in, CL1_VARIANT_OFFSET, &v);
  assert_int_equal(v.inputs[IN_X].dist, CL1_DIST_NORMAL);
  assert_true(v.inputs[IN_X].a == 100 && v.inputs[IN_X].b == 1);      /* N(0,1) + 100 std */
  assert_true(v.inputs[IN_U].a == 100 && v.inputs[IN_U].b == 101);    /* U[0,1) + 100 widths */
  assert_true(v.inputs[IN_H].a == 200.5 && v.inputs[IN_H].b == 2);
  assert_true(v.inputs[IN_XI].a == 102 && v.inputs[IN_XI].b == 103);

  cl1_inst_variant(&in, CL1_VARIANT_WIDE, &v);
  assert_true(v.inputs[IN_X].a == 0 && v.inputs[IN_X].b == 100);
  assert_true(v.inputs[IN_U].a == 0 && v.inputs[IN_U].b == 100);      /* about 0: stays >= 0 */
  assert_true(v.inputs[IN_H].a == 0.5 && v.inputs[IN_H].b == 200);    /* about the mean */
  assert_true(v.inputs[IN_XI].a == 2 && v.inputs[IN_XI].b == 102);    /* about 2: stays >= 2 */

  cl1_inst_variant(&in, CL1_VARIANT_EXTREME, &v);
  for (int i = 0; i < N_IN; i++) {
    const cl1_tinst *x = &v.inputs[i];
    if (i == IN_X || i == IN_U || i == IN_H || i == IN_XI) {
      assert_true(x->extreme_p == 1.0 / 256 && x->extreme_scale == 1024);
      assert_true(x->dist == in.inputs[i].dist && x->a == in.inputs[i].a && x->b == in.inputs[i].b);
    } else {
      assert_true(x->extreme_p == 0);
    }
  }
  assert_true(v.inputs[IN_X].extreme_center == 0 && v.inputs[IN_H].extreme_center == 0.5);
  assert_true(v.inputs[IN_U].extreme_center == 0 && v.inputs[IN_XI].extreme_center == 2);

  /* small's init for xi is U[-1, 3): it contains 0, so the centre is 0 */
  instance(t, CL1_SHAPES_SMALL, &in);
  cl1_inst_variant(&in, CL1_VARIANT_WIDE, &v);
  assert_true(v.inputs[IN_XI].a == -100 && v.inputs[IN_XI].b == 300);
  cl1_task_free(t);
}

static float f16f(uint16_t h) { return cl1_f16_to_f32(h); }

enum { N_VALUES = 8192, VALUES_SEED = 77 };

/* The fixture task at small shapes (n = N_VALUES); free the task with cl1_task_free. */
static cl1_task *small_instance(cl1_inst *in) {
  cl1_task *t = load(FIXTURE(""));
  instance(t, CL1_SHAPES_SMALL, in);
  return t;
}

/* NONE draws exactly what the host drew before variants existed: the distribution's per-element
 * sample. */
static void test_variant_none_draws_the_tasks_own_values(void **state) {
  (void)state;
  cl1_inst in;
  cl1_task *t = small_instance(&in);
  enum { N = N_VALUES };
  const uint64_t seed = VALUES_SEED;
  static float base[N];
  const uint32_t tid = cl1_tensor_id_input(IN_X);
  cl1_gen_host(&in.inputs[IN_X], base, seed, tid);
  for (int i = 0; i < N; i++)
    assert_true(base[i] == (float)cl1_rng_sample(CL1_DIST_NORMAL, 0, 1, seed, tid, (uint64_t)i));
  cl1_task_free(t);
}

/* Each input variant: the host generator draws exactly cl1_gen_value per element (what
 * gen_cuda.cu runs), the same seed gives the same values, another seed others, and the values
 * differ from NONE's as intended (offset +100, wide x100, extreme: about 1 in 256 x1024). */
static void test_variant_values_match_gen_value_and_transform_as_intended(void **state) {
  (void)state;
  cl1_inst in;
  cl1_task *t = small_instance(&in);
  enum { N = N_VALUES };
  const uint64_t seed = VALUES_SEED;
  static float base[N], got[N], again[N];
  const uint32_t tid = cl1_tensor_id_input(IN_X);
  cl1_gen_host(&in.inputs[IN_X], base, seed, tid);
  for (int v = CL1_VARIANT_OFFSET; v <= CL1_VARIANT_EXTREME; v++) {
    cl1_tinst x;
    assert_true(cl1_tinst_variant(&in.inputs[IN_X], 0, (cl1_variant)v, &x));
    cl1_gen_host(&x, got, seed, tid);
    cl1_gen_host(&x, again, seed, tid);
    assert_memory_equal(got, again, sizeof got);
    int differ = 0, scaled = 0;
    for (int i = 0; i < N; i++) {
      double gv = cl1_gen_value(x.dist, x.a, x.b, x.extreme_p, x.extreme_scale, x.extreme_center,
                                seed, tid, (uint64_t)i);
      if (got[i] != (float)gv) fail_msg("%s element %d: host %.9g, cl1_gen_value %.9g",
                                        cl1_variant_name((cl1_variant)v), i, got[i], gv);
      differ += got[i] != base[i];
      if (v == CL1_VARIANT_OFFSET && fabsf(got[i] - (base[i] + 100)) > 1e-4f)
        fail_msg("offset element %d: %.9g vs %.9g + 100", i, got[i], base[i]);
      if (v == CL1_VARIANT_WIDE && fabsf(got[i] - base[i] * 100) > 1e-5f * fabsf(got[i]) + 1e-6f)
        fail_msg("wide element %d: %.9g vs 100 * %.9g", i, got[i], base[i]);
      if (v == CL1_VARIANT_EXTREME) {
        /* a power-of-two factor: the float is exactly the unscaled one times 1024 */
        if (got[i] != base[i] && got[i] != base[i] * 1024.0f)
          fail_msg("extreme element %d: %.9g is neither %.9g nor 1024 times it", i, got[i], base[i]);
        scaled += got[i] != base[i];
      }
    }
    if (v != CL1_VARIANT_EXTREME) assert_true(differ > N * 99 / 100);
    else if (scaled < N / 256 * 8 / 10 || scaled > N / 256 * 12 / 10)
      fail_msg("extreme scaled %d of %d elements; want about %d", scaled, N, N / 256);
    /* another seed draws other elements */
    cl1_gen_host(&x, again, seed + 1, tid);
    assert_memory_not_equal(got, again, sizeof got);
  }
  cl1_task_free(t);
}

/* f16: the scaled half is the half of the scaled value (no overflow at |v| * 1024 < 65504). */
static void test_variant_extreme_scales_f16_about_the_mean(void **state) {
  (void)state;
  cl1_inst in;
  cl1_task *t = small_instance(&in);
  enum { N = N_VALUES };
  const uint64_t seed = VALUES_SEED;
  static uint16_t hb[N], hg[N];
  cl1_tinst h;
  cl1_gen_host(&in.inputs[IN_H], hb, seed, cl1_tensor_id_input(IN_H));
  assert_true(cl1_tinst_variant(&in.inputs[IN_H], 0, CL1_VARIANT_EXTREME, &h));
  cl1_gen_host(&h, hg, seed, cl1_tensor_id_input(IN_H));
  int scaled = 0;
  for (int i = 0; i < N; i++) {
    if (hg[i] == hb[i]) continue;
    scaled++;
    float want = 0.5f + (f16f(hb[i]) - 0.5f) * 1024; /* about the mean, then rounded to half */
    if (fabsf(f16f(hg[i]) - want) > 0.01f * fabsf(want) + 1)
      fail_msg("f16 extreme element %d: %g, want about %g", i, f16f(hg[i]), want);
  }
  assert_true(scaled > N / 256 / 2 && scaled < N / 256 * 2);
  cl1_task_free(t);
}

/* OFF_DEFAULT: the ones param becomes U[0.25, 1.75) values, spread out, none at 1 exactly. */
static void test_variant_off_default_spreads_a_ones_param(void **state) {
  (void)state;
  cl1_inst in;
  cl1_task *t = small_instance(&in);
  enum { N = N_VALUES };
  const uint64_t seed = VALUES_SEED;
  static float base[N], got[N];
  cl1_tinst w;
  assert_true(cl1_tinst_variant(&in.params[PAR_W], 1, CL1_VARIANT_OFF_DEFAULT, &w));
  cl1_gen_host(&in.params[PAR_W], base, seed, cl1_tensor_id_param(PAR_W));
  cl1_gen_host(&w, got, seed, cl1_tensor_id_param(PAR_W));
  double sum = 0, sq = 0;
  for (int i = 0; i < N; i++) {
    assert_true(base[i] == 1.0f);
    assert_true(got[i] >= 0.25f && got[i] < 1.75f && got[i] != 1.0f);
    sum += got[i], sq += (double)got[i] * got[i];
  }
  double mean = sum / N, sd = sqrt(sq / N - mean * mean);
  assert_true(fabs(mean - 1) < 0.05 && fabs(sd - 0.75 / sqrt(3)) < 0.05);
  cl1_task_free(t);
}

/* verify_variants: reasons stored; cl1_inst_variants lists what applies and is not opted out. */
static void test_optouts_keep_reasons_and_leave_variants_out(void **state) {
  (void)state;
  cl1_task *t = load(FIXTURE(""));
  cl1_inst in;
  cl1_variant vs[CL1_VARIANT_N];
  instance(t, CL1_SHAPES_TEST, &in);
  assert_int_equal(cl1_inst_variants(&in, vs, CL1_VARIANT_N), 4);
  for (int k = 0; k < 4; k++) assert_int_equal(vs[k], CL1_VARIANT_OFF_DEFAULT + k);
  assert_int_equal(cl1_inst_variants(&in, vs, 2), 2);  /* max respected */
  assert_int_equal(vs[1], CL1_VARIANT_OFFSET);
  for (int v = 0; v < CL1_VARIANT_N; v++) assert_null(t->variant_optout[v]);
  cl1_task_free(t);

  t = load(FIXTURE(", \"verify_variants\": {\"offset\": \"exp overflows: max_rel 3e-2\","
                   " \"extreme\": \"cancellation\"}"));
  assert_string_equal(t->variant_optout[CL1_VARIANT_OFFSET], "exp overflows: max_rel 3e-2");
  assert_string_equal(t->variant_optout[CL1_VARIANT_EXTREME], "cancellation");
  assert_null(t->variant_optout[CL1_VARIANT_WIDE]);
  instance(t, CL1_SHAPES_TEST, &in);
  assert_int_equal(cl1_inst_variants(&in, vs, CL1_VARIANT_N), 2);
  assert_int_equal(vs[0], CL1_VARIANT_OFF_DEFAULT);
  assert_int_equal(vs[1], CL1_VARIANT_WIDE);
  /* cl1_inst_variant itself still builds an opted-out variant (the twin checks measure it) */
  cl1_inst v;
  assert_true(cl1_inst_variant(&in, CL1_VARIANT_OFFSET, &v));
  cl1_task_free(t);

  /* a task with float inputs but no constant params: OFF_DEFAULT is not listed */
  static const char *relu =
      "{\"name\": \"19_ReLU\", \"level\": 1, \"number\": 19, \"description\": \"y = max(x, 0)\",\n"
      " \"dims\": {\"test\": {\"n\": 4}, \"small\": {\"n\": 16}, \"large\": {\"n\": 64}},\n"
      " \"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"init\": {\"dist\": \"uniform\"}}],\n"
      " \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"n\"]}]%s}\n";
  char text[1024];
  snprintf(text, sizeof text, relu, "");
  t = load(text);
  instance(t, CL1_SHAPES_TEST, &in);
  assert_int_equal(cl1_inst_variants(&in, vs, CL1_VARIANT_N), 3);
  assert_int_equal(vs[0], CL1_VARIANT_OFFSET);
  assert_false(cl1_inst_variant_applies(&in, CL1_VARIANT_OFF_DEFAULT));
  cl1_task_free(t);
  /* ... and opting out of it is an error: it names the field and says why */
  snprintf(text, sizeof text, relu, ", \"verify_variants\": {\"off_default\": \"n/a\"}");
  const char *path = write_task(text);
  cl1_err err = {{0}};
  assert_int_not_equal(cl1_task_load(path, &t, &err), 0);
  assert_null(t);
  assert_non_null(strstr(err.msg, "verify_variants.off_default: "));
  assert_non_null(strstr(err.msg, "does not apply"));
  assert_int_equal(strncmp(err.msg, path, strlen(path)), 0);
}

/* A variant that applies at one shape set only (init_<set>) may be opted out of. */
static void test_optout_of_a_variant_that_applies_at_one_shape_set(void **state) {
  (void)state;
  static const char *text =
      "{\"name\": \"40_Norm\", \"level\": 1, \"number\": 40, \"description\": \"affine\",\n"
      " \"dims\": {\"test\": {\"n\": 4}, \"small\": {\"n\": 16}, \"large\": {\"n\": 64}},\n"
      " \"inputs\": [{\"name\": \"x\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"init\": {\"dist\": \"normal\"}}],\n"
      " \"params\": [{\"name\": \"w\", \"dtype\": \"f32\", \"shape\": [\"n\"], \"init\": {\"dist\": \"ones\"},\n"
      "   \"init_test\": {\"dist\": \"normal\", \"mean\": 1, \"std\": 0.5}}],\n"
      " \"outputs\": [{\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [\"n\"]}],\n"
      " \"verify_variants\": {\"off_default\": \"why\"}}\n";
  cl1_task *t = load(text);
  cl1_inst in;
  instance(t, CL1_SHAPES_TEST, &in);
  assert_false(cl1_inst_variant_applies(&in, CL1_VARIANT_OFF_DEFAULT));
  instance(t, CL1_SHAPES_SMALL, &in);
  assert_true(cl1_inst_variant_applies(&in, CL1_VARIANT_OFF_DEFAULT));
  cl1_variant vs[CL1_VARIANT_N];
  int n = cl1_inst_variants(&in, vs, CL1_VARIANT_N);
  for (int k = 0; k < n; k++) assert_int_not_equal(vs[k], CL1_VARIANT_OFF_DEFAULT);
  assert_int_equal(n, 3);
  cl1_task_free(t);
}

/* Malformed verify_variants: each rejected with "PATH: FIELD: ..." naming the field. */
static void test_malformed_optouts_name_the_field(void **state) {
  (void)state;
  static const struct { const char *vv, *want; } cases[] = {
      {", \"verify_variants\": [\"offset\"]", "verify_variants: must be an object (got an array)"},
      {", \"verify_variants\": {\"offsets\": \"x\"}", "verify_variants.offsets: unknown key (allowed here: off_default, offset, wide, extreme)"},
      {", \"verify_variants\": {\"none\": \"x\"}", "verify_variants.none: unknown key"},
      {", \"verify_variants\": {\"wide\": true}", "verify_variants.wide: must be a string giving the reason for opting out (got a boolean)"},
      {", \"verify_variants\": {\"wide\": {\"why\": \"x\"}}", "verify_variants.wide: must be a string"},
      {", \"verify_variants\": {\"extreme\": \"\"}", "verify_variants.extreme: the reason for opting out must not be empty"},
      {", \"verify_variants\": {\"extreme\": \" \\t \"}", "verify_variants.extreme: the reason for opting out must not be empty"},
      {", \"verify_variants\": {\"wide\": \"a\", \"wide\": \"b\"}", "verify_variants.wide: duplicate key"},
      {", \"verify_variants\": null", "verify_variants: must be an object (got null)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[8192];
    snprintf(text, sizeof text, FIXTURE("%s"), cases[i].vv);
    const char *path = write_task(text);
    cl1_task *t = (cl1_task *)1;
    cl1_err err = {{0}};
    if (cl1_task_load(path, &t, &err) == 0) fail_msg("case %zu loaded", i);
    assert_null(t);
    if (strncmp(err.msg, path, strlen(path)) || !strstr(err.msg, cases[i].want))
      fail_msg("case %zu: got \"%s\"\n  want \"%s\"", i, err.msg, cases[i].want);
  }
}

/* Every opt-out in the suite has a reason and names a variant that applies to its task (the
 * loader checks both; this makes a stale opt-out a test failure, not only a load error). */
static void test_suite_optouts_have_reasons_and_apply(void **state) {
  (void)state;
  glob_t g;
  if (glob("suite/level*/*/task.json", 0, NULL, &g)) skip();
  int optouts = 0;
  for (size_t i = 0; i < g.gl_pathc; i++) {
    cl1_task *t = NULL;
    cl1_err err = {{0}};
    if (cl1_task_load(g.gl_pathv[i], &t, &err)) fail_msg("%s", err.msg);
    for (int v = 1; v < CL1_VARIANT_N; v++) optouts += t->variant_optout[v] != NULL;
    cl1_task_free(t);
  }
  print_message("%zu tasks, %d opt-outs\n", g.gl_pathc, optouts);
  globfree(&g);
}

/* Reads the float32 data of an exported .npy (format 1.0: the header length at bytes 8-9). */
static int read_npy_f32(const char *path, float *out, int max) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  unsigned char head[10];
  int n = -1;
  if (fread(head, 1, 10, f) == 10 && !fseek(f, 10 + head[8] + 256 * head[9], SEEK_SET))
    n = (int)fread(out, sizeof *out, (size_t)max, f);
  fclose(f);
  return n;
}

/* `cudal1 suite export --variant`: the inputs drawn under the variant, meta.json naming it; a
 * variant that changes nothing and an unknown one are usage errors naming the cause. */
static void test_export_variant_draws_inputs_under_the_variant(void **state) {
  (void)state;
  char bin[300], cmd[1200], out[4096], path[600];
  snprintf(bin, sizeof bin, "%s/cudal1", th_build());
  if (access(bin, X_OK)) skip();
  const char *dir = th_tmpdir();
  assert_non_null(dir);
  static float none[8192], off[8192];
  const char *v[2] = {"none", "offset"};
  float *dst[2] = {none, off};
  int n[2];
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, "%s suite export level1/23_Softmax --shapes test --seed 5 --variant %s %s/%s 2>&1",
             bin, v[k], dir, v[k]);
    if (th_run(cmd, out, sizeof out)) fail_msg("%s: %s", cmd, out);
    snprintf(path, sizeof path, "%s/%s/inputs_0.npy", dir, v[k]);
    n[k] = read_npy_f32(path, dst[k], 8192);
    assert_true(n[k] > 1000);
  }
  assert_int_equal(n[0], n[1]);
  for (int i = 0; i < n[0]; i++)  /* randn + 100 std: the same draws shifted */
    if (fabsf(off[i] - (none[i] + 100)) > 1e-4f) fail_msg("element %d: %g vs %g + 100", i, off[i], none[i]);
  snprintf(path, sizeof path, "%s/offset/meta.json", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t got = fread(out, 1, sizeof out - 1, f);
  out[got] = 0;
  fclose(f);
  assert_non_null(strstr(out, "\"variant\":\t\"offset\""));
  snprintf(cmd, sizeof cmd, "%s suite export level1/23_Softmax --shapes test --seed 5 --variant off_default %s/p 2>&1",
           bin, dir);
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "variant 'off_default' does not apply at shapes 'test'"));
  snprintf(cmd, sizeof cmd, "%s suite export level1/23_Softmax --shapes test --seed 5 --variant big %s/q 2>&1",
           bin, dir);
  assert_int_equal(th_run(cmd, out, sizeof out), 2);
  assert_non_null(strstr(out, "--variant: expected none, off_default, offset, wide or extreme"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_variant_names_round_trip),
      cmocka_unit_test(test_each_variant_changes_exactly_its_tensors),
      cmocka_unit_test(test_each_variant_resolves_to_its_distribution),
      cmocka_unit_test(test_variant_none_draws_the_tasks_own_values),
      cmocka_unit_test(test_variant_values_match_gen_value_and_transform_as_intended),
      cmocka_unit_test(test_variant_extreme_scales_f16_about_the_mean),
      cmocka_unit_test(test_variant_off_default_spreads_a_ones_param),
      cmocka_unit_test(test_optouts_keep_reasons_and_leave_variants_out),
      cmocka_unit_test(test_optout_of_a_variant_that_applies_at_one_shape_set),
      cmocka_unit_test(test_malformed_optouts_name_the_field),
      cmocka_unit_test(test_suite_optouts_have_reasons_and_apply),
      cmocka_unit_test(test_export_variant_draws_inputs_under_the_variant),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
