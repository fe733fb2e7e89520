/* prompt.c — the contrastive prompt (prompt.h): a small template engine (placeholders,
 * conditional sections, comments; everything checked before anything is rendered, so a typo in a
 * user template is an error, never a silent blank) and the values it fills in, each computed or
 * read on first use. */
#include "prompt.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../base/file.h"
#include "../base/proc.h"
#include "format.h"

#define MAX_FILE ((long)4 << 20) /* twin, reference, header, template: none is near this */

/* ---- a growing string ---- */

typedef struct {
  char *s;
  size_t n, cap;
  bool oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *q = realloc(b->s, cap);
    if (!q) {
      b->oom = true;
      return;
    }
    b->s = q, b->cap = cap;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

static void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

__attribute__((format(printf, 2, 3))) static void sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  if ((size_t)k < sizeof tmp) return sb_put(b, tmp, (size_t)k);
  char *big = malloc((size_t)k + 1);
  if (!big) {
    b->oom = true;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)k + 1, fmt, ap);
  va_end(ap);
  sb_put(b, big, (size_t)k);
  free(big);
}

/* The buffer's string, trimmed of surrounding whitespace; "" when empty. NULL if out of memory. */
static char *sb_take_trimmed(sbuf *b) {
  if (b->oom) {
    free(b->s);
    return NULL;
  }
  size_t a = 0, z = b->n;
  while (a < z && isspace((unsigned char)b->s[a])) a++;
  while (z > a && isspace((unsigned char)b->s[z - 1])) z--;
  char *r = malloc(z - a + 1);
  if (r && z > a) memcpy(r, b->s + a, z - a);
  if (r) r[z - a] = 0;
  free(b->s);
  return r;
}

/* ---- files ---- */

static bool is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Reads a whole text file; what names it in an error ("the PyTorch twin"). */
static int read_file(const char *path, const char *what, char **out, size_t *len, cl1_err *err) {
  size_t n;
  *out = NULL;
  if (cl1_file_read(path, MAX_FILE, out, &n, err)) return cl1_err_wrap(err, "cannot read %s", what);
  if (memchr(*out, 0, n)) {
    free(*out);
    *out = NULL;
    return cl1_err_set(err, "%s %s holds a NUL byte: not a text file", what, path);
  }
  if (len) *len = n;
  return 0;
}

/* A file's text without trailing whitespace, so "```\n{{x}}\n```" closes right after it. */
static void rstrip(char *s) {
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
}

const char *cl1_prompt_dir(void) {
  static char root[PATH_MAX];
  cl1_proc_share_dir("CUDAL1_PROMPTS", "prompts", root, sizeof root);
  return root;
}

/* cudal1/solution.h: $CUDAL1_INCLUDE, else <exe dir>/../include, else ./include. */
static void abi_default(char *out, size_t n) {
  const char *env = getenv("CUDAL1_INCLUDE");
  if (env && *env) {
    snprintf(out, n, "%s/cudal1/solution.h", env);
    return;
  }
  char exe[PATH_MAX];
  if (cl1_proc_exe_dir(exe, sizeof exe) == 0) {
    snprintf(out, n, "%s/../include/cudal1/solution.h", exe);
    if (is_file(out)) return;
  }
  snprintf(out, n, "include/cudal1/solution.h");
}

/* ---- placeholders and conditions ---- */

enum {
  V_TASK_ID, V_TASK_NAME, V_LEVEL, V_DESCRIPTION, V_NOTES, V_TWIN, V_REFERENCE, V_ABI, V_RULES,
  V_LANGUAGE, V_FENCE, V_DEVICE, V_GPU, V_SHAPES_NAME, V_SHAPES, V_TOLERANCE, V_EXEMPLARS,
  V_N_EXEMPLARS, V_BEST_SPEEDUP, V_FORMAT, V_MODEL, V_MODEL_FILE, V_MODEL_SHAPES, V_N
};
static const char *const var_names[V_N] = {
    "task_id", "task_name", "level", "description", "notes", "twin", "reference", "abi", "rules",
    "language", "fence", "device", "gpu", "shapes_name", "shapes", "tolerance", "exemplars",
    "n_exemplars", "best_speedup", "format", "model", "model_file", "model_shapes"};

enum { C_CUDA, C_HOST, C_EXEMPLARS, C_NOTES, C_GPU, C_CABI, C_KERNELBENCH, C_MAKE_HELPER, C_N };
static const char *const cond_names[C_N] = {"cuda", "host", "exemplars", "notes", "gpu", "cabi",
                                            "kernelbench", "make_helper"};

static int lookup(const char *const *names, int n, const char *s, size_t len) {
  for (int i = 0; i < n; i++)
    if (strlen(names[i]) == len && !strncmp(names[i], s, len)) return i;
  return -1;
}

static void list_names(char *buf, size_t cap, const char *const *names, int n) {
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? ", " : "", names[i]);
}

typedef struct {
  const cl1_prompt_in *in;
  bool host;
  bool kb;             /* kernelbench format */
  bool model_is_twin;  /* the PyTorch reference shown is twin.py (no reference.py) */
  int set;
  cl1_inst *inst;
  int *order;          /* exemplars, slowest first */
  char *val[V_N];      /* values computed so far */
  bool in_rules;       /* rendering the rules file: {{rules}} would recurse */
} ctx;

/* ---- the template: tokens ---- */

typedef enum { K_TEXT, K_VAR, K_OPEN, K_INV, K_CLOSE } tkind;

typedef struct {
  tkind k;
  const char *s;  /* K_TEXT */
  size_t n;
  int id;         /* placeholder or condition */
  int line;
  int match;      /* K_OPEN/K_INV: the index of its K_CLOSE */
} tok;

typedef struct {
  tok *t;
  int n, cap;
  const char *path;
} toks;

static int tok_add(toks *ts, tok t, cl1_err *err) {
  if (ts->n == ts->cap) {
    int cap = ts->cap ? ts->cap * 2 : 64;
    tok *q = realloc(ts->t, (size_t)cap * sizeof *q);
    if (!q) return cl1_err_set(err, "%s: out of memory", ts->path);
    ts->t = q, ts->cap = cap;
  }
  ts->t[ts->n++] = t;
  return 0;
}

static int lines_in(const char *s, size_t a, size_t b) {
  int l = 0;
  for (size_t i = a; i < b; i++) l += s[i] == '\n';
  return l;
}

/* A tag "{{" at s[p]: sets *kind (K_* or -1 for a comment), the name span, and *end (after
 * "}}"). Returns 1 for a tag, 0 for plain "{{" text, -1 (err) for a malformed tag. */
static int parse_tag(const toks *ts, const char *s, size_t n, size_t p, int line, int *kind,
                     size_t *na, size_t *nl, size_t *end, cl1_err *err) {
  size_t q = p + 2;
  while (q < n && s[q] == ' ') q++;
  if (q < n && s[q] == '!') {
    const char *close = memmem(s + q, n - q, "}}", 2);
    if (!close) return cl1_err_set(err, "%s: line %d: comment {{! is never closed", ts->path, line);
    *kind = -1, *end = (size_t)(close - s) + 2;
    return 1;
  }
  *kind = K_VAR;
  if (q < n && s[q] && strchr("#^/", s[q]))
    *kind = s[q] == '#' ? K_OPEN : s[q] == '^' ? K_INV : K_CLOSE, q++;
  if (q >= n || !(isalpha((unsigned char)s[q]) || s[q] == '_')) {
    if (*kind == K_VAR) return 0;
    return cl1_err_set(err, "%s: line %d: malformed section tag '%.*s'", ts->path, line,
                       (int)(n - p < 20 ? n - p : 20), s + p);
  }
  *na = q;
  while (q < n && (isalnum((unsigned char)s[q]) || s[q] == '_')) q++;
  *nl = q - *na;
  while (q < n && s[q] == ' ') q++;
  if (q + 1 >= n || s[q] != '}' || s[q + 1] != '}')
    return cl1_err_set(err, "%s: line %d: malformed placeholder '%.*s' (expected {{name}})",
                       ts->path, line, (int)(n - p < 30 ? n - p : 30), s + p);
  *end = q + 2;
  return 1;
}

/* Checks a tag's name and the section structure; appends the token. */
static int add_tag(toks *ts, int kind, const char *name, size_t len, int line, int *stack,
                   int *depth, cl1_err *err) {
  char known[400];
  tok t = {(tkind)kind, NULL, 0, -1, line, -1};
  if (kind == K_VAR) {
    if ((t.id = lookup(var_names, V_N, name, len)) < 0) {
      list_names(known, sizeof known, var_names, V_N);
      return cl1_err_set(err, "%s: line %d: unknown placeholder {{%.*s}} (known: %s)", ts->path,
                         line, (int)len, name, known);
    }
    return tok_add(ts, t, err);
  }
  if ((t.id = lookup(cond_names, C_N, name, len)) < 0) {
    list_names(known, sizeof known, cond_names, C_N);
    return cl1_err_set(err, "%s: line %d: unknown condition '%.*s' in a section tag (known: %s)",
                       ts->path, line, (int)len, name, known);
  }
  if (kind == K_CLOSE) {
    if (*depth == 0)
      return cl1_err_set(err, "%s: line %d: {{/%.*s}} closes no open section", ts->path, line,
                         (int)len, name);
    tok *open = &ts->t[stack[*depth - 1]];
    if (open->id != t.id)
      return cl1_err_set(err, "%s: line %d: {{/%.*s}} closes the section {{%c%s}} opened at "
                         "line %d", ts->path, line, (int)len, name, open->k == K_OPEN ? '#' : '^',
                         cond_names[open->id], open->line);
    open->match = ts->n;
    --*depth;
    return tok_add(ts, t, err);
  }
  if (*depth == 32)
    return cl1_err_set(err, "%s: line %d: sections nested too deep", ts->path, line);
  stack[(*depth)++] = ts->n;
  return tok_add(ts, t, err);
}

/* Splits s[0, n) (starting at line line0 of ts->path) into tokens. */
static int tokenize(toks *ts, const char *s, size_t n, int line0, cl1_err *err) {
  size_t pos = 0, text = 0, counted = 0;
  int line = line0, stack[32], depth = 0;
  while (pos < n) {
    const char *hit = memmem(s + pos, n - pos, "{{", 2);
    if (!hit) break;
    size_t p = (size_t)(hit - s), na = 0, nl = 0, end = 0;
    line += lines_in(s, counted, p), counted = p;
    int kind = K_TEXT, r = parse_tag(ts, s, n, p, line, &kind, &na, &nl, &end, err);
    if (r < 0) return -1;
    if (r == 0) {
      pos = p + 2;
      continue;
    }
    size_t cut = p, next = end;
    if (kind != K_VAR) { /* a section or comment tag alone on its line takes the line */
      size_t ls = p, le = end;
      while (ls > text && (s[ls - 1] == ' ' || s[ls - 1] == '\t')) ls--;
      while (le < n && (s[le] == ' ' || s[le] == '\t' || s[le] == '\r')) le++;
      if ((ls == 0 || s[ls - 1] == '\n') && ls >= text && (le == n || s[le] == '\n'))
        cut = ls, next = le < n ? le + 1 : n;
    }
    if (cut > text && tok_add(ts, (tok){K_TEXT, s + text, cut - text, -1, line, -1}, err))
      return -1;
    if (kind != -1 && add_tag(ts, kind, s + na, nl, line, stack, &depth, err)) return -1;
    text = pos = next;
  }
  if (n > text && tok_add(ts, (tok){K_TEXT, s + text, n - text, -1, line, -1}, err)) return -1;
  if (depth) {
    const tok *open = &ts->t[stack[depth - 1]];
    return cl1_err_set(err, "%s: line %d: the section {{%c%s}} is never closed", ts->path,
                       open->line, open->k == K_OPEN ? '#' : '^', cond_names[open->id]);
  }
  return 0;
}

/* ---- values ---- */

static void fmt_speedup(double s, char *buf, size_t n) {
  snprintf(buf, n, s >= 0.01 ? "%.2fx" : "%.2gx", s);
}

static int render_file(ctx *c, const char *path, const char *text, size_t n, int line0,
                       sbuf *out, cl1_err *err);

static void fmt_dims(sbuf *b, const cl1_tensor_spec *sp, const cl1_tinst *ti) {
  sb_puts(b, "[");
  for (int d = 0; d < sp->ndim; d++) sb_printf(b, "%s%s", d ? ", " : "", sp->shape[d]);
  sb_puts(b, "]");
  bool literal = true; /* a shape of plain numbers needs no second copy */
  for (int d = 0; d < sp->ndim && literal; d++)
    for (const char *q = sp->shape[d]; *q && literal; q++) literal = isdigit((unsigned char)*q);
  if (!literal) {
    sb_puts(b, " = [");
    for (int d = 0; d < ti->ndim; d++)
      sb_printf(b, "%s%lld", d ? ", " : "", (long long)ti->shape[d]);
    sb_puts(b, "]");
  }
  if (sp->ndim == 0) sb_puts(b, " (a scalar)");
}

static void fmt_tensors(sbuf *b, const char *what, const cl1_tensor_spec *sp, const cl1_tinst *ti,
                        int n) {
  if (n == 0) {
    sb_printf(b, "%s: none\n", what);
    return;
  }
  sb_printf(b, "%s:\n", what);
  for (int i = 0; i < n; i++) {
    sb_printf(b, "  [%d] %s: %s ", i, sp[i].name, cl1_dtype_name(sp[i].dtype));
    fmt_dims(b, &sp[i], &ti[i]);
    sb_puts(b, "\n");
  }
}

/* "Shape set "small": N = 4096, ..." (both formats' shapes open with it). */
static void fmt_shape_set(const ctx *c, sbuf *b) {
  const cl1_task *t = c->in->task;
  sb_printf(b, "Shape set \"%s\":", cl1_shapes_name(c->set));
  for (int i = 0; i < t->n_dims; i++)
    sb_printf(b, "%s %s = %lld", i ? "," : "", t->dim_names[i], (long long)t->dims[c->set][i]);
  sb_puts(b, t->n_dims ? "\n" : " no dims\n");
}

static void fmt_shapes(const ctx *c, sbuf *b) {
  const cl1_task *t = c->in->task;
  const cl1_inst *in = c->inst;
  fmt_shape_set(c, b);
  fmt_tensors(b, "inputs (call->inputs[i])", t->inputs, in->inputs, t->n_inputs);
  fmt_tensors(b, "params (call->params[i])", t->params, in->params, t->n_params);
  fmt_tensors(b, "outputs (call->outputs[i])", t->outputs, in->outputs, t->n_outputs);
  if (in->n_attrs == 0) sb_puts(b, "attrs (call->attrs[i]): none\n");
  else sb_puts(b, "attrs (call->attrs[i]):\n");
  for (int i = 0; i < in->n_attrs; i++)
    sb_printf(b, "  [%d] %s = %.10g\n", i, in->attrs[i].name, in->attrs[i].value);
}

/* The PyTorch reference: the task's reference.py (an imported KernelBench task), else twin.py. */
static void model_path(const ctx *c, char *out, size_t n) {
  snprintf(out, n, "%s/%s", c->in->task->dir, c->model_is_twin ? "twin.py" : "reference.py");
}

/* "f32" -> "float32", "bf16" -> "bfloat16", "i64" -> "int64", "u8" -> "uint8": torch's names. */
static void torch_dtype(int dtype, char *out, size_t n) {
  const char *d = cl1_dtype_name(dtype);
  const char *pre = d[0] == 'f' ? "float" : d[0] == 'i' ? "int" : d[0] == 'u' ? "uint"
                  : !strncmp(d, "bf", 2) ? "bfloat" : NULL;
  if (!pre) snprintf(out, n, "%s", d);
  else snprintf(out, n, "%s%s", pre, d + (pre[0] == 'b' ? 2 : 1));
}

static void fmt_torch_tensors(sbuf *b, const char *what, const cl1_tensor_spec *sp,
                              const cl1_tinst *ti, int n, int max) {
  sb_printf(b, "%s:%s\n", what, n ? "" : " none");
  for (int i = 0; i < n && i < max; i++) {
    char dt[16];
    torch_dtype(sp[i].dtype, dt, sizeof dt);
    sb_printf(b, "  %s: %s ", sp[i].name, dt);
    fmt_dims(b, &sp[i], &ti[i]);
    sb_puts(b, "\n");
  }
  if (n > max) sb_printf(b, "  ... and %d more\n", n - max);
}

/* The shape set in the terms of a PyTorch module: forward's inputs and what it returns, Model's
 * parameters (by state_dict name: a whole network has hundreds, so only the first few), and the
 * attrs. */
static void fmt_model_shapes(const ctx *c, sbuf *b) {
  const cl1_task *t = c->in->task;
  const cl1_inst *in = c->inst;
  fmt_shape_set(c, b);
  fmt_torch_tensors(b, "forward() inputs, in order", t->inputs, in->inputs, t->n_inputs,
                    CL1_TASK_MAX_TENSORS);
  fmt_torch_tensors(b, t->n_outputs > 1 ? "forward() returns a tuple of" : "forward() returns",
                    t->outputs, in->outputs, t->n_outputs, CL1_TASK_MAX_TENSORS);
  fmt_torch_tensors(b, "Model's parameters (state_dict)", t->params, in->params, t->n_params, 16);
  sb_printf(b, "attrs:%s\n", in->n_attrs ? "" : " none");
  for (int i = 0; i < in->n_attrs; i++)
    sb_printf(b, "  %s = %.10g\n", in->attrs[i].name, in->attrs[i].value);
}

/* The longest run of backticks in s, so the fence around it can be longer. */
static int longest_backticks(const char *s) {
  int best = 0, run = 0;
  for (; *s; s++) {
    run = *s == '`' ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}

/* The code block tag of solutions in this prompt's format. */
static const char *fence_tag(const ctx *c) {
  return c->kb ? "python" : c->host ? "c" : "cuda";
}

static void fmt_exemplars(const ctx *c, sbuf *b) {
  const cl1_prompt_in *in = c->in;
  for (int j = 0; j < in->n_exemplars; j++) {
    const cl1_exemplar *e = &in->exemplars[c->order[j]];
    char sp[32];
    fmt_speedup(e->speedup, sp, sizeof sp);
    int fence = longest_backticks(e->code) + 1;
    if (fence < 3) fence = 3;
    size_t n = strlen(e->code);
    while (n && isspace((unsigned char)e->code[n - 1])) n--;
    sb_printf(b, "%s### Solution %c — %s the reference\n\n", j ? "\n" : "", 'A' + j, sp);
    for (int k = 0; k < fence; k++) sb_puts(b, "`");
    sb_printf(b, "%s\n", fence_tag(c));
    sb_put(b, e->code, n);
    sb_puts(b, "\n");
    for (int k = 0; k < fence; k++) sb_puts(b, "`");
    sb_puts(b, "\n");
  }
}

/* Fills c->val[id] (a malloc'd string) the first time it is used. */
static int value(ctx *c, int id, const char **out, cl1_err *err) {
  if (c->val[id]) return *out = c->val[id], 0;
  const cl1_prompt_in *in = c->in;
  const cl1_task *t = in->task;
  char path[PATH_MAX + 32], tmp[64];
  sbuf b = {0};
  char *v = NULL;
  switch (id) {
  case V_TASK_ID: sb_puts(&b, t->id); break;
  case V_TASK_NAME: sb_puts(&b, t->name); break;
  case V_LEVEL: sb_printf(&b, "%d", t->level); break;
  case V_DESCRIPTION: sb_puts(&b, t->description ? t->description : ""); break;
  case V_NOTES: sb_puts(&b, t->notes ? t->notes : ""); break;
  case V_TWIN:
    snprintf(path, sizeof path, "%s/twin.py", t->dir);
    if (read_file(path, "the PyTorch twin", &v, NULL, err))
      return cl1_err_wrap(err, "task %s", t->id);
    break;
  case V_REFERENCE:
    if (read_file(t->reference, "the reference", &v, NULL, err))
      return cl1_err_wrap(err, "task %s", t->id);
    break;
  case V_ABI:
    abi_default(path, sizeof path);
    if (read_file(path, "the ABI header", &v, NULL, err)) return -1;
    break;
  case V_RULES: {
    if (c->in_rules) return cl1_err_set(err, "the rules file cannot use {{rules}}");
    if (in->rules_path) snprintf(path, sizeof path, "%s", in->rules_path);
    else snprintf(path, sizeof path, "%s/%s", cl1_prompt_dir(),
                  c->kb ? "rules_kernelbench.txt" : "rules.txt");
    size_t n;
    char *text;
    if (read_file(path, "the rules file", &text, &n, err)) return -1;
    c->in_rules = true;
    int rc = render_file(c, path, text, n, 1, &b, err);
    c->in_rules = false;
    free(text);
    if (rc) {
      free(b.s);
      return -1;
    }
    break;
  }
  case V_LANGUAGE:
    sb_puts(&b, c->kb ? "Python (.py)" : c->host ? "C11 (.c)" : "CUDA C++ (.cu)");
    break;
  case V_FENCE: sb_puts(&b, fence_tag(c)); break;
  case V_FORMAT: sb_puts(&b, cl1_format_name(in->format)); break;
  case V_MODEL:
    model_path(c, path, sizeof path);
    if (read_file(path, "the PyTorch reference", &v, NULL, err))
      return cl1_err_wrap(err, "task %s", t->id);
    break;
  case V_MODEL_FILE: sb_puts(&b, c->model_is_twin ? "twin.py" : "reference.py"); break;
  case V_MODEL_SHAPES: fmt_model_shapes(c, &b); break;
  case V_DEVICE: sb_puts(&b, c->host ? "host" : "cuda"); break;
  case V_GPU: sb_puts(&b, in->gpu ? in->gpu : ""); break;
  case V_SHAPES_NAME: sb_puts(&b, cl1_shapes_name(c->set)); break;
  case V_SHAPES: fmt_shapes(c, &b); break;
  case V_TOLERANCE:
    sb_printf(&b, "atol = %g, rtol = %g: every output element must satisfy |out - ref| <= atol + "
              "rtol * |ref|", c->inst->atol, c->inst->rtol);
    break;
  case V_EXEMPLARS: fmt_exemplars(c, &b); break;
  case V_N_EXEMPLARS: sb_printf(&b, "%d", in->n_exemplars); break;
  case V_BEST_SPEEDUP:
    if (in->n_exemplars) {
      fmt_speedup(in->exemplars[c->order[in->n_exemplars - 1]].speedup, tmp, sizeof tmp);
      sb_puts(&b, tmp);
    }
    break;
  }
  if (v) {
    free(b.s);
    rstrip(v);
    c->val[id] = v;
  } else {
    if (!(c->val[id] = sb_take_trimmed(&b))) return cl1_err_set(err, "prompt: out of memory");
  }
  *out = c->val[id];
  return 0;
}

static bool cond(const ctx *c, int id) {
  switch (id) {
  case C_CUDA: return !c->host;
  case C_HOST: return c->host;
  case C_EXEMPLARS: return c->in->n_exemplars > 0;
  case C_NOTES: return c->in->task->notes && *c->in->task->notes;
  case C_GPU: return c->in->gpu && *c->in->gpu;
  case C_CABI: return !c->kb;
  case C_KERNELBENCH: return c->kb;
  case C_MAKE_HELPER: return c->model_is_twin;
  }
  return false;
}

/* ---- rendering ---- */

static int render(ctx *c, const toks *ts, int a, int z, sbuf *out, cl1_err *err) {
  for (int i = a; i < z; i++) {
    const tok *t = &ts->t[i];
    const char *v;
    switch (t->k) {
    case K_TEXT: sb_put(out, t->s, t->n); break;
    case K_VAR:
      if (value(c, t->id, &v, err)) return cl1_err_wrap(err, "%s: line %d", ts->path, t->line);
      sb_puts(out, v);
      break;
    case K_OPEN:
    case K_INV:
      if (cond(c, t->id) == (t->k == K_OPEN) && render(c, ts, i + 1, t->match, out, err))
        return -1;
      i = t->match;
      break;
    case K_CLOSE: break;
    }
  }
  return 0;
}

static int render_file(ctx *c, const char *path, const char *text, size_t n, int line0,
                       sbuf *out, cl1_err *err) {
  toks ts = {NULL, 0, 0, path};
  int rc = tokenize(&ts, text, n, line0, err);
  if (!rc) rc = render(c, &ts, 0, ts.n, out, err);
  free(ts.t);
  if (!rc && out->oom) rc = cl1_err_set(err, "prompt: out of memory");
  return rc;
}

/* The start of the first line after `from` that reads exactly `mark` (trailing blanks and \r
 * allowed); n when there is none. *next is the start of the line after it. */
static size_t find_mark(const char *s, size_t n, size_t from, const char *mark, size_t *next) {
  size_t ml = strlen(mark);
  for (size_t ls = from; ls < n;) {
    const char *nl = memchr(s + ls, '\n', n - ls);
    size_t le = nl ? (size_t)(nl - s) : n, e = le;
    while (e > ls && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) e--;
    if (e - ls == ml && !memcmp(s + ls, mark, ml)) {
      *next = nl ? le + 1 : n;
      return ls;
    }
    ls = nl ? le + 1 : n;
  }
  return n;
}

/* Splits the template into its two parts and renders each. */
static int render_template(ctx *c, const char *path, const char *s, size_t n, char **sys,
                           char **user, cl1_err *err) {
  size_t sys_body, user_body;
  size_t sys_at = find_mark(s, n, 0, "=== system ===", &sys_body);
  if (sys_at == n)
    return cl1_err_set(err, "%s: no '=== system ===' line (a template has a system part, then "
                       "a '=== user ===' line and the user part)", path);
  size_t user_at = find_mark(s, n, sys_body, "=== user ===", &user_body);
  if (user_at == n)
    return cl1_err_set(err, "%s: no '=== user ===' line after '=== system ==='", path);
  sbuf pre = {0}, a = {0}, b = {0};
  int rc = render_file(c, path, s, sys_at, 1, &pre, err);
  if (!rc) {
    char *p = sb_take_trimmed(&pre);
    pre.s = NULL;
    if (!p) rc = cl1_err_set(err, "prompt: out of memory");
    else if (*p) rc = cl1_err_set(err, "%s: text before the '=== system ===' line (only comments "
                                  "may come first): '%.40s'", path, p);
    free(p);
  }
  free(pre.s);
  int sys_line = 1 + lines_in(s, 0, sys_body), user_line = 1 + lines_in(s, 0, user_body);
  if (!rc) rc = render_file(c, path, s + sys_body, user_at - sys_body, sys_line, &a, err);
  if (!rc) rc = render_file(c, path, s + user_body, n - user_body, user_line, &b, err);
  if (rc) {
    free(a.s), free(b.s);
    return -1;
  }
  *sys = sb_take_trimmed(&a);
  *user = sb_take_trimmed(&b);
  if (!*sys || !*user) {
    free(*sys), free(*user);
    *sys = *user = NULL;
    return cl1_err_set(err, "prompt: out of memory");
  }
  return 0;
}

/* ---- the entry point ---- */

static int check_in(const cl1_prompt_in *in, int *set, cl1_err *err) {
  if (!in || !in->task) return cl1_err_set(err, "prompt: no task given");
  const cl1_task *t = in->task;
  if (!in->device || (strcmp(in->device, "cuda") && strcmp(in->device, "host")))
    return cl1_err_set(err, "prompt for %s: device '%s' is not cuda or host", t->id,
                       in->device ? in->device : "(null)");
  if (in->format != CL1_FORMAT_CABI && in->format != CL1_FORMAT_KERNELBENCH)
    return cl1_err_set(err, "prompt for %s: format %d is not cabi or kernelbench", t->id,
                       (int)in->format);
  if (!in->shapes || (*set = cl1_shapes_parse(in->shapes)) < 0)
    return cl1_err_set(err, "prompt for %s: shape set '%s' is not test, small or large", t->id,
                       in->shapes ? in->shapes : "(null)");
  if (!t->has_set[*set])
    return cl1_err_set(err, "prompt for %s: the task has no shape set '%s'", t->id, in->shapes);
  if (in->n_exemplars < 0 || in->n_exemplars > CL1_PROMPT_MAX_EXEMPLARS)
    return cl1_err_set(err, "prompt for %s: %d exemplars (0 to %d can be shown)", t->id,
                       in->n_exemplars, CL1_PROMPT_MAX_EXEMPLARS);
  if (in->n_exemplars && !in->exemplars)
    return cl1_err_set(err, "prompt for %s: %d exemplars but none given", t->id, in->n_exemplars);
  for (int i = 0; i < in->n_exemplars; i++) {
    const cl1_exemplar *e = &in->exemplars[i];
    if (!e->code || !*e->code)
      return cl1_err_set(err, "prompt for %s: exemplar %d (solution %lld) has no code", t->id, i,
                         (long long)e->solution_id);
    if (!(e->speedup > 0) || !isfinite(e->speedup))
      return cl1_err_set(err, "prompt for %s: exemplar %d (solution %lld) has speedup %g, not a "
                         "positive finite number", t->id, i, (long long)e->solution_id,
                         e->speedup);
  }
  return 0;
}

int cl1_prompt_build(const cl1_prompt_in *in, char **system, char **user, cl1_err *err) {
  if (!system || !user) return cl1_err_set(err, "prompt: no output pointers given");
  *system = *user = NULL;
  ctx c;
  memset(&c, 0, sizeof c);
  c.in = in;
  if (check_in(in, &c.set, err)) return -1;
  c.host = !strcmp(in->device, "host");
  c.kb = in->format == CL1_FORMAT_KERNELBENCH;
  char ref_py[PATH_MAX + 32];
  snprintf(ref_py, sizeof ref_py, "%s/reference.py", in->task->dir);
  c.model_is_twin = !is_file(ref_py);
  c.inst = malloc(sizeof *c.inst);
  c.order = malloc((size_t)(in->n_exemplars + 1) * sizeof *c.order);
  if (!c.inst || !c.order) {
    free(c.inst), free(c.order);
    return cl1_err_set(err, "prompt: out of memory");
  }
  /* exemplars slowest first, ties in the order given (insertion sort: at most 26) */
  for (int i = 0; i < in->n_exemplars; i++) {
    int j = i;
    for (; j > 0 && in->exemplars[c.order[j - 1]].speedup > in->exemplars[i].speedup; j--)
      c.order[j] = c.order[j - 1];
    c.order[j] = i;
  }
  char path[PATH_MAX + 32], *text = NULL;
  size_t n = 0;
  if (in->template_path) snprintf(path, sizeof path, "%s", in->template_path);
  else snprintf(path, sizeof path, "%s/%s", cl1_prompt_dir(),
                c.kb ? "contrastive_kernelbench.txt" : "contrastive.txt");
  int rc = cl1_task_instance(in->task, c.set, c.inst, err);
  if (rc) cl1_err_wrap(err, "prompt for %s", in->task->id);
  if (!rc && (rc = read_file(path, "the prompt template", &text, &n, err)) && !in->template_path)
    cl1_err_wrap(err, "the default prompt (set $CUDAL1_PROMPTS to the prompts folder)");
  if (!rc) rc = render_template(&c, path, text, n, system, user, err);
  free(text);
  for (int i = 0; i < V_N; i++) free(c.val[i]);
  free(c.inst), free(c.order);
  return rc ? -1 : 0;
}
