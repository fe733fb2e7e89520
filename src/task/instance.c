/* instance.c — a loaded task at one shape set: its dims' expressions evaluated into tensor sizes,
 * byte counts, generator distributions and attr values, every overflow and bad size an error
 * naming the field and the set; and whether the task's degeneracy note applies to a set. */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../base/rng.h"
#include "task.h"
static int inst_fail(const cl1_task *t, int set, const char *field, cl1_err *err) {
  return cl1_err_wrap(err, "%s: %s: at shapes '%s'", t->path, field, cl1_shapes_name(set));
}

static int inst_init(const cl1_task *t, int set, const cl1_init *in, const char *field,
                     cl1_tinst *ti, cl1_err *err) {
  switch (in->kind) {
  case CL1_INIT_UNIFORM: ti->dist = CL1_DIST_UNIFORM, ti->a = in->a, ti->b = in->b; return 0;
  case CL1_INIT_NORMAL: ti->dist = CL1_DIST_NORMAL, ti->a = in->a, ti->b = in->b; return 0;
  case CL1_INIT_ONES: ti->dist = CL1_DIST_CONST, ti->a = ti->b = 1; return 0;
  case CL1_INIT_ZEROS: ti->dist = CL1_DIST_CONST, ti->a = ti->b = 0; return 0;
  case CL1_INIT_CONST: ti->dist = CL1_DIST_CONST, ti->a = ti->b = in->a; return 0;
  case CL1_INIT_RANDINT: ti->dist = CL1_DIST_RANDINT, ti->a = in->a, ti->b = in->b; return 0;
  case CL1_INIT_BERNOULLI: ti->dist = CL1_DIST_BERNOULLI, ti->a = in->a, ti->b = 0; return 0;
  case CL1_INIT_RADEMACHER: ti->dist = CL1_DIST_RADEMACHER, ti->a = ti->b = 0; return 0;
  case CL1_INIT_SOFTMAX_NORMAL:
    ti->dist = CL1_DIST_SOFTMAX_NORMAL, ti->a = in->a, ti->b = in->b;
    return 0;
  case CL1_INIT_SOFTMAX_UNIFORM:
    ti->dist = CL1_DIST_SOFTMAX_UNIFORM, ti->a = in->a, ti->b = in->b;
    return 0;
  case CL1_INIT_KAIMING_UNIFORM:
  case CL1_INIT_FAN_IN_UNIFORM: {
    char f[256];
    snprintf(f, sizeof f, "%s.fan_in", field);
    int64_t fan;
    if (cl1_expr_eval(in->fan_in, t, set, &fan, err)) return inst_fail(t, set, f, err);
    if (fan < 1) {
      cl1_err_set(err, "'%s' is %lld; fan_in must be >= 1", in->fan_in, (long long)fan);
      return inst_fail(t, set, f, err);
    }
    double bound = in->kind == CL1_INIT_KAIMING_UNIFORM
                       ? sqrt(6.0 / ((1.0 + in->a * in->a) * (double)fan))
                       : 1.0 / sqrt((double)fan);
    ti->dist = CL1_DIST_UNIFORM, ti->a = -bound, ti->b = bound;
    return 0;
  }
  }
  return cl1_err_set(err, "%s: %s: unknown init kind %d", t->path, field, (int)in->kind);
}

static int inst_tensor(const cl1_task *t, int set, int g, int i, cl1_tinst *ti, size_t *sum,
                       cl1_err *err) {
  const cl1_tensor_spec *ts = g == 0 ? &t->inputs[i] : g == 1 ? &t->params[i] : &t->outputs[i];
  char field[64], f[128];
  snprintf(field, sizeof field, "%s[%d]", cl1_task_group_name(g), i);
  memset(ti, 0, sizeof *ti);
  ti->name = ts->name;
  ti->dtype = ts->dtype;
  ti->ndim = ts->ndim;
  int64_t numel = 1;
  for (int k = 0; k < ts->ndim; k++) {
    snprintf(f, sizeof f, "%s.shape[%d]", field, k);
    if (cl1_expr_eval(ts->shape[k], t, set, &ti->shape[k], err)) return inst_fail(t, set, f, err);
    if (ti->shape[k] < 1) {
      cl1_err_set(err, "'%s' is %lld; every dim must be >= 1", ts->shape[k],
                  (long long)ti->shape[k]);
      return inst_fail(t, set, f, err);
    }
    if (__builtin_mul_overflow(numel, ti->shape[k], &numel)) {
      cl1_err_set(err, "element count overflows");
      return inst_fail(t, set, f, err);
    }
  }
  ti->numel = numel;
  size_t bytes;
  if (__builtin_mul_overflow((size_t)numel, cl1_dtype_size(ts->dtype), &bytes) ||
      __builtin_add_overflow(*sum, bytes, sum)) {
    snprintf(f, sizeof f, "%s.shape", field);
    cl1_err_set(err, "size in bytes overflows");
    return inst_fail(t, set, f, err);
  }
  ti->bytes = bytes;
  if (g == 2) { /* outputs are never generated */
    ti->dist = CL1_DIST_CONST;
    return 0;
  }
  bool over = ts->has_init[set];
  snprintf(f, sizeof f, over ? "%s.init_%s" : "%s.init", field, cl1_shapes_name(set));
  return inst_init(t, set, over ? &ts->init_set[set] : &ts->init, f, ti, err);
}

/* Attr text is either a number written by the loader ("%.17g") or a dim expression. */
static int inst_number(const cl1_task *t, int set, const char *text, const char *field,
                       double *out, cl1_err *err) {
  char *end;
  if (isdigit((unsigned char)text[0]) || text[0] == '-' || text[0] == '+' || text[0] == '.') {
    double v = strtod(text, &end);
    if (end != text && !*end) {
      *out = v;
      return 0;
    }
  }
  int64_t v;
  if (cl1_expr_eval(text, t, set, &v, err)) return inst_fail(t, set, field, err);
  *out = (double)v;
  return 0;
}

int cl1_task_instance(const cl1_task *t, int set, cl1_inst *out, cl1_err *err) {
  assert(t && out);
  memset(out, 0, sizeof *out);
  if (set < 0 || set >= CL1_SHAPES_N || !t->has_set[set])
    return cl1_err_set(err, "%s: dims: no shape set %d", t->path, set);
  out->task = t;
  out->set = set;
  out->atol = t->set_atol[set], out->rtol = t->set_rtol[set];
  out->n_inputs = t->n_inputs, out->n_params = t->n_params, out->n_outputs = t->n_outputs;
  for (int i = 0; i < t->n_inputs; i++)
    if (inst_tensor(t, set, 0, i, &out->inputs[i], &out->in_bytes, err)) return -1;
  for (int i = 0; i < t->n_params; i++)
    if (inst_tensor(t, set, 1, i, &out->params[i], &out->par_bytes, err)) return -1;
  for (int i = 0; i < t->n_outputs; i++)
    if (inst_tensor(t, set, 2, i, &out->outputs[i], &out->out_bytes, err)) return -1;
  char f[256];
  out->n_attrs = t->n_attrs;
  for (int k = 0; k < t->n_attrs; k++) {
    out->attrs[k].name = t->attr_names[k];
    snprintf(f, sizeof f, "attrs.%s", t->attr_names[k]);
    if (inst_number(t, set, t->attr_exprs[k], f, &out->attrs[k].value, err)) return -1;
  }
  if (t->flops && inst_number(t, set, t->flops, "flops", &out->flops, err)) return -1;
  if (t->bytes && inst_number(t, set, t->bytes, "bytes", &out->bytes, err)) return -1;
  return 0;
}

/* The note says which shape sets it is about when it starts with one ("large: ...", "small:
 * ...") or with the audit's own words ("audit (test, host): ..."); any other note (whole-task
 * arguments: "min(t, 0) ... gives exactly 0", "all sets: ...") counts for every set. */
bool cl1_task_degenerate_at(const cl1_task *t, int set) {
  const char *d = t->degenerate;
  if (!d || !*d) return false;
  static const char *const names[] = {"test", "small", "large"};
  if (!strncmp(d, "audit (", 7)) d += 7;
  for (int k = 0; k < 3; k++) {
    size_t n = strlen(names[k]);
    if (!strncmp(d, names[k], n) && (d[n] == ':' || d[n] == ',')) return cl1_shapes_parse(names[k]) == set;
  }
  return true;
}
