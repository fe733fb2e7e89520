/* task.c — task.json (docs/task-format.md): loading with strict validation, and the dtype/shape-set
 * name tables (instances at one shape set: instance.c; finding a task by id: find.c).
 * The loader rejects anything it does not understand (unknown keys included): a typo in a task
 * must be an error naming its field, never a silently different task. */
#include <assert.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "task.h"
#include "../base/file.h"

/* ---- names ---------------------------------------------------------------------------------- */

static const char *const set_names[CL1_SHAPES_N] = {"test", "small", "large"};

const char *cl1_shapes_name(int set) {
  return set >= 0 && set < CL1_SHAPES_N ? set_names[set] : "?";
}

int cl1_shapes_parse(const char *s) {
  for (int i = 0; s && i < CL1_SHAPES_N; i++)
    if (!strcmp(s, set_names[i])) return i;
  return -1;
}

static const struct {
  const char *name, *alt1, *alt2;
  size_t size;
} dtypes[] = {
    [CL1_F32] = {"f32", "float32", "float", 4},    [CL1_F16] = {"f16", "float16", "half", 2},
    [CL1_BF16] = {"bf16", "bfloat16", NULL, 2},    [CL1_F64] = {"f64", "float64", "double", 8},
    [CL1_I32] = {"i32", "int32", NULL, 4},         [CL1_I64] = {"i64", "int64", "long", 8},
    [CL1_U8] = {"u8", "uint8", NULL, 1},           [CL1_BOOL] = {"bool", NULL, NULL, 1},
};
#define N_DTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

const char *cl1_dtype_name(int dtype) {
  return dtype >= 0 && dtype < N_DTYPES ? dtypes[dtype].name : "?";
}

int cl1_dtype_parse(const char *s) {
  for (int i = 0; s && i < N_DTYPES; i++)
    if (!strcmp(s, dtypes[i].name) || (dtypes[i].alt1 && !strcmp(s, dtypes[i].alt1)) ||
        (dtypes[i].alt2 && !strcmp(s, dtypes[i].alt2)))
      return i;
  return -1;
}

size_t cl1_dtype_size(int dtype) { return dtype >= 0 && dtype < N_DTYPES ? dtypes[dtype].size : 0; }

/* ---- loader helpers ------------------------------------------------------------------------- */

typedef struct {
  const char *path;
  cl1_err *err;
} lctx;

static int lfail(lctx *c, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int lfail(lctx *c, const char *field, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cl1_err_set(c->err, "%s: %s: %s", c->path, field, msg);
}

static const char *jtype(const cJSON *j) {
  if (cJSON_IsString(j)) return "a string";
  if (cJSON_IsNumber(j)) return "a number";
  if (cJSON_IsArray(j)) return "an array";
  if (cJSON_IsObject(j)) return "an object";
  if (cJSON_IsBool(j)) return "a boolean";
  if (cJSON_IsNull(j)) return "null";
  return "an invalid value";
}

/* "parent.key", or "key" at the top level. */
static const char *fld(char *buf, size_t n, const char *parent, const char *key) {
  snprintf(buf, n, "%s%s%s", parent, *parent ? "." : "", key);
  return buf;
}

static int dup_str(lctx *c, const char *field, const char *s, char **out) {
  *out = strdup(s);
  return *out ? 0 : lfail(c, field, "out of memory");
}

/* Unknown or repeated keys are errors: cJSON would keep a repeated key and we would read only
 * the first, so a second "init" meant as a fix would silently do nothing. */
static int check_keys(lctx *c, const cJSON *obj, const char *field, const char *const *allowed) {
  char f[256];
  for (const cJSON *k = obj->child; k; k = k->next) {
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++) ok = !strcmp(k->string, allowed[i]);
    if (!ok) {
      char list[512] = "";
      size_t n = 0;
      for (int i = 0; allowed[i] && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", allowed[i]);
      return lfail(c, fld(f, sizeof f, field, k->string), "unknown key (allowed here: %s)", list);
    }
    for (const cJSON *p = obj->child; p != k; p = p->next)
      if (!strcmp(p->string, k->string))
        return lfail(c, fld(f, sizeof f, field, k->string), "duplicate key");
  }
  return 0;
}

static int is_int(double d, double lo, double hi) { return d >= lo && d <= hi && d == floor(d); }

/* An integer field: required, or optional with a default left in *out. */
static int get_int(lctx *c, const cJSON *obj, const char *key, const char *parent, bool required,
                   double lo, double hi, int64_t *out) {
  char f[256];
  fld(f, sizeof f, parent, key);
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!j) return required ? lfail(c, f, "missing") : 0;
  if (!cJSON_IsNumber(j)) return lfail(c, f, "must be an integer (got %s)", jtype(j));
  if (!is_int(j->valuedouble, -INFINITY, INFINITY))
    return lfail(c, f, "must be an integer (got %.17g)", j->valuedouble);
  if (!is_int(j->valuedouble, lo, hi))
    return lfail(c, f, "must be in %.0f..%.0f (got %.17g)", lo, hi, j->valuedouble);
  *out = (int64_t)j->valuedouble;
  return 0;
}

static int get_num(lctx *c, const cJSON *obj, const char *key, const char *parent, bool required,
                   double *out) {
  char f[256];
  fld(f, sizeof f, parent, key);
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!j) return required ? lfail(c, f, "missing") : 0;
  if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
    return lfail(c, f, "must be a number (got %s)", jtype(j));
  *out = j->valuedouble;
  return 0;
}

/* An optional string field; *out stays NULL when absent. */
static int get_str(lctx *c, const cJSON *obj, const char *key, const char *parent, bool required,
                   char **out) {
  char f[256];
  fld(f, sizeof f, parent, key);
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!j) return required ? lfail(c, f, "missing") : 0;
  if (!cJSON_IsString(j)) return lfail(c, f, "must be a string (got %s)", jtype(j));
  return dup_str(c, f, j->valuestring, out);
}

/* Evaluates an expression at every set so a bad name, bad syntax or a division by zero at any
 * set is a load error. Value errors say at which set they happen; syntax errors need not. */
static int check_expr(lctx *c, const cl1_task *t, const char *text, const char *field) {
  for (int s = 0; s < CL1_SHAPES_N; s++) {
    int64_t v;
    if (cl1_expr_eval(text, t, s, &v, c->err)) {
      const char *m = c->err->msg;
      bool value_err = strstr(m, "by zero") || strstr(m, "overflow");
      if (value_err) return cl1_err_wrap(c->err, "%s: %s: at shapes '%s'", c->path, field,
                                         set_names[s]);
      return cl1_err_wrap(c->err, "%s: %s", c->path, field);
    }
  }
  return 0;
}

/* A number or a dim expression, stored as text (numbers with full double precision). */
static int expr_or_number(lctx *c, const cl1_task *t, const cJSON *j, const char *field,
                          bool integer, char **out) {
  char buf[64];
  if (cJSON_IsNumber(j)) {
    if (!isfinite(j->valuedouble)) return lfail(c, field, "must be finite");
    if (integer && !is_int(j->valuedouble, -9007199254740992.0, 9007199254740992.0))
      return lfail(c, field, "must be an integer or a dim expression (got %.17g)", j->valuedouble);
    snprintf(buf, sizeof buf, "%.17g", j->valuedouble);
    return dup_str(c, field, buf, out);
  }
  if (cJSON_IsBool(j) && !integer) return dup_str(c, field, cJSON_IsTrue(j) ? "1" : "0", out);
  if (!cJSON_IsString(j))
    return lfail(c, field, "must be a number or a dim expression string (got %s)", jtype(j));
  if (check_expr(c, t, j->valuestring, field)) return -1;
  return dup_str(c, field, j->valuestring, out);
}

/* ---- dims ----------------------------------------------------------------------------------- */

static bool is_ident(const char *s) {
  if (!*s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return false;
  return true;
}

static int dim_index(const cl1_task *t, const char *name) {
  for (int k = 0; k < t->n_dims; k++)
    if (!strcmp(t->dim_names[k], name)) return k;
  return -1;
}

static int parse_dims(lctx *c, cl1_task *t, const cJSON *dims) {
  char f[256];
  if (!dims) return lfail(c, "dims", "missing (every task needs sets test, small and large)");
  if (!cJSON_IsObject(dims)) return lfail(c, "dims", "must be an object (got %s)", jtype(dims));
  if (check_keys(c, dims, "dims", (const char *const[]){"test", "small", "large", NULL}))
    return -1;
  for (int s = 0; s < CL1_SHAPES_N; s++) {
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(dims, set_names[s]);
    snprintf(f, sizeof f, "dims.%s", set_names[s]);
    if (!set) return lfail(c, f, "missing (every task needs sets test, small and large)");
    if (!cJSON_IsObject(set)) return lfail(c, f, "must be an object (got %s)", jtype(set));
    int n = 0;
    for (const cJSON *d = set->child; d; d = d->next, n++) {
      snprintf(f, sizeof f, "dims.%s.%s", set_names[s], d->string);
      for (const cJSON *p = set->child; p != d; p = p->next)
        if (!strcmp(p->string, d->string)) return lfail(c, f, "duplicate dim");
      if (!is_ident(d->string))
        return lfail(c, f, "a dim name must be an identifier (letters, digits, _)");
      if (!cJSON_IsNumber(d)) return lfail(c, f, "must be a positive integer (got %s)", jtype(d));
      if (!is_int(d->valuedouble, 1, 9007199254740992.0))
        return lfail(c, f, "must be a positive integer (got %.17g)", d->valuedouble);
      int k = dim_index(t, d->string);
      if (s == 0) {
        if (t->n_dims >= CL1_TASK_MAX_DIMS)
          return lfail(c, f, "too many dims (at most %d)", CL1_TASK_MAX_DIMS);
        if (dup_str(c, f, d->string, &t->dim_names[t->n_dims])) return -1;
        k = t->n_dims++;
      } else if (k < 0) {
        return lfail(c, f, "dim not in dims.test (every set names the same dims)");
      }
      t->dims[s][k] = (int64_t)d->valuedouble;
    }
    snprintf(f, sizeof f, "dims.%s", set_names[s]);
    if (n != t->n_dims)
      for (int k = 0; k < t->n_dims; k++)
        if (!cJSON_GetObjectItemCaseSensitive(set, t->dim_names[k]))
          return lfail(c, f, "missing dim '%s' (every set names the same dims as dims.test)",
                       t->dim_names[k]);
    t->has_set[s] = true;
  }
  return 0;
}

/* ---- tensors -------------------------------------------------------------------------------- */

static const struct {
  const char *name;
  cl1_init_kind kind;
  const char *keys[4]; /* allowed besides "dist" */
} init_kinds[] = {
    {"uniform", CL1_INIT_UNIFORM, {"low", "high"}},
    {"normal", CL1_INIT_NORMAL, {"mean", "std"}},
    {"ones", CL1_INIT_ONES, {0}},
    {"zeros", CL1_INIT_ZEROS, {0}},
    {"const", CL1_INIT_CONST, {"value"}},
    {"randint", CL1_INIT_RANDINT, {"low", "high"}},
    {"bernoulli", CL1_INIT_BERNOULLI, {"p"}},
    {"kaiming_uniform", CL1_INIT_KAIMING_UNIFORM, {"fan_in", "a"}},
    {"fan_in_uniform", CL1_INIT_FAN_IN_UNIFORM, {"fan_in"}},
    {"rademacher", CL1_INIT_RADEMACHER, {0}},
    {"softmax_normal", CL1_INIT_SOFTMAX_NORMAL, {"mean", "std"}},
    {"softmax_uniform", CL1_INIT_SOFTMAX_UNIFORM, {"low", "high"}},
};
#define N_INIT_KINDS ((int)(sizeof init_kinds / sizeof init_kinds[0]))

static int parse_init(lctx *c, const cl1_task *t, const cJSON *j, const char *field,
                      cl1_init *in) {
  char f[256];
  if (!cJSON_IsObject(j)) return lfail(c, field, "must be an object (got %s)", jtype(j));
  const cJSON *dist = cJSON_GetObjectItemCaseSensitive(j, "dist");
  fld(f, sizeof f, field, "dist");
  if (!dist) return lfail(c, f, "missing");
  if (!cJSON_IsString(dist)) return lfail(c, f, "must be a string (got %s)", jtype(dist));
  int ki = -1;
  for (int i = 0; i < N_INIT_KINDS; i++)
    if (!strcmp(dist->valuestring, init_kinds[i].name)) ki = i;
  if (ki < 0)
    return lfail(c, f, "unknown dist '%s' (expected uniform, normal, ones, zeros, const, randint, "
                       "bernoulli, rademacher, kaiming_uniform, fan_in_uniform, softmax_normal or "
                       "softmax_uniform)", dist->valuestring);
  const char *allowed[6] = {"dist"};
  for (int i = 0; i < 4 && init_kinds[ki].keys[i]; i++) allowed[i + 1] = init_kinds[ki].keys[i];
  if (check_keys(c, j, field, allowed)) return -1;
  in->kind = init_kinds[ki].kind;
  switch (in->kind) {
  case CL1_INIT_UNIFORM: /* defaults are torch.rand's */
  case CL1_INIT_SOFTMAX_UNIFORM:
    in->a = 0, in->b = 1;
    if (get_num(c, j, "low", field, false, &in->a) || get_num(c, j, "high", field, false, &in->b))
      return -1;
    if (!(in->a < in->b))
      return lfail(c, fld(f, sizeof f, field, "low"), "low (%g) must be below high (%g)", in->a,
                   in->b);
    break;
  case CL1_INIT_NORMAL: /* defaults are torch.randn's */
  case CL1_INIT_SOFTMAX_NORMAL:
    in->a = 0, in->b = 1;
    if (get_num(c, j, "mean", field, false, &in->a) || get_num(c, j, "std", field, false, &in->b))
      return -1;
    if (!(in->b > 0)) return lfail(c, fld(f, sizeof f, field, "std"), "must be > 0 (got %g)", in->b);
    break;
  case CL1_INIT_ONES: in->a = in->b = 1; break;
  case CL1_INIT_ZEROS: in->a = in->b = 0; break;
  case CL1_INIT_RADEMACHER: in->a = in->b = 0; break;
  case CL1_INIT_CONST:
    if (get_num(c, j, "value", field, true, &in->a)) return -1;
    in->b = in->a;
    break;
  case CL1_INIT_RANDINT: {
    int64_t lo = 0, hi = 0;
    const double lim = 4503599627370496.0; /* 2^52: the span stays exact in a double */
    if (get_int(c, j, "low", field, false, -lim, lim, &lo) ||
        get_int(c, j, "high", field, true, -lim, lim, &hi))
      return -1;
    if (lo >= hi)
      return lfail(c, fld(f, sizeof f, field, "low"), "low (%lld) must be below high (%lld)",
                   (long long)lo, (long long)hi);
    in->a = (double)lo, in->b = (double)hi;
    break;
  }
  case CL1_INIT_BERNOULLI:
    if (get_num(c, j, "p", field, true, &in->a)) return -1;
    if (!(in->a >= 0 && in->a <= 1))
      return lfail(c, fld(f, sizeof f, field, "p"), "must be in [0, 1] (got %g)", in->a);
    break;
  case CL1_INIT_KAIMING_UNIFORM:
  case CL1_INIT_FAN_IN_UNIFORM: {
    const cJSON *fi = cJSON_GetObjectItemCaseSensitive(j, "fan_in");
    fld(f, sizeof f, field, "fan_in");
    if (!fi) return lfail(c, f, "missing (%s needs fan_in, a dim expression)", init_kinds[ki].name);
    if (expr_or_number(c, t, fi, f, true, &in->fan_in)) return -1;
    in->a = sqrt(5.0); /* PyTorch's default for Linear and Conv weights */
    if (in->kind == CL1_INIT_KAIMING_UNIFORM && get_num(c, j, "a", field, false, &in->a)) return -1;
    break;
  }
  }
  return 0;
}

static bool is_tensor_name(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.')) return false;
  return true;
}

const char *cl1_task_group_name(int g) { return g == 0 ? "inputs" : g == 1 ? "params" : "outputs"; }

static cl1_tensor_spec *group_specs(cl1_task *t, int g, int **count) {
  *count = g == 0 ? &t->n_inputs : g == 1 ? &t->n_params : &t->n_outputs;
  return g == 0 ? t->inputs : g == 1 ? t->params : t->outputs;
}

static int parse_tensor(lctx *c, cl1_task *t, const cJSON *j, int g, int i, cl1_tensor_spec *ts) {
  char field[64], f[256];
  snprintf(field, sizeof field, "%s[%d]", cl1_task_group_name(g), i);
  if (!cJSON_IsObject(j)) return lfail(c, field, "must be an object (got %s)", jtype(j));
  static const char *const keys[] = {"name", "dtype", "shape", "init", "init_test", "init_small",
                                     "init_large", "notes", NULL};
  if (check_keys(c, j, field, keys)) return -1;
  if (get_str(c, j, "name", field, true, &ts->name)) return -1;
  fld(f, sizeof f, field, "name");
  if (!is_tensor_name(ts->name))
    return lfail(c, f, "'%s' is not a valid tensor name (letters, digits, _ and .)", ts->name);
  for (int g2 = 0; g2 <= g; g2++) {
    int *n2;
    cl1_tensor_spec *o = group_specs(t, g2, &n2);
    for (int k = 0; k < (g2 == g ? i : *n2); k++)
      if (!strcmp(o[k].name, ts->name))
        return lfail(c, f, "duplicate tensor name '%s' (also %s[%d])", ts->name, cl1_task_group_name(g2), k);
  }
  const cJSON *dt = cJSON_GetObjectItemCaseSensitive(j, "dtype");
  fld(f, sizeof f, field, "dtype");
  if (!dt) return lfail(c, f, "missing");
  if (!cJSON_IsString(dt)) return lfail(c, f, "must be a string (got %s)", jtype(dt));
  if ((ts->dtype = cl1_dtype_parse(dt->valuestring)) < 0)
    return lfail(c, f, "unknown dtype '%s' (expected f32, f16, bf16, f64, i32, i64, u8 or bool)",
                 dt->valuestring);
  const cJSON *sh = cJSON_GetObjectItemCaseSensitive(j, "shape");
  fld(f, sizeof f, field, "shape");
  if (!sh) return lfail(c, f, "missing");
  if (!cJSON_IsArray(sh)) return lfail(c, f, "must be an array (got %s)", jtype(sh));
  int nd = cJSON_GetArraySize(sh);
  if (nd > CL1_MAX_DIMS) return lfail(c, f, "%d entries; at most %d", nd, CL1_MAX_DIMS);
  int k = 0;
  for (const cJSON *d = sh->child; d; d = d->next, k++) {
    snprintf(f, sizeof f, "%s.shape[%d]", field, k);
    if (cJSON_IsNumber(d) && !is_int(d->valuedouble, 1, 9007199254740992.0))
      return lfail(c, f, "must be a positive integer or a dim expression (got %.17g)",
                   d->valuedouble);
    if (expr_or_number(c, t, d, f, true, &ts->shape[k])) return -1;
    ts->ndim = k + 1;
  }
  const cJSON *init = cJSON_GetObjectItemCaseSensitive(j, "init");
  fld(f, sizeof f, field, "init");
  if (g == 2) {
    for (int s = -1; s < CL1_SHAPES_N; s++) {
      char key[32];
      snprintf(key, sizeof key, s < 0 ? "init" : "init_%s", s < 0 ? "" : set_names[s]);
      if (cJSON_GetObjectItemCaseSensitive(j, key))
        return lfail(c, fld(f, sizeof f, field, key),
                     "outputs have no init (the harness poisons them before each call)");
    }
    return 0;
  }
  if (!init) return lfail(c, f, "missing (inputs and params need an init)");
  if (parse_init(c, t, init, f, &ts->init)) return -1;
  for (int s = 0; s < CL1_SHAPES_N; s++) {
    char key[32];
    snprintf(key, sizeof key, "init_%s", set_names[s]);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(j, key);
    if (!o) continue;
    if (parse_init(c, t, o, fld(f, sizeof f, field, key), &ts->init_set[s])) return -1;
    ts->has_init[s] = true;
  }
  return 0;
}

static int parse_group(lctx *c, cl1_task *t, const cJSON *root, int g) {
  const char *key = cl1_task_group_name(g);
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, key);
  int *count;
  cl1_tensor_spec *specs = group_specs(t, g, &count);
  if (!arr) {
    if (g == 1) return 0; /* params are optional: many tasks have none */
    return lfail(c, key, "missing");
  }
  if (!cJSON_IsArray(arr)) return lfail(c, key, "must be an array (got %s)", jtype(arr));
  int n = cJSON_GetArraySize(arr);
  int max = g == 1 ? CL1_TASK_MAX_PARAMS : CL1_TASK_MAX_TENSORS;
  if (n > max) return lfail(c, key, "%d tensors; at most %d", n, max);
  if (g == 2 && n == 0) return lfail(c, key, "no outputs (a task needs at least one)");
  int i = 0;
  for (const cJSON *j = arr->child; j; j = j->next, i++) {
    *count = i + 1; /* counted before parsing so cl1_task_free frees a half-parsed tensor */
    if (parse_tensor(c, t, j, g, i, &specs[i])) return -1;
  }
  return 0;
}

/* ---- load ----------------------------------------------------------------------------------- */

static char *read_file(const char *path, cl1_err *err) {
  char *buf;
  size_t n;  /* a task.json is a few KB; a NUL would stop cJSON short of the rest */
  return cl1_file_read_text(path, 64ll << 20, &buf, &n, err) ? NULL : buf;
}

static int parse_attrs(lctx *c, cl1_task *t, const cJSON *attrs) {
  char f[256];
  if (!attrs) return 0;
  if (!cJSON_IsObject(attrs)) return lfail(c, "attrs", "must be an object (got %s)", jtype(attrs));
  for (const cJSON *a = attrs->child; a; a = a->next) {
    fld(f, sizeof f, "attrs", a->string);
    for (const cJSON *p = attrs->child; p != a; p = p->next)
      if (!strcmp(p->string, a->string)) return lfail(c, f, "duplicate attr");
    if (!*a->string) return lfail(c, f, "empty attr name");
    if (t->n_attrs >= CL1_TASK_MAX_ATTRS)
      return lfail(c, f, "too many attrs (at most %d)", CL1_TASK_MAX_ATTRS);
    if (cJSON_IsArray(a) || cJSON_IsObject(a) || cJSON_IsNull(a))
      return lfail(c, f, "must be a number, a boolean or a dim expression string (got %s)",
                   jtype(a));
    int k = t->n_attrs;
    if (dup_str(c, f, a->string, &t->attr_names[k])) return -1;
    t->n_attrs++;
    if (expr_or_number(c, t, a, f, false, &t->attr_exprs[k])) return -1;
  }
  return 0;
}

/* {"atol": A, "rtol": R} under key, each optional (absent keeps the value given); the whole
 * object is optional. */
static int parse_tolerance(lctx *c, const cJSON *root, const char *key, double *atol,
                           double *rtol) {
  const cJSON *tol = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!tol) return 0;
  if (!cJSON_IsObject(tol)) return lfail(c, key, "must be an object (got %s)", jtype(tol));
  if (check_keys(c, tol, key, (const char *const[]){"atol", "rtol", NULL}) ||
      get_num(c, tol, "atol", key, false, atol) || get_num(c, tol, "rtol", key, false, rtol))
    return -1;
  char f[48];
  snprintf(f, sizeof f, "%s.atol", key);
  if (*atol < 0) return lfail(c, f, "must be >= 0 (got %g)", *atol);
  snprintf(f, sizeof f, "%s.rtol", key);
  if (*rtol < 0) return lfail(c, f, "must be >= 0 (got %g)", *rtol);
  return 0;
}

/* "verify_variants": {"offset": "why not", ...}: the verification variants (variant.c) the task
 * opts out of, each with its reason. Which variants apply is checked once every set resolves. */
static int parse_variants(lctx *c, cl1_task *t, const cJSON *root) {
  const cJSON *vv = cJSON_GetObjectItemCaseSensitive(root, "verify_variants");
  char f[256];
  if (!vv) return 0;
  if (!cJSON_IsObject(vv))
    return lfail(c, "verify_variants", "must be an object (got %s)", jtype(vv));
  static const char *const names[] = {"off_default", "offset", "wide", "extreme", NULL};
  if (check_keys(c, vv, "verify_variants", names)) return -1;
  for (const cJSON *k = vv->child; k; k = k->next) {
    fld(f, sizeof f, "verify_variants", k->string);
    int v = cl1_variant_parse(k->string);
    assert(v > CL1_VARIANT_NONE); /* check_keys admitted only the names above */
    if (!cJSON_IsString(k))
      return lfail(c, f, "must be a string giving the reason for opting out (got %s)", jtype(k));
    const char *r = k->valuestring;
    while (isspace((unsigned char)*r)) r++;
    if (!*r) return lfail(c, f, "the reason for opting out must not be empty");
    if (dup_str(c, f, k->valuestring, &t->variant_optout[v])) return -1;
  }
  return 0;
}

/* An opt-out names a variant that changes something at some shape set; otherwise it is stale
 * (the task's inits changed) or a mistake, and would hide nothing. */
static int check_variants(lctx *c, const cl1_task *t, const bool applies[CL1_VARIANT_N]) {
  char f[256];
  for (int v = CL1_VARIANT_NONE + 1; v < CL1_VARIANT_N; v++) {
    if (!t->variant_optout[v] || applies[v]) continue;
    fld(f, sizeof f, "verify_variants", cl1_variant_name((cl1_variant)v));
    return lfail(c, f, "the task has no %s, so the variant does not apply; remove the opt-out",
                 v == CL1_VARIANT_OFF_DEFAULT
                     ? "float param with a constant init (ones, zeros, const)"
                     : "float input drawn from uniform or normal");
  }
  return 0;
}

/* "reference": the C reference's file, relative to the task folder (default "reference.c"); tasks
 * that differ only in data (level3/46 and 47) share one file. */
static int parse_reference(lctx *c, cl1_task *t, const cJSON *root) {
  char *rel = NULL;
  if (get_str(c, root, "reference", "", false, &rel)) return -1;
  const char *r = rel ? rel : "reference.c";
  size_t n = strlen(r);
  if (!n || r[0] == '/' || n < 3 || strcmp(r + n - 2, ".c")) {
    lfail(c, "reference", "'%s' must be a relative path to a .c file", r);
    free(rel);
    return -1;
  }
  size_t len = strlen(t->dir) + n + 2;
  t->reference = malloc(len);
  if (!t->reference) { free(rel); return lfail(c, "reference", "out of memory"); }
  snprintf(t->reference, len, "%s/%s", t->dir, r);
  struct stat st;
  int bad = rel && (stat(t->reference, &st) || !S_ISREG(st.st_mode));
  if (bad) lfail(c, "reference", "'%s' not found in %s", r, t->dir);
  free(rel);
  return bad ? -1 : 0;
}

/* "python": a KernelBench-format task (cudal1 task import): the reference is a PyTorch module,
 * {"reference": "reference.py", "class": "Model", "init": {"<set>": [constructor args]},
 *  "train_mode": true}; every set with dims needs its init. */
static int parse_python(lctx *c, cl1_task *t, const cJSON *py) {
  if (!cJSON_IsObject(py)) return lfail(c, "python", "must be an object (got %s)", jtype(py));
  if (check_keys(c, py, "python",
                 (const char *const[]){"reference", "class", "init", "train_mode", "scalars", NULL}))
    return -1;
  char *rel = NULL;
  if (get_str(c, py, "reference", "python", false, &rel)) return -1;
  const char *r = rel ? rel : "reference.py";
  size_t n = strlen(r);
  if (r[0] == '/' || strstr(r, "..") || n < 4 || strcmp(r + n - 3, ".py")) {
    lfail(c, "python.reference", "'%s' must be a relative path to a .py file", r);
    free(rel);
    return -1;
  }
  free(t->reference);
  size_t len = strlen(t->dir) + n + 2;
  t->reference = malloc(len);
  if (!t->reference) { free(rel); return lfail(c, "python.reference", "out of memory"); }
  snprintf(t->reference, len, "%s/%s", t->dir, r);
  struct stat st;
  int bad = stat(t->reference, &st) || !S_ISREG(st.st_mode);
  if (bad) lfail(c, "python.reference", "'%s' not found in %s", r, t->dir);
  free(rel);
  if (bad) return -1;
  if (get_str(c, py, "class", "python", false, &t->py_class)) return -1;
  if (!t->py_class && dup_str(c, "python.class", "Model", &t->py_class)) return -1;
  const cJSON *tm = cJSON_GetObjectItemCaseSensitive(py, "train_mode");
  if (tm && !cJSON_IsBool(tm)) return lfail(c, "python.train_mode", "must be true or false");
  t->py_train = cJSON_IsTrue(tm);
  const cJSON *init = cJSON_GetObjectItemCaseSensitive(py, "init");
  if (init && !cJSON_IsObject(init)) return lfail(c, "python.init", "must be an object of sets");
  for (int s = 0; s < CL1_SHAPES_N; s++) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(init, set_names[s]);
    char f[64];
    snprintf(f, sizeof f, "python.init.%s", set_names[s]);
    if (a && !cJSON_IsArray(a)) return lfail(c, f, "must be a list of constructor arguments");
    if (!a && t->has_set[s]) return lfail(c, f, "missing (the set has dims)");
    if (a && !(t->py_init[s] = cJSON_PrintUnformatted(a))) return lfail(c, f, "out of memory");
  }
  const cJSON *sc = cJSON_GetObjectItemCaseSensitive(py, "scalars");
  if (sc && !cJSON_IsArray(sc)) return lfail(c, "python.scalars", "must be a list of [position, value]");
  if (sc && !(t->py_scalars = cJSON_PrintUnformatted(sc))) return lfail(c, "python.scalars", "out of memory");
  t->py = true;
  return 0;
}

static int parse_task(lctx *c, cl1_task *t, const cJSON *root) {
  static const char *const keys[] = {"name", "level", "number", "description", "dims",
                                     "shapes_note", "inputs", "params", "outputs", "attrs",
                                     "tolerance", "tolerance_test", "tolerance_small",
                                     "tolerance_large", "flops", "bytes", "reference",
                                     "verify_variants", "python",
                                     /* free text, never interpreted: */
                                     "notes", "degenerate", "source", NULL};
  if (!cJSON_IsObject(root)) return lfail(c, "(top level)", "must be an object (got %s)", jtype(root));
  if (check_keys(c, root, "", keys)) return -1;
  if (get_str(c, root, "name", "", true, &t->name)) return -1;
  if (!*t->name || strchr(t->name, '/') || !strcmp(t->name, ".") || !strcmp(t->name, ".."))
    return lfail(c, "name", "'%s' cannot be a folder name", t->name);
  int64_t v = 0;
  if (get_int(c, root, "level", "", true, -1e15, 1e15, &v)) return -1;
  if (v < 1 || v > 3) return lfail(c, "level", "must be 1, 2 or 3 (got %lld)", (long long)v);
  t->level = (int)v;
  if (get_int(c, root, "number", "", true, 1, 1e6, &v)) return -1;
  t->number = (int)v;
  char prefix[32];
  snprintf(prefix, sizeof prefix, "%d_", t->number);
  if (strncmp(t->name, prefix, strlen(prefix)))
    return lfail(c, "name", "'%s' must start with the task number, '%s'", t->name, prefix);
  char id[600];
  snprintf(id, sizeof id, "level%d/%s", t->level, t->name);
  if (dup_str(c, "name", id, &t->id)) return -1;
  if (get_str(c, root, "description", "", true, &t->description)) return -1;
  if (parse_dims(c, t, cJSON_GetObjectItemCaseSensitive(root, "dims"))) return -1;

  const cJSON *sn = cJSON_GetObjectItemCaseSensitive(root, "shapes_note");
  if (sn) {
    if (!cJSON_IsObject(sn)) return lfail(c, "shapes_note", "must be an object (got %s)", jtype(sn));
    if (check_keys(c, sn, "shapes_note", (const char *const[]){"test", "small", "large", NULL}))
      return -1;
    for (int s = 0; s < CL1_SHAPES_N; s++)
      if (get_str(c, sn, set_names[s], "shapes_note", false, &t->shapes_note[s])) return -1;
  }
  for (int g = 0; g < 3; g++)
    if (parse_group(c, t, root, g)) return -1;
  if (parse_attrs(c, t, cJSON_GetObjectItemCaseSensitive(root, "attrs"))) return -1;

  t->atol = t->rtol = 1e-4;
  if (parse_tolerance(c, root, "tolerance", &t->atol, &t->rtol)) return -1;
  for (int s = 0; s < CL1_SHAPES_N; s++) {
    char key[32];
    snprintf(key, sizeof key, "tolerance_%s", cl1_shapes_name(s));
    t->set_atol[s] = t->atol, t->set_rtol[s] = t->rtol;
    if (parse_tolerance(c, root, key, &t->set_atol[s], &t->set_rtol[s])) return -1;
  }
  const cJSON *fl = cJSON_GetObjectItemCaseSensitive(root, "flops");
  if (fl && expr_or_number(c, t, fl, "flops", true, &t->flops)) return -1;
  const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "bytes");
  if (by && expr_or_number(c, t, by, "bytes", true, &t->bytes)) return -1;
  char *source = NULL;
  int rc = get_str(c, root, "notes", "", false, &t->notes) ||
           get_str(c, root, "degenerate", "", false, &t->degenerate) ||
           get_str(c, root, "source", "", false, &source);
  free(source); /* checked for type only; nothing reads it */
  if (rc) return -1;
  if (parse_reference(c, t, root) || parse_variants(c, t, root)) return -1;
  const cJSON *py = cJSON_GetObjectItemCaseSensitive(root, "python");
  if (py && cJSON_GetObjectItemCaseSensitive(root, "reference"))
    return lfail(c, "python", "a task has a C reference or a Python one, not both");
  if (py && parse_python(c, t, py)) return -1;

  /* Resolving every set catches dims that evaluate below 1, overflowing sizes, bad fan_in. */
  bool applies[CL1_VARIANT_N] = {false};
  for (int s = 0; s < CL1_SHAPES_N; s++) {
    cl1_inst *inst = malloc(sizeof *inst);
    if (!inst) return lfail(c, "(top level)", "out of memory");
    rc = cl1_task_instance(t, s, inst, c->err);
    for (int v = CL1_VARIANT_NONE + 1; !rc && v < CL1_VARIANT_N; v++)
      applies[v] |= cl1_inst_variant_applies(inst, (cl1_variant)v);
    free(inst);
    if (rc) return -1;
  }
  return check_variants(c, t, applies);
}

int cl1_task_load(const char *path, cl1_task **out, cl1_err *err) {
  *out = NULL;
  struct stat st;
  char *file;
  size_t pl = strlen(path);
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    file = malloc(pl + 12);
    if (file) snprintf(file, pl + 12, "%s%stask.json", path, pl && path[pl - 1] == '/' ? "" : "/");
  } else {
    file = strdup(path);
  }
  if (!file) return cl1_err_set(err, "%s: out of memory", path);
  char *text = read_file(file, err);
  if (!text) {
    free(file);
    return -1;
  }
  cl1_task *t = calloc(1, sizeof *t);
  if (!t) {
    free(text);
    free(file);
    return cl1_err_set(err, "%s: out of memory", path);
  }
  t->path = file;
  const char *slash = strrchr(file, '/');
  t->dir = slash ? strndup(file, slash == file ? 1 : (size_t)(slash - file)) : strdup(".");
  if (!t->dir) {
    free(text);
    cl1_task_free(t);
    return cl1_err_set(err, "%s: out of memory", path);
  }
  lctx c = {file, err};
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
  int rc;
  if (!root) {
    int line = 1, col = 1;
    const char *at = end && end >= text ? end : text;
    for (const char *p = text; p < at && *p; p++) {
      if (*p == '\n') line++, col = 1;
      else col++;
    }
    rc = cl1_err_set(err, "%s: line %d, column %d: not valid JSON", file, line, col);
  } else {
    rc = parse_task(&c, t, root);
  }
  cJSON_Delete(root);
  free(text);
  if (rc) {
    cl1_task_free(t);
    return -1;
  }
  *out = t;
  return 0;
}

static void free_spec(cl1_tensor_spec *s) {
  free(s->name);
  for (int k = 0; k < CL1_MAX_DIMS; k++) free(s->shape[k]);
  free(s->init.fan_in);
  for (int k = 0; k < CL1_SHAPES_N; k++) free(s->init_set[k].fan_in);
}

void cl1_task_free(cl1_task *t) {
  if (!t) return;
  free(t->path), free(t->dir), free(t->id), free(t->name), free(t->description), free(t->reference);
  free(t->py_class), free(t->py_scalars);
  for (int s = 0; s < CL1_SHAPES_N; s++) free(t->py_init[s]);
  for (int k = 0; k < t->n_dims; k++) free(t->dim_names[k]);
  for (int s = 0; s < CL1_SHAPES_N; s++) free(t->shapes_note[s]);
  for (int i = 0; i < t->n_inputs; i++) free_spec(&t->inputs[i]);
  for (int i = 0; i < t->n_params; i++) free_spec(&t->params[i]);
  for (int i = 0; i < t->n_outputs; i++) free_spec(&t->outputs[i]);
  for (int k = 0; k < t->n_attrs; k++) free(t->attr_names[k]), free(t->attr_exprs[k]);
  free(t->flops), free(t->bytes), free(t->notes), free(t->degenerate);
  for (int v = 0; v < CL1_VARIANT_N; v++) free(t->variant_optout[v]);
  free(t);
}
