/* gate_lex.c — the gate's lexer (see gate_lex.h): careful where a reading is ambiguous, so the
 * rules in gate.c can check every reading the compiler might take. */
#include "gate_lex.h"
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool idch(unsigned char ch) { return isalnum(ch) || ch == '_' || ch == '$' || ch >= 0x80; }
static bool idstart(unsigned char ch) { return isalpha(ch) || ch == '_' || ch == '$' || ch >= 0x80; }

static char trigraph(char ch) {
  switch (ch) {
  case '=': return '#'; case '/': return '\\'; case '\'': return '^'; case '(': return '[';
  case ')': return ']'; case '!': return '|'; case '<': return '{'; case '>': return '}';
  case '-': return '~'; default: return 0;
  }
}

/* Translation phases 1-2: CR/CRLF to LF, trigraphs (if on), backslash-newline splices. */
static void phase12(const char *s, size_t n, int flags, lexed *L) {
  size_t o = 0;
  int line = 1;
  for (size_t i = 0; i < n;) {
    char ch = s[i];
    size_t adv = 1;
    if (ch == '\r') {
      ch = '\n';
      if (i + 1 < n && s[i + 1] == '\n') adv = 2;
    } else if ((flags & LX_TRIGRAPHS) && ch == '?' && i + 2 < n && s[i + 1] == '?' &&
               trigraph(s[i + 2])) {
      ch = trigraph(s[i + 2]);
      adv = 3;
    }
    if (ch == '\\') {
      size_t j = i + adv;
      if (flags & LX_WS_SPLICE)
        while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\f' || s[j] == '\v')) j++;
      if (j < n && (s[j] == '\n' || s[j] == '\r')) {
        j += (s[j] == '\r' && j + 1 < n && s[j + 1] == '\n') ? 2 : 1;
        line++;
        i = j;
        continue;
      }
    }
    if (ch == 0) ch = ' ';
    L->raw[o] = ch;
    L->line[o] = line;
    o++;
    if (ch == '\n') line++;
    i += adv;
  }
  L->n = o;
}

static void blank(char *c, size_t a, size_t b) {
  for (size_t k = a; k < b; k++) c[k] = ' ';
}

bool cl1_gate_word_is(const char *p, size_t len, const char *w) {
  return strlen(w) == len && !memcmp(p, w, len);
}

/* Length of a string/char literal starting at prefix p with quote q, or 0 when unterminated on
 * its line (the quote is then a stray character and lexing goes on: that shows the checker more
 * code, never less). */
static size_t literal_end(const lexed *L, size_t q, bool raw) {
  const char *r = L->raw;
  size_t n = L->n;
  if (raw) {
    size_t d = q + 1;
    while (d < n && d - q - 1 <= 16 && r[d] != '(' &&
           !strchr(" )\\\t\v\f\n\"", r[d]))
      d++;
    if (d < n && r[d] == '(') {
      size_t dl = d - q - 1;
      for (size_t j = d + 1; j + dl + 1 < n + 1 && j < n; j++)
        if (r[j] == ')' && j + dl + 1 < n && !memcmp(r + j + 1, r + q + 1, dl) &&
            r[j + dl + 1] == '"')
          return j + dl + 2;
      return n;  /* unterminated raw string: a compile error */
    }
  }
  for (size_t j = q + 1; j < n; j++) {
    if (r[j] == '\\') { j++; continue; }
    if (r[j] == '\n') return 0;
    if (r[j] == r[q]) return j + 1;
  }
  return 0;
}

static bool literal_prefix(const char *p, size_t len, char quote, int flags, bool *raw) {
  *raw = false;
  if (cl1_gate_word_is(p, len, "L") || cl1_gate_word_is(p, len, "u") || cl1_gate_word_is(p, len, "U") ||
      cl1_gate_word_is(p, len, "u8"))
    return true;
  if (quote == '"' && (flags & LX_CXX) &&
      (cl1_gate_word_is(p, len, "R") || cl1_gate_word_is(p, len, "LR") || cl1_gate_word_is(p, len, "uR") ||
       cl1_gate_word_is(p, len, "UR") || cl1_gate_word_is(p, len, "u8R"))) {
    *raw = true;
    return true;
  }
  return false;
}

bool cl1_gate_include_word(const char *p, size_t len) {
  return cl1_gate_word_is(p, len, "include") || cl1_gate_word_is(p, len, "include_next") ||
         cl1_gate_word_is(p, len, "import") || cl1_gate_word_is(p, len, "embed");
}

/* Phase 3's scan: raw text r in, cleaned text c out, at i. */
typedef struct {
  const lexed *L;
  const char *r;
  char *c;
  size_t n, i;
  int flags;
  bool bol;   /* at the beginning of a line (only blanks and comments before) */
  int dir;    /* 1: after a line-initial '#'; 2: expecting a header name */
} scan3;

/* A newline, a blank or a comment (blanked); true when one was consumed. */
static bool blank_or_comment(scan3 *s) {
  const char *r = s->r;
  size_t n = s->n, i = s->i;
  unsigned char ch = (unsigned char)r[i];
  if (ch == '\n') { s->bol = true; s->dir = 0; s->i++; return true; }
  if (ch == ' ' || ch == '\t' || ch == '\f' || ch == '\v') { s->c[s->i++] = ' '; return true; }
  if (ch == '/' && i + 1 < n && r[i + 1] == '/') {
    while (s->i < n && r[s->i] != '\n') s->c[s->i++] = ' ';
    return true;
  }
  if (ch == '/' && i + 1 < n && r[i + 1] == '*') {
    size_t j = i + 2;
    while (j + 1 < n && !(r[j] == '*' && r[j + 1] == '/')) j++;
    j = j + 1 < n ? j + 2 : n;
    if (memchr(r + i, '\n', j - i)) s->bol = false;
    blank(s->c, i, j);
    s->i = j;
    return true;
  }
  return false;
}

/* After #include: a <...> or "..." header name, blanked inside; true when one was consumed. */
static bool header_name(scan3 *s) {
  unsigned char ch = (unsigned char)s->r[s->i];
  if (s->dir != 2 || (ch != '<' && ch != '"')) return false;
  char close = ch == '<' ? '>' : '"';
  size_t j = s->i + 1;
  while (j < s->n && s->r[j] != close && s->r[j] != '\n') j++;
  if (j < s->n && s->r[j] == close) blank(s->c, s->i + 1, j), s->i = j + 1;
  else s->i++;
  s->dir = 0;
  s->bol = false;
  return true;
}

/* '#', '##' and the digraphs (%:%:, %:, <%, %>) mapped to what they stand for. */
static bool hash_or_digraph(scan3 *s, bool was_bol) {
  const char *r = s->r;
  char *c = s->c;
  size_t n = s->n, i = s->i;
  unsigned char ch = (unsigned char)r[i];
  if (ch == '%' && i + 3 < n && r[i + 1] == ':' && r[i + 2] == '%' && r[i + 3] == ':') {
    memcpy(c + i, "##  ", 4);
    s->i += 4;
    s->dir = 0;
    return true;
  }
  if (ch == '#' || (ch == '%' && i + 1 < n && r[i + 1] == ':')) {
    if (ch == '%') c[i] = '#', c[i + 1] = ' ', s->i += 2;
    else s->i++;
    s->dir = was_bol ? 1 : 0;
    return true;
  }
  bool open = ch == '<' && i + 1 < n && r[i + 1] == '%', close = ch == '%' && i + 1 < n && r[i + 1] == '>';
  if (!open && !close) return false;
  c[i] = open ? '{' : '}';
  c[i + 1] = ' ';
  s->i += 2;
  s->dir = 0;
  return true;
}

/* A string or character literal from its prefix at i, quote at q: reduced to `"  "`, or (never
 * closed on its line) only its quote passed. */
static void literal_at(scan3 *s, size_t q, bool raw) {
  size_t e = literal_end(s->L, q, raw);
  if (e) {
    blank(s->c, s->i, e);
    s->c[s->i] = '"';
    s->c[e - 1] = '"';
    s->i = e;
  } else {
    s->i = q + 1;
  }
  s->dir = 0;
}

/* An identifier (with \u escapes), or the prefix of a literal (L"", u8'', R"x(...)x"). */
static bool word(scan3 *s) {
  const char *r = s->r;
  size_t n = s->n, i = s->i;
  unsigned char ch = (unsigned char)r[i];
  if (!idstart(ch) && !(ch == '\\' && i + 1 < n && (r[i + 1] == 'u' || r[i + 1] == 'U')))
    return false;
  size_t j = i;
  while (j < n && (idch((unsigned char)r[j]) ||
                   (r[j] == '\\' && j + 1 < n && (r[j + 1] == 'u' || r[j + 1] == 'U'))))
    j += r[j] == '\\' ? 2 : 1;
  bool raw;
  if (j < n && (r[j] == '"' || r[j] == '\'') && literal_prefix(r + i, j - i, r[j], s->flags, &raw)) {
    literal_at(s, j, raw);
    return true;
  }
  s->dir = s->dir == 1 && cl1_gate_include_word(r + i, j - i) ? 2 : 0;
  s->i = j;
  return true;
}

/* A pp-number: digits, letters, '.', signed exponents, and (C++) digit separators. */
static bool number(scan3 *s) {
  const char *r = s->r;
  size_t n = s->n, i = s->i;
  if (!isdigit((unsigned char)r[i]) && !(r[i] == '.' && i + 1 < n && isdigit((unsigned char)r[i + 1])))
    return false;
  size_t j = i + 1;
  for (;;) {
    if (j < n && (r[j] == '+' || r[j] == '-') && strchr("eEpP", r[j - 1])) { j++; continue; }
    if (j < n && (idch((unsigned char)r[j]) || r[j] == '.')) { j++; continue; }
    if ((s->flags & LX_CXX) && j + 1 < n && r[j] == '\'' && idch((unsigned char)r[j + 1])) {
      j += 2;
      continue;
    }
    break;
  }
  s->i = j;
  s->dir = 0;
  return true;
}

/* Phase 3: comments, literals, header names, numbers, digraphs. */
static void phase3(lexed *L, int flags) {
  scan3 s = {.L = L, .r = L->raw, .c = L->c, .n = L->n, .flags = flags, .bol = true};
  memcpy(s.c, s.r, s.n);
  while (s.i < s.n) {
    if (blank_or_comment(&s) || header_name(&s)) continue;
    bool was_bol = s.bol;
    s.bol = false;
    if (hash_or_digraph(&s, was_bol) || word(&s) || number(&s)) continue;
    if (s.r[s.i] == '"' || s.r[s.i] == '\'') {
      literal_at(&s, s.i, false);
      continue;
    }
    s.i++;
    s.dir = 0;
  }
}

static int push_tok(unit *u, int *cap, tok t) {
  if (u->nt == *cap) {
    int nc = *cap ? 2 * *cap : 1024;
    tok *p = realloc(u->t, sizeof(tok) * (size_t)nc);
    if (!p) return -1;
    u->t = p;
    *cap = nc;
  }
  u->t[u->nt++] = t;
  return 0;
}

/* Tokens of the cleaned text; tokens of a directive line carry its index in `dir`. */
static int tokenize(unit *u) {
  const char *c = u->L.c;
  size_t n = u->L.n, i = 0;
  int cap = 0, dcap = 0, cur_dir = -1;
  bool bol = true;
  while (i < n) {
    unsigned char ch = (unsigned char)c[i];
    if (ch == '\n') { bol = true; cur_dir = -1; i++; continue; }
    if (ch == ' ') { i++; continue; }
    tok t = {.off = (int)i, .line = u->L.line[i], .dir = -1, .kind = 'p', .len = 1};
    if (bol && ch == '#') {
      if (u->ndir == dcap) {
        dcap = dcap ? 2 * dcap : 64;
        int *p = realloc(u->dir_tok, sizeof(int) * (size_t)dcap);
        if (!p) return -1;
        u->dir_tok = p;
      }
      u->dir_tok[u->ndir] = u->nt;
      cur_dir = u->ndir++;
    }
    bol = false;
    t.dir = cur_dir;
    if (idstart(ch) || ch == '\\') {
      size_t j = i + 1;
      while (j < n && (idch((unsigned char)c[j]) || c[j] == '\\')) j++;
      t.kind = 'i';
      t.len = (int)(j - i);
    } else if (isdigit(ch) || (ch == '.' && i + 1 < n && isdigit((unsigned char)c[i + 1]))) {
      size_t j = i + 1;
      while (j < n && (idch((unsigned char)c[j]) || c[j] == '.' || c[j] == '\'' ||
                       ((c[j] == '+' || c[j] == '-') && strchr("eEpP", c[j - 1]))))
        j++;
      t.kind = 'n';
      t.len = (int)(j - i);
    } else if (ch == '"') {
      size_t j = i + 1;
      while (j < n && c[j] != '"') j++;
      t.kind = '"';
      t.len = (int)(j < n ? j + 1 - i : j - i);
    } else if (ch == '#' && i + 1 < n && c[i + 1] == '#') {
      t.len = 2;
    }
    if (push_tok(u, &cap, t)) return -1;
    i += (size_t)t.len;
  }
  return 0;
}


int cl1_gate_lex(unit *u, const char *src, size_t n, int flags) {
  u->L.n = 0;
  u->L.raw = malloc(n + 1);
  u->L.c = malloc(n + 1);
  u->L.line = malloc(sizeof(int) * (n + 1));
  if (!u->L.raw || !u->L.c || !u->L.line) return -1;
  phase12(src, n, flags, &u->L);
  phase3(&u->L, flags);
  return tokenize(u);
}

void cl1_gate_lex_free(unit *u) {
  free(u->L.raw);
  free(u->L.c);
  free(u->L.line);
  free(u->t);
  free(u->dir_tok);
  free(u->m);
}
