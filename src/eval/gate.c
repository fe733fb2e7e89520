/* gate.c — the gate's source rules (gate.h): size, #include paths, load-time code (constructor,
 * destructor, section, ifunc, init_priority, #pragma init/fini), token pasting, and inline asm
 * outside device functions.
 *
 * The check is a careful lexer, not a compiler, so it is built to err on the side of rejecting:
 * where the compiler could read the text in more than one way (trigraphs on or off, backslash +
 * spaces + newline spliced or not, raw strings and digit separators on or off) every reading is
 * checked and any rejection counts. Preprocessor tricks that would let code the gate thinks is
 * device code compile for the host are refused only when the source uses asm at all: macros with
 * unbalanced braces, #if groups with unbalanced braces, redefining __device__/__global__/__host__,
 * declarations built from macros the gate cannot expand. Token pasting (##) is refused outright:
 * it can assemble `asm` or `constructor` from harmless pieces. */
#include "gate.h"
#include "gate_lex.h"
#include <assert.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool tis(const unit *u, int k, const char *w) {
  return k >= 0 && k < u->nt && cl1_gate_word_is(u->L.c + u->t[k].off, (size_t)u->t[k].len, w);
}
static bool tpunct(const unit *u, int k, char p) {
  return k >= 0 && k < u->nt && u->t[k].kind == 'p' && u->t[k].len == 1 && u->L.c[u->t[k].off] == p;
}
static bool teq(const unit *u, int a, int b) {
  return u->t[a].len == u->t[b].len &&
         !memcmp(u->L.c + u->t[a].off, u->L.c + u->t[b].off, (size_t)u->t[a].len);
}
static bool asm_word(const unit *u, int k) {
  return u->t[k].kind == 'i' && (tis(u, k, "asm") || tis(u, k, "__asm") || tis(u, k, "__asm__"));
}

static int reject(cl1_gate_verdict *v, const char *rule, int line, const char *fmt, const char *a) {
  snprintf(v->rule, sizeof v->rule, "%s", rule);
  char msg[400];
  snprintf(msg, sizeof msg, fmt, a ? a : "");
  snprintf(v->why, sizeof v->why, "line %d: %s", line, msg);
  return 1;
}

static void tok_text(const unit *u, int k, char *out, size_t cap) {
  snprintf(out, cap, "%.*s", u->t[k].len, u->L.c + u->t[k].off);
}

static void set_pending(unit *u, int line, const char *fmt, const char *a) {
  if (u->pending[0]) return;
  char msg[400];
  snprintf(msg, sizeof msg, fmt, a);
  snprintf(u->pending, sizeof u->pending, "line %d: %s", line, msg);
}

/* The directive's end: one past its last token. */
static int dir_end(const unit *u, int d) {
  int k = u->dir_tok[d];
  while (k < u->nt && u->t[k].dir == d) k++;
  return k;
}

static bool reserved_name(const unit *u, int k) {
  static const char *names[] = {"__global__", "__device__", "__host__", "asm", "__asm", "__asm__",
                                "struct", "class", "union", "namespace", "extern", "template",
                                "typename", "operator", NULL};
  for (int i = 0; names[i]; i++)
    if (tis(u, k, names[i])) return true;
  return false;
}

/* Token pasting (##) anywhere: it can assemble `asm` or `constructor` from harmless pieces. */
static int token_paste(const unit *u, cl1_gate_verdict *v) {
  for (int k = 0; k < u->nt; k++)
    if (u->t[k].len == 2 && u->L.c[u->t[k].off] == '#')
      return reject(v, "token_paste", u->t[k].line,
                    "token pasting (##) is not allowed: it can assemble names (asm, "
                    "constructor) that the gate cannot see%s", NULL);
  return 0;
}

/* #include (and its kin) at token k: a literal header name, neither absolute nor climbing. */
static int check_include(const unit *u, int k, const char *name, int line, cl1_gate_verdict *v) {
  size_t p = (size_t)u->t[k].off + (size_t)u->t[k].len;
  while (p < u->L.n && u->L.c[p] == ' ') p++;
  char open = p < u->L.n ? u->L.c[p] : 0, close = open == '<' ? '>' : '"';
  if (open != '<' && open != '"')
    return reject(v, "include", line,
                  "#%s must name a header in <...> or \"...\" (computed names are not "
                  "allowed)", name);
  size_t q = p + 1;
  while (q < u->L.n && u->L.c[q] != close && u->L.c[q] != '\n') q++;
  char hdr[300];
  snprintf(hdr, sizeof hdr, "%.*s", (int)(q - p - 1 < 290 ? q - p - 1 : 290), u->L.raw + p + 1);
  if (hdr[0] == '/' || strstr(hdr, ".."))
    return reject(v, "include", line,
                  "#include of '%s': absolute and parent-relative paths are not allowed", hdr);
  return 0;
}

/* #pragma init/fini (tokens k+1 .. e). */
static int check_pragma(const unit *u, int k, int e, int line, cl1_gate_verdict *v) {
  for (int j = k + 1; j < e; j++)
    if (tis(u, j, "init") || tis(u, j, "fini"))
      return reject(v, "constructor", line, "#pragma init/fini runs code when the library loads%s",
                    NULL);
  return 0;
}

/* #define or #undef with its name at token k + 1 (directive ends at e): redefining a name the asm
 * check reads, or a body with unbalanced braces, is pending; a #define is recorded in u->m.
 * 0, or -1 when out of memory. */
static int note_macro(unit *u, int k, int e, int line, bool undef, bool in_cond, int *mcap) {
  if (k + 1 >= e || u->t[k + 1].kind != 'i') return 0;
  char mname[64];
  tok_text(u, k + 1, mname, sizeof mname);
  if (reserved_name(u, k + 1))
    set_pending(u, line, "#define/#undef of '%s' changes what the asm check sees", mname);
  if (undef) return 0;
  if (u->nm == *mcap) {
    *mcap = *mcap ? 2 * *mcap : 64;
    macro *p = realloc(u->m, sizeof(macro) * (size_t)*mcap);
    if (!p) return -1;
    u->m = p;
  }
  macro m = {.name = k + 1, .body = k + 2, .end = e, .in_cond = in_cond};
  if (k + 2 < e && tpunct(u, k + 2, '(') && u->t[k + 2].off == u->t[k + 1].off + u->t[k + 1].len) {
    m.fnlike = true;
    int j = k + 3;
    while (j < e && !tpunct(u, j, ')')) j++;
    m.body = j < e ? j + 1 : e;
  }
  int depth = 0;
  bool bad = false;
  for (int j = m.body; j < e; j++) {
    if (tpunct(u, j, '{')) depth++;
    if (tpunct(u, j, '}') && --depth < 0) bad = true;
  }
  if (bad || depth)
    set_pending(u, line, "macro '%s' has unbalanced braces, which hides function "
                "boundaries from the asm check", mname);
  assert(u->nm < *mcap);
  u->m[u->nm++] = m;
  return 0;
}

/* A macro is an asm macro if its body names asm or another asm macro (to a fixed point). */
static void mark_asm_macros(unit *u) {
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < u->nm; i++) {
      if (u->m[i].is_asm) continue;
      for (int j = u->m[i].body; j < u->m[i].end && !u->m[i].is_asm; j++) {
        if (asm_word(u, j)) u->m[i].is_asm = true;
        for (int q = 0; q < u->nm && !u->m[i].is_asm; q++)
          if (u->m[q].is_asm && u->t[j].kind == 'i' && teq(u, j, u->m[q].name)) u->m[i].is_asm = true;
      }
      changed |= u->m[i].is_asm;
    }
  }
}

/* Load-time code: constructor-like attribute words anywhere, section(...), _Pragma init/fini. */
static int load_time_code(const unit *u, cl1_gate_verdict *v) {
  static const char *ctor[] = {"constructor", "__constructor__", "destructor", "__destructor__",
                               "init_priority", "__init_priority__", "ifunc", "__ifunc__", NULL};
  for (int k = 0; k < u->nt; k++) {
    if (u->t[k].kind != 'i') continue;
    for (int i = 0; ctor[i]; i++)
      if (tis(u, k, ctor[i]))
        return reject(v, "constructor", u->t[k].line,
                      "'%s' (code that runs when the library loads or unloads) is not allowed",
                      ctor[i]);
    if ((tis(u, k, "section") || tis(u, k, "__section__")) && tpunct(u, k + 1, '('))
      return reject(v, "constructor", u->t[k].line,
                    "section(...) attributes are not allowed (they can place code in load-time "
                    "or executable sections)%s", NULL);
    if (tis(u, k, "_Pragma") && tpunct(u, k + 1, '(') && k + 2 < u->nt && u->t[k + 2].kind == '"') {
      char body[256];
      snprintf(body, sizeof body, "%.*s", u->t[k + 2].len, u->L.raw + u->t[k + 2].off);
      if (strstr(body, "init") || strstr(body, "fini"))
        return reject(v, "constructor", u->t[k].line,
                      "_Pragma with init/fini runs code when the library loads%s", NULL);
    }
  }
  return 0;
}

/* Pass 1: ##, then each directive (#include, #pragma, #if nesting, macros), then load-time code.
 * Returns 1 on a rejection, -1 when out of memory. */
static int directives(unit *u, cl1_gate_verdict *v) {
  int cond = 0, mcap = 0;
  if (token_paste(u, v)) return 1;
  for (int d = 0; d < u->ndir; d++) {
    int k = u->dir_tok[d] + 1, e = dir_end(u, d), line = u->t[k - 1].line, rc = 0;
    if (k >= e || u->t[k].kind != 'i') continue;
    char name[32];
    tok_text(u, k, name, sizeof name);
    if (cl1_gate_include_word(u->L.c + u->t[k].off, (size_t)u->t[k].len))
      rc = check_include(u, k, name, line, v);
    else if (!strcmp(name, "pragma"))
      rc = check_pragma(u, k, e, line, v);
    else if (!strcmp(name, "if") || !strcmp(name, "ifdef") || !strcmp(name, "ifndef"))
      cond++;
    else if (!strcmp(name, "endif"))
      cond -= cond > 0;
    else if (!strcmp(name, "define") || !strcmp(name, "undef"))
      rc = note_macro(u, k, e, line, !strcmp(name, "undef"), cond > 0, &mcap);
    if (rc) return rc;
  }
  mark_asm_macros(u);
  return load_time_code(u, v);
}

/* ---- pass 2: where asm may appear (CUDA) ---- */

enum { SC_NS, SC_CLASS, SC_HOST, SC_DEV };
typedef struct { int kind; char name[64]; char why[200]; } scope;
typedef struct { int tok, kind; char name[64], why[200]; } asm_use;

/* The macro that token k's name denotes at offset pos: -2 none, -1 one the gate will not expand
 * (function-like, defined more than once, #undef'd, or defined inside an #if group), else index. */
static int macro_at(const unit *u, int k, int pos) {
  int found = -2, defs = 0;
  bool undef = false;
  for (int i = 0; i < u->nm; i++)
    if (teq(u, k, u->m[i].name)) {
      defs++;
      if (u->t[u->m[i].name].off < pos) found = i;
    }
  for (int d = 0; d < u->ndir && !undef; d++) {
    int j = u->dir_tok[d] + 1;
    if (tis(u, j, "undef") && j + 1 < u->nt && u->t[j + 1].dir == d && teq(u, k, j + 1)) undef = true;
  }
  if (found == -2) return undef ? -1 : -2;
  if (defs > 1 || undef || u->m[found].fnlike || u->m[found].in_cond) return -1;
  return found;
}

/* Expands object-like macros of a head (as cpp would at offset pos); false, with *bad naming the
 * token, when it cannot. */
static bool expand(const unit *u, int k, int pos, int *out, int *n, int cap, int *guard, int ng,
                   int *bad) {
  if (u->t[k].kind == 'i') {
    int m = macro_at(u, k, pos);
    if (m == -1) { *bad = k; return false; }
    if (m >= 0) {
      for (int g = 0; g < ng; g++)
        if (guard[g] == m) goto plain;  /* self-reference stays a plain name, as in cpp */
      if (ng >= 16) { *bad = k; return false; }
      guard[ng] = m;
      for (int j = u->m[m].body; j < u->m[m].end; j++)
        if (!expand(u, j, pos, out, n, cap, guard, ng + 1, bad)) return false;
      return true;
    }
  }
plain:
  if (*n >= cap) { *bad = k; return false; }
  out[(*n)++] = k;
  return true;
}

static bool in_list(const unit *u, int k, const char *const *list) {
  for (int i = 0; list[i]; i++)
    if (tis(u, k, list[i])) return true;
  return false;
}

static bool all_caps(const char *s, int len) {
  bool upper = false;
  for (int i = 0; i < len; i++) {
    if (islower((unsigned char)s[i])) return false;
    if (isupper((unsigned char)s[i])) upper = true;
  }
  return upper && len >= 2;
}

static bool contains_host(const char *s, int len) {
  for (int i = 0; i + 4 <= len; i++)
    if (!strncasecmp(s + i, "host", 4)) return true;
  return false;
}

/* The head h[0..nh) with its object-like macros expanded into E; false, with s->why naming the
 * macro, when one cannot be. */
static bool expand_head(const unit *u, const int *h, int nh, int *E, int *ne, scope *s) {
  int guard[16], bad = -1;
  for (int i = 0; i < nh; i++)
    if (!expand(u, h[i], u->t[h[i]].off, E, ne, 4096, guard, 0, &bad)) {
      char m[64];
      tok_text(u, bad, m, sizeof m);
      snprintf(s->why, sizeof s->why, "its declaration uses macro '%s', which the gate does not "
               "expand", m);
      return false;
    }
  return true;
}

/* E[0..ne) without `template <...>` (its parameter names kept in tmpl) and attribute groups
 * (__attribute__((...)), [[...]] and their kin), into A. */
static void strip_head(const unit *u, const int *E, int ne, int *A, int *na, int *tmpl, int *nt) {
  static const char *attr_words[] = {"__attribute__", "__attribute", "__align__", "alignas",
                                     "__declspec", "__launch_bounds__", "__cluster_dims__",
                                     "__maxnreg__", NULL};
  int i = 0;
  if (ne > 1 && tis(u, E[0], "template") && tpunct(u, E[1], '<')) {
    int depth = 0;
    for (i = 1; i < ne; i++) {
      if (tpunct(u, E[i], '<')) depth++;
      else if (tpunct(u, E[i], '>') && --depth == 0) { i++; break; }
      else if (u->t[E[i]].kind == 'i' && *nt < 64) tmpl[(*nt)++] = E[i];
    }
  }
  for (; i < ne; i++) {
    if (in_list(u, E[i], attr_words) && i + 1 < ne && tpunct(u, E[i + 1], '(')) {
      int depth = 0;
      for (i = i + 1; i < ne; i++) {
        if (tpunct(u, E[i], '(')) depth++;
        if (tpunct(u, E[i], ')') && --depth == 0) break;
      }
      continue;
    }
    if (tpunct(u, E[i], '[') && i + 1 < ne && tpunct(u, E[i + 1], '[')) {
      while (i + 1 < ne && !(tpunct(u, E[i], ']') && tpunct(u, E[i + 1], ']'))) i++;
      i++;
      continue;
    }
    A[(*na)++] = E[i];
  }
}

/* What a stripped head holds. */
typedef struct {
  int paren;  /* index in A of the first '(' (-1: none) */
  bool has_eq, has_class, has_host, has_dev, has_sep;
} head_facts;

static head_facts facts_of(const unit *u, const int *A, int na) {
  head_facts f = {.paren = -1};
  for (int j = 0; j < na; j++) {
    if (tpunct(u, A[j], '(') && f.paren < 0) f.paren = j;
    if (tpunct(u, A[j], '=')) f.has_eq = true;
    if (tpunct(u, A[j], ';') || tpunct(u, A[j], '{') || tpunct(u, A[j], '}')) f.has_sep = true;
    if (tis(u, A[j], "struct") || tis(u, A[j], "class") || tis(u, A[j], "union")) f.has_class = true;
    if (tis(u, A[j], "__host__")) f.has_host = true;
    if (f.paren < 0 && (tis(u, A[j], "__device__") || tis(u, A[j], "__global__"))) f.has_dev = true;
  }
  return f;
}

/* `namespace a::b`, `inline namespace x` or `extern "C"`. */
static bool namespace_head(const unit *u, const int *A, int na) {
  int j = 0;
  if (j < na && tis(u, A[j], "inline")) j++;
  if (j < na && tis(u, A[j], "namespace")) {
    for (j++; j < na; j++)
      if (!(u->t[A[j]].kind == 'i' || tpunct(u, A[j], ':'))) break;
    if (j == na) return true;
  }
  return na == 2 && tis(u, A[0], "extern") && u->t[A[1]].kind == '"';
}

/* A word before a device function's '(' that may be a macro the gate cannot see (a reserved
 * name, one with "host" in it, an all-caps one before the name): true with s->why saying so. */
static bool doubtful_word(const unit *u, const int *A, int paren, const int *tmpl, int nt,
                          scope *s) {
  static const char *dev_words[] = {"__device__", "__global__", "__forceinline__", "__noinline__",
                                    "__inline__", "__inline", "__restrict__", "__restrict",
                                    "__grid_constant__", "__int128", "_Bool", "__half", "__half2",
                                    "__nv_bfloat16", "__nv_bfloat162", NULL};
  for (int j = 0; j < paren; j++) {
    const tok *t = &u->t[A[j]];
    const char *p = u->L.c + t->off;
    if (t->kind != 'i' || in_list(u, A[j], dev_words)) continue;
    bool is_tmpl = false;
    for (int q = 0; q < nt; q++) is_tmpl |= teq(u, tmpl[q], A[j]);
    if (is_tmpl) continue;
    if ((p[0] == '_' && strncmp(p, "__nv_", 5)) || contains_host(p, t->len) ||
        (all_caps(p, t->len) && j < paren - 1)) {
      snprintf(s->why, sizeof s->why, "'%.*s' in its declaration may be a macro the gate cannot "
               "see", t->len, p);
      return true;
    }
  }
  return false;
}

/* Classifies the head of a `{` at namespace or class scope: namespace, class, device function
 * or (anything else, including all doubt) host code. */
static void classify(const unit *u, const int *h, int nh, const char *doubt, scope *s) {
  int E[4096], ne = 0, A[4096], na = 0, tmpl[64], nt = 0;
  memset(s, 0, sizeof *s);
  s->kind = SC_HOST;
  snprintf(s->name, sizeof s->name, "?");
  if (!expand_head(u, h, nh, E, &ne, s)) return;
  strip_head(u, E, ne, A, &na, tmpl, &nt);
  head_facts f = facts_of(u, A, na);
  if (f.paren > 0 && u->t[A[f.paren - 1]].kind == 'i')
    tok_text(u, A[f.paren - 1], s->name, sizeof s->name);
  if (doubt) {
    snprintf(s->why, sizeof s->why, "%s", doubt);
    return;
  }
  if (f.has_sep) return;
  if (namespace_head(u, A, na)) { s->kind = SC_NS; return; }
  if (f.has_class && f.paren < 0 && !f.has_eq) { s->kind = SC_CLASS; return; }
  if (!f.has_dev || f.has_host || f.has_eq || f.paren < 0) {
    if (f.has_host && f.has_dev)
      snprintf(s->why, sizeof s->why, "__host__ __device__ functions are compiled for the host too");
    return;
  }
  if (!doubtful_word(u, A, f.paren, tmpl, nt, s)) s->kind = SC_DEV;
}

static int find_asm_macro(const unit *u, int k) {
  if (u->t[k].kind != 'i') return 0;
  for (int i = 0; i < u->nm; i++)
    if (u->m[i].is_asm && teq(u, k, u->m[i].name)) return 1;
  return 0;
}

static bool cond_dir(const unit *u, int d, bool *open, bool *close) {
  int k = u->dir_tok[d] + 1;
  *open = tis(u, k, "if") || tis(u, k, "ifdef") || tis(u, k, "ifndef");
  *close = tis(u, k, "endif");
  return *open || *close || tis(u, k, "elif") || tis(u, k, "else") || tis(u, k, "elifdef") ||
         tis(u, k, "elifndef");
}

enum { MAXD = 512, MAXC = 256, MAXHEAD = 4096 };

/* The asm check's walk over the tokens: the scope stack, the head being read, the #if groups
 * around it, and what it found (asm uses with their scope, names declared as host code). */
typedef struct {
  scope *st;                /* st[0..depth]: the scopes the walk is in */
  int depth;
  int *head, nh;            /* the tokens since the last `;{}` */
  bool dir_in_head;
  /* #if group instances (0: outside any #if). A head is trusted only if the `;{}` before it is
     compiled whenever the head is, i.e. sits in the head's group or an enclosing one; otherwise
     the compiler may see an earlier head continue into this one. */
  int *cond, nc;            /* the brace depth at each open #if */
  int *gstack, *gparent;    /* the enclosing group of each open #if; each group's parent */
  int gid, gnext, reset_gid, head_gid;
  asm_use *uses;
  int nuse, ucap;
  char (*hostnames)[64];
  int nhost, hcap;
} asm_walk;

static void walk_free(asm_walk *w) {
  free(w->st);
  free(w->head);
  free(w->cond);
  free(w->gstack);
  free(w->gparent);
  free(w->uses);
  free(w->hostnames);
}

/* 0, or -1 when out of memory (w freed). */
static int walk_init(asm_walk *w, const unit *u) {
  memset(w, 0, sizeof *w);
  w->st = calloc(MAXD, sizeof(scope));
  w->head = malloc(sizeof(int) * MAXHEAD);
  w->cond = malloc(sizeof(int) * MAXC);
  w->gstack = malloc(sizeof(int) * MAXC);
  w->gparent = malloc(sizeof(int) * (size_t)(u->ndir + 2));
  if (!w->st || !w->head || !w->cond || !w->gstack || !w->gparent) {
    walk_free(w);
    return -1;
  }
  w->gparent[0] = 0;
  w->st[0].kind = SC_NS;
  return 0;
}

/* A directive: #if/#else/#endif move between group instances; any directive inside a head makes
 * the head doubtful. Returns the directive's last token. */
static int walk_directive(unit *u, asm_walk *w, const tok *t) {
  bool open, close;
  if (cond_dir(u, t->dir, &open, &close)) {
    if (!open && w->nc > 0 && w->cond[w->nc - 1] != w->depth)
      set_pending(u, t->line, "braces do not balance inside an #if/#else/#endif group%s", "");
    if (close) {
      if (w->nc > 0) w->gid = w->gstack[--w->nc];
    } else if (open) {
      if (w->nc < MAXC) w->gstack[w->nc] = w->gid, w->cond[w->nc++] = w->depth;
      assert(w->gnext + 1 < u->ndir + 2);
      w->gparent[++w->gnext] = w->gid;
      w->gid = w->gnext;
    } else {
      assert(w->gnext + 1 < u->ndir + 2);
      w->gparent[++w->gnext] = w->gparent[w->gid];
      w->gid = w->gnext;
    }
  }
  if (w->nh > 0) w->dir_in_head = true;
  return dir_end(u, t->dir) - 1;
}

/* asm (or an asm macro) at token k, in the current scope. 0, or -1 when out of memory. */
static int note_asm_use(asm_walk *w, int k) {
  if (w->nuse == w->ucap) {
    w->ucap = w->ucap ? 2 * w->ucap : 16;
    asm_use *p = realloc(w->uses, sizeof(asm_use) * (size_t)w->ucap);
    if (!p) return -1;
    w->uses = p;
  }
  asm_use a = {.tok = k, .kind = w->st[w->depth].kind};
  memcpy(a.name, w->st[w->depth].name, sizeof a.name);
  memcpy(a.why, w->st[w->depth].why, sizeof a.why);
  w->uses[w->nuse++] = a;
  return 0;
}

/* The scope the head before a `;{}` opens: classified at namespace or class scope (a name
 * declared there as anything but a device function is recorded), else the enclosing one
 * (__host__ in the head makes it host code). 0, or -1 when out of memory. */
static int head_scope(const unit *u, asm_walk *w, bool lb, bool semi, scope *s) {
  int kind = w->st[w->depth].kind;
  memset(s, 0, sizeof *s);
  if (kind != SC_NS && kind != SC_CLASS) {
    *s = w->st[w->depth];
    for (int i = 0; i < w->nh; i++)
      if (tis(u, w->head[i], "__host__")) s->kind = SC_HOST;
    return 0;
  }
  bool enclosed = false;
  for (int g = w->head_gid;; g = w->gparent[g]) {
    if (g == w->reset_gid) { enclosed = true; break; }
    if (g == 0) break;
  }
  classify(u, w->head, w->nh,
           w->dir_in_head ? "a preprocessor directive sits inside its declaration"
           : w->nh > 0 && !enclosed ? "an #if/#else boundary may join it to the declaration before"
                                    : NULL, s);
  if (s->kind == SC_DEV || !strcmp(s->name, "?") || !(lb || semi)) return 0;
  if (w->nhost == w->hcap) {
    w->hcap = w->hcap ? 2 * w->hcap : 32;
    void *p = realloc(w->hostnames, 64 * (size_t)w->hcap);
    if (!p) return -1;
    w->hostnames = p;
  }
  memcpy(w->hostnames[w->nhost++], s->name, 64);
  return 0;
}

/* `{` enters scope s, `}` leaves one; then a new head starts. */
static void walk_brace(unit *u, asm_walk *w, const tok *t, bool lb, bool rb, const scope *s) {
  if (lb) {
    if (w->depth + 1 >= MAXD) {
      set_pending(u, t->line, "braces nest too deeply for the asm check%s", "");
      w->depth = MAXD - 2;
    }
    w->st[++w->depth] = *s;
  } else if (rb) {
    if (w->depth == 0) set_pending(u, t->line, "unbalanced '}'%s", "");
    else w->depth--;
    if (w->nc > 0 && w->depth < w->cond[w->nc - 1])
      set_pending(u, t->line, "braces do not balance inside an #if/#else/#endif group%s", "");
  }
  assert(w->depth >= 0 && w->depth < MAXD);
  w->nh = 0;
  w->dir_in_head = false;
  w->reset_gid = w->gid;
}

/* Every token once: scopes, heads and asm uses into w. 0, or -1 when out of memory. */
static int walk_tokens(unit *u, asm_walk *w) {
  for (int k = 0; k < u->nt; k++) {
    const tok *t = &u->t[k];
    if (t->dir >= 0) {
      k = walk_directive(u, w, t);
      continue;
    }
    if ((asm_word(u, k) || find_asm_macro(u, k)) && note_asm_use(w, k)) return -1;
    bool lb = tpunct(u, k, '{'), rb = tpunct(u, k, '}'), semi = tpunct(u, k, ';');
    if (!lb && !rb && !semi) {
      if (w->nh == 0) w->head_gid = w->gid;
      if (w->nh < MAXHEAD) w->head[w->nh++] = k;
      else w->dir_in_head = true;  /* an absurd head: treat as doubtful */
      continue;
    }
    scope s;
    if (head_scope(u, w, lb, semi, &s)) return -1;
    walk_brace(u, w, t, lb, rb, &s);
  }
  return 0;
}

/* The verdict on the asm uses found: any structural doubt pending rejects them all; else each
 * must sit in a device function never also declared as host code. */
static int judge_asm_uses(const unit *u, const asm_walk *w, cl1_gate_verdict *v) {
  if (u->pending[0]) {
    snprintf(v->rule, sizeof v->rule, "host_asm");
    snprintf(v->why, sizeof v->why, "%.380s (the source uses inline asm, which is allowed only in "
             "device functions the gate can identify)", u->pending);
    return 1;
  }
  int rc = 0;
  for (int i = 0; i < w->nuse && !rc; i++) {
    const asm_use *a = &w->uses[i];
    int line = u->t[a->tok].line;
    if (a->kind == SC_NS) rc = reject(v, "host_asm", line, "inline asm at file scope%s", NULL);
    else if (a->kind == SC_CLASS) rc = reject(v, "host_asm", line, "inline asm in a class body%s", NULL);
    else if (a->kind == SC_HOST) {
      char msg[400];
      snprintf(msg, sizeof msg, "inline asm in host function '%s'%s%s%s", a->name,
               a->why[0] ? " (" : "", a->why, a->why[0] ? ")" : "");
      rc = reject(v, "host_asm", line, "%s", msg);
    } else {
      for (int j = 0; j < w->nhost && !rc; j++)
        if (!strcmp(w->hostnames[j], a->name))
          rc = reject(v, "host_asm", line,
                      "inline asm in function '%s', which is also declared without __device__ "
                      "(nvcc then compiles it for the host too)", a->name);
    }
  }
  return rc;
}

/* Pass 2 (CUDA, a source that uses asm): asm only inside device functions the gate can identify.
 * 1 on a rejection, -1 when out of memory. */
static int check_asm_cuda(unit *u, cl1_gate_verdict *v) {
  asm_walk w;
  if (walk_init(&w, u)) return -1;
  int rc = walk_tokens(u, &w);
  if (!rc && w.nuse > 0) {
    if (w.depth != 0) set_pending(u, u->t[u->nt - 1].line, "unbalanced '{'%s", "");
    rc = judge_asm_uses(u, &w, v);
  }
  walk_free(&w);
  return rc;
}

static bool uses_asm(const unit *u) {
  for (int k = 0; k < u->nt; k++)
    if (asm_word(u, k)) return true;
  return false;
}

static int check_asm_host(const unit *u, cl1_gate_verdict *v) {
  for (int k = 0; k < u->nt; k++)
    if (asm_word(u, k))
      return reject(v, "host_asm", u->t[k].line,
                    "inline asm is not allowed in host-backend solutions%s", NULL);
  return 0;
}

static int check_variant(const char *src, size_t n, cl1_backend b, int flags,
                         cl1_gate_verdict *v, cl1_err *err) {
  unit u;
  memset(&u, 0, sizeof u);
  u.b = b;
  int rc = -1;
  if (cl1_gate_lex(&u, src, n, flags)) { cl1_err_set(err, "gate: out of memory"); goto out; }
  rc = directives(&u, v);
  if (rc == 0 && b == CL1_BACKEND_HOST) rc = check_asm_host(&u, v);
  else if (rc == 0 && uses_asm(&u)) rc = check_asm_cuda(&u, v);
  if (rc < 0) cl1_err_set(err, "gate: out of memory");
out:
  cl1_gate_lex_free(&u);
  return rc;
}

int cl1_gate_source(const char *src, size_t n, cl1_backend b, cl1_gate_verdict *v, cl1_err *err) {
  memset(v, 0, sizeof *v);
  if (n > CL1_GATE_MAX_SOURCE) {
    snprintf(v->rule, sizeof v->rule, "size");
    snprintf(v->why, sizeof v->why, "the source is %zu bytes; the limit is %d", n,
             CL1_GATE_MAX_SOURCE);
    return 1;
  }
  /* Every reading the compiler might take. nvcc's C++17 has raw strings and digit separators
     and no trigraphs; the host backend's C11 has trigraphs and neither of the others, but the
     gate does not rely on the flags staying so. */
  static const int cuda_variants[] = {LX_CXX, LX_CXX | LX_WS_SPLICE, LX_CXX | LX_TRIGRAPHS,
                                      LX_CXX | LX_TRIGRAPHS | LX_WS_SPLICE};
  static const int host_variants[] = {LX_TRIGRAPHS, LX_TRIGRAPHS | LX_WS_SPLICE, 0, LX_WS_SPLICE,
                                      LX_CXX, LX_CXX | LX_WS_SPLICE,
                                      LX_CXX | LX_TRIGRAPHS, LX_CXX | LX_TRIGRAPHS | LX_WS_SPLICE};
  const int *vs = b == CL1_BACKEND_CUDA ? cuda_variants : host_variants;
  int nv = b == CL1_BACKEND_CUDA ? 4 : 8;
  for (int i = 0; i < nv; i++) {
    int rc = check_variant(src, n, b, vs[i], v, err);
    if (rc) return rc;
  }
  return 0;
}
