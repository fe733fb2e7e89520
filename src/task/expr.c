/* expr.c — dim expressions of task.json ("N", "(H - K) / S + 1"): int64 integers, dim names,
 * + - * / % and parentheses, evaluated at one shape set. `/` and `%` floor like Python/PyTorch
 * (-7 / 2 == -4, -7 % 2 == 1), so formulas copied from KernelBench mean the same thing here.
 * Every overflow is an error rather than a wrapped value: a wrong shape must never load. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "task.h"

#define EXPR_MAX_DEPTH 64

typedef struct {
  const char *src, *p;
  const cl1_task *t;
  int set, depth;
  cl1_err *err;
} ex_state;

static int ex_expr(ex_state *s, int64_t *out);

static void ex_skip(ex_state *s) {
  while (*s->p == ' ' || *s->p == '\t') s->p++;
}

static int ex_fail(ex_state *s, const char *what) {
  return cl1_err_set(s->err, "%s in '%s' at column %d", what, s->src, (int)(s->p - s->src) + 1);
}

static int ex_name(ex_state *s, const char *name, size_t len, int64_t *out) {
  if (s->t)
    for (int k = 0; k < s->t->n_dims; k++)
      if (strlen(s->t->dim_names[k]) == len && !memcmp(s->t->dim_names[k], name, len)) {
        if (s->set < 0 || s->set >= CL1_SHAPES_N || !s->t->has_set[s->set])
          return cl1_err_set(s->err, "no shape set %d for dim '%.*s'", s->set, (int)len, name);
        *out = s->t->dims[s->set][k];
        return 0;
      }
  char known[512] = "";
  size_t n = 0;
  for (int k = 0; s->t && k < s->t->n_dims && n + 1 < sizeof known; k++)
    n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", k ? ", " : "", s->t->dim_names[k]);
  if (n >= sizeof known) n = sizeof known - 1;
  return cl1_err_set(s->err, "unknown dim '%.*s' in '%s' (dims: %s)", (int)len, name, s->src,
                     n ? known : "none");
}

static int ex_primary(ex_state *s, int64_t *out) {
  ex_skip(s);
  const char *p = s->p;
  if (isdigit((unsigned char)*p)) {
    int64_t v = 0;
    while (isdigit((unsigned char)*p)) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v))
        return ex_fail(s, "integer too large");
      p++;
    }
    if (isalpha((unsigned char)*p) || *p == '_' || *p == '.') {
      s->p = p;
      return ex_fail(s, "malformed number");
    }
    s->p = p;
    *out = v;
    return 0;
  }
  if (isalpha((unsigned char)*p) || *p == '_') {
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    const char *name = s->p;
    s->p = p;
    return ex_name(s, name, (size_t)(p - name), out);
  }
  if (*p == '(') {
    if (++s->depth > EXPR_MAX_DEPTH) return ex_fail(s, "parentheses nested too deeply");
    s->p++;
    if (ex_expr(s, out)) return -1;
    ex_skip(s);
    if (*s->p != ')') return ex_fail(s, "malformed expression: expected ')'");
    s->p++;
    s->depth--;
    return 0;
  }
  if (!*p) return ex_fail(s, "malformed expression: unexpected end, expected a number, a dim name or '('");
  return ex_fail(s, "malformed expression: expected a number, a dim name or '('");
}

static int ex_unary(ex_state *s, int64_t *out) {
  ex_skip(s);
  if (*s->p == '-' || *s->p == '+') {
    char op = *s->p++;
    if (++s->depth > EXPR_MAX_DEPTH) return ex_fail(s, "expression nested too deeply");
    int64_t v;
    if (ex_unary(s, &v)) return -1;
    s->depth--;
    if (op == '-') {
      if (v == INT64_MIN) return ex_fail(s, "integer overflow");
      v = -v;
    }
    *out = v;
    return 0;
  }
  return ex_primary(s, out);
}

static int ex_term(ex_state *s, int64_t *out) {
  int64_t a;
  if (ex_unary(s, &a)) return -1;
  for (;;) {
    ex_skip(s);
    char op = *s->p;
    if (op != '*' && op != '/' && op != '%') break;
    const char *at = s->p++;
    int64_t b;
    if (ex_unary(s, &b)) return -1;
    if (op == '*') {
      if (__builtin_mul_overflow(a, b, &a)) {
        s->p = at;
        return ex_fail(s, "integer overflow");
      }
      continue;
    }
    if (b == 0) {
      s->p = at;
      return ex_fail(s, op == '/' ? "division by zero" : "modulo by zero");
    }
    if (a == INT64_MIN && b == -1) {
      s->p = at;
      return ex_fail(s, "integer overflow");
    }
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) {
      q -= 1;
      r += b;
    }
    a = op == '/' ? q : r;
  }
  *out = a;
  return 0;
}

static int ex_expr(ex_state *s, int64_t *out) {
  int64_t a;
  if (ex_term(s, &a)) return -1;
  for (;;) {
    ex_skip(s);
    char op = *s->p;
    if (op != '+' && op != '-') break;
    const char *at = s->p++;
    int64_t b;
    if (ex_term(s, &b)) return -1;
    if (op == '+' ? __builtin_add_overflow(a, b, &a) : __builtin_sub_overflow(a, b, &a)) {
      s->p = at;
      return ex_fail(s, "integer overflow");
    }
  }
  *out = a;
  return 0;
}

int cl1_expr_eval(const char *expr, const cl1_task *t, int set, int64_t *out, cl1_err *err) {
  if (!expr) return cl1_err_set(err, "missing expression");
  ex_state s = {expr, expr, t, set, 0, err};
  ex_skip(&s);
  if (!*s.p) return cl1_err_set(err, "empty expression");
  int64_t v;
  if (ex_expr(&s, &v)) return -1;
  ex_skip(&s);
  if (*s.p) {
    if (*s.p == ')') return ex_fail(&s, "malformed expression: unmatched ')'");
    return ex_fail(&s, "malformed expression: unexpected character");
  }
  *out = v;
  return 0;
}
