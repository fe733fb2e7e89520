/* parse.c — the reply parser (parse.h). One pass over the lines records the fenced blocks (with
 * a stack, for answers that wrap their code in a markdown block) and the section headings; then
 * the code block is chosen, checked and copied, and the analysis is cut out and made valid text.
 * Everything is offsets into the caller's bytes until the final copies, so a 4 MiB reply costs
 * two small arrays. */
#include "parse.h"
#include <assert.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"

#define MAX_DEPTH 32 /* deeper fence nesting is read as content: no real reply nests this far */

typedef struct {
  size_t open_off;   /* the opening fence line */
  size_t cstart;     /* content: the line after the opening fence ... */
  size_t cend;       /* ... to the closing fence line (or the end of the text) */
  int line;          /* 1-based line of the opening fence */
  char fc;           /* '`' or '~' */
  int flen;
  char tag[16];
  bool ok;           /* a language the backend accepts */
  bool wrapper;      /* holds a nested block, so it is not code itself */
} blk;

enum { H_NONE = 0, H_PA = 1, H_AD = 2, H_CI = 3, H_OTHER = 4 };

typedef struct {
  size_t off;        /* line start */
  size_t body;       /* where the section's text starts */
  size_t end;        /* where it ends (section_ends) */
  int kind, level;   /* level: markdown '#' count; 6 for bold or plain title lines */
} hd;

typedef struct {
  const char *t;
  size_t n;
  bool host;
  bool kb;           /* kernelbench: python blocks that define class ModelNew */
  blk *b;            /* closed blocks, in closing order */
  int nb, bcap;
  hd *h;
  int nh, hcap;
  blk st[MAX_DEPTH];
  int depth;
  int n_fences;      /* fence lines seen, any kind */
  bool oom;
} scan;

const char *cl1_parse_status_name(cl1_parse_status s) {
  switch (s) {
  case CL1_PARSE_OK: return "ok";
  case CL1_PARSE_NO_CODE: return "no_code";
  case CL1_PARSE_TRUNCATED: return "truncated";
  case CL1_PARSE_TOO_LARGE: return "too_large";
  case CL1_PARSE_INVALID_UTF8: return "invalid_utf8";
  case CL1_PARSE_EMPTY: return "empty";
  }
  return "unknown";
}

size_t cl1_parse_utf8_check(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    unsigned c = u[i];
    if (c >= 0x01 && c < 0x80) {
      i++;
      continue;
    }
    size_t k;
    unsigned lo = 0x80, hi = 0xBF; /* the second byte's range excludes overlongs and surrogates */
    if (c >= 0xC2 && c <= 0xDF) k = 1;
    else if (c >= 0xE0 && c <= 0xEF)
      k = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
      k = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else return i; /* NUL, a stray continuation byte, C0/C1, F5..FF */
    if (n - i <= k || u[i + 1] < lo || u[i + 1] > hi) return i;
    for (size_t j = 2; j <= k; j++)
      if ((u[i + j] & 0xC0) != 0x80) return i;
    i += k + 1;
  }
  return n;
}

static bool blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isspace((unsigned char)s[i])) return false;
  return true;
}

static bool tag_ok(const char *tag, const scan *sc) {
  static const char *const cuda[] = {"", "cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc", "c"};
  static const char *const py[] = {"", "python", "py", "python3"};
  const char *const *ok = sc->kb ? py : cuda;
  size_t n = sc->kb ? sizeof py / sizeof *py : sizeof cuda / sizeof *cuda;
  if (sc->host && !sc->kb) return !strcmp(tag, "") || !strcmp(tag, "c");
  for (size_t i = 0; i < n; i++)
    if (!strcmp(tag, ok[i])) return true;
  return false;
}

/* A fence line (s, n without the newline or \r): ``` or ~~~ (3+), any indent, then an info
 * string whose first word is the language tag. A backtick run with a backtick in its info is
 * inline code on one line, not a fence (as in CommonMark). */
static bool fence_line(const char *s, size_t n, char *fc, int *flen, char tag[16], bool *info) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
  if (i >= n || (s[i] != '`' && s[i] != '~')) return false;
  char c = s[i];
  size_t run = 0;
  while (i < n && s[i] == c) i++, run++;
  if (run < 3) return false;
  size_t a = i, b = n;
  while (a < b && isspace((unsigned char)s[a])) a++;
  while (b > a && isspace((unsigned char)s[b - 1])) b--;
  if (c == '`' && memchr(s + a, '`', b - a)) return false;
  *fc = c;
  *flen = run > 1000000 ? 1000000 : (int)run;
  *info = b > a;
  while (a < b && (s[a] == '{' || s[a] == '.')) a++;
  size_t k = 0;
  while (a < b && k < 15 && !isspace((unsigned char)s[a]) && !strchr("{},;:=", s[a]))
    tag[k++] = (char)tolower((unsigned char)s[a++]);
  tag[k] = 0;
  return true;
}

static bool title_is(const char *s, size_t n, const char *title, bool prefix) {
  size_t tl = strlen(title);
  if (n < tl || strncasecmp(s, title, tl)) return false;
  return n == tl || (prefix && !isalnum((unsigned char)s[tl]));
}

static int title_kind(const char *s, size_t n, bool prefix) {
  /* "1." / "2)" numbering, then emphasis and trailing punctuation */
  size_t a = 0, b = n;
  while (a < b && strchr(" \t*_", s[a])) a++;
  size_t d = a;
  while (d < b && isdigit((unsigned char)s[d])) d++;
  if (d > a && d < b && (s[d] == '.' || s[d] == ')')) a = d + 1;
  while (a < b && strchr(" \t*_", s[a])) a++;
  while (b > a && strchr(" \t*_:.#", s[b - 1])) b--;
  if (title_is(s + a, b - a, "Performance Analysis", prefix)) return H_PA;
  if (title_is(s + a, b - a, "Algorithm Design", prefix)) return H_AD;
  if (title_is(s + a, b - a, "Code Implementation", prefix)) return H_CI;
  return H_NONE;
}

/* A heading line: markdown "#".."######" (a title may be followed by more words), a line that is
 * only a title (bold, numbered, with a colon), or a bold title followed by text on the same line
 * ("**Performance Analysis**: the kernel ..."), whose section then starts after the bold. */
static int heading(const char *s, size_t n, size_t line_end, int *level, size_t *body_rel) {
  size_t i = 0;
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '>')) i++;
  *body_rel = line_end;
  size_t h = 0;
  while (i + h < n && s[i + h] == '#' && h < 7) h++;
  if (h > 0) {
    if (h > 6 || (i + h < n && s[i + h] != ' ' && s[i + h] != '\t')) return H_NONE;
    *level = (int)h;
    int k = title_kind(s + i + h, n - i - h, true);
    return k ? k : H_OTHER;
  }
  *level = 6;
  int k = title_kind(s + i, n - i, false);
  if (k) return k;
  if (n - i > 4 && (!strncmp(s + i, "**", 2) || !strncmp(s + i, "__", 2))) {
    const char *close = NULL;
    for (size_t j = i + 2; j + 1 < n && !close; j++)
      if (s[j] == s[i] && s[j + 1] == s[i]) close = s + j;
    if (!close) return H_NONE;
    k = title_kind(s + i + 2, (size_t)(close - (s + i + 2)), false);
    if (!k) return H_NONE;
    size_t r = (size_t)(close - s) + 2;
    while (r < n && (s[r] == ':' || s[r] == ' ' || s[r] == '\t')) r++;
    if (r < n) *body_rel = r;
    return k;
  }
  return H_NONE;
}

static bool grow(void **p, int *cap, int need, size_t sz) {
  if (need <= *cap) return true;
  int nc = *cap ? *cap * 2 : 16;
  void *q = realloc(*p, (size_t)nc * sz);
  if (!q) return false;
  *p = q, *cap = nc;
  return true;
}

static void close_block(scan *sc, size_t at) {
  blk b = sc->st[--sc->depth];
  b.cend = at;
  if (!grow((void **)&sc->b, &sc->bcap, sc->nb + 1, sizeof *sc->b)) {
    sc->oom = true;
    return;
  }
  sc->b[sc->nb++] = b;
}

static void open_block(scan *sc, size_t off, size_t next, int line, char fc, int flen,
                       const char *tag) {
  if (sc->depth > 0) sc->st[sc->depth - 1].wrapper = true;
  blk *b = &sc->st[sc->depth++];
  memset(b, 0, sizeof *b);
  b->open_off = off, b->cstart = next, b->line = line, b->fc = fc, b->flen = flen;
  snprintf(b->tag, sizeof b->tag, "%s", tag);
  b->ok = tag_ok(tag, sc);
}

static void scan_line(scan *sc, size_t off, size_t end, size_t next, int line) {
  const char *s = sc->t + off;
  size_t n = end - off;
  if (n && s[n - 1] == '\r') n--;
  char fc, tag[16];
  int flen;
  bool info;
  if (fence_line(s, n, &fc, &flen, tag, &info)) {
    sc->n_fences++;
    blk *top = sc->depth ? &sc->st[sc->depth - 1] : NULL;
    if (top && !info && fc == top->fc && flen >= top->flen) return close_block(sc, off);
    if (!top || (info && sc->depth < MAX_DEPTH))
      return open_block(sc, off, next, line, fc, flen, tag);
    return; /* a shorter or other fence inside a block: content */
  }
  if (sc->depth && sc->st[sc->depth - 1].ok) return; /* inside code, nothing is a heading */
  int level;
  size_t body_rel;
  int k = heading(s, n, next - off, &level, &body_rel);
  if (!k) return;
  if (!grow((void **)&sc->h, &sc->hcap, sc->nh + 1, sizeof *sc->h)) {
    sc->oom = true;
    return;
  }
  sc->h[sc->nh++] = (hd){off, off + body_rel, sc->n, k, level};
}

static void scan_all(scan *sc) {
  size_t off = 0;
  int line = 1;
  while (off < sc->n && !sc->oom) {
    const char *nl = memchr(sc->t + off, '\n', sc->n - off);
    size_t end = nl ? (size_t)(nl - sc->t) : sc->n, next = nl ? end + 1 : sc->n;
    scan_line(sc, off, end, next, line++);
    off = next;
  }
}

/* Each section's end: the next title heading, or the next markdown heading at the same or a
 * higher level. One backward pass keeping the nearest heading ahead per level, so a reply of a
 * million heading lines stays linear. */
static void section_ends(scan *sc) {
  size_t title = sc->n, lvl[7];
  for (int l = 0; l < 7; l++) lvl[l] = sc->n;
  for (int i = sc->nh - 1; i >= 0; i--) {
    hd *x = &sc->h[i];
    size_t e = title;
    for (int l = 1; l <= x->level; l++)
      if (lvl[l] < e) e = lvl[l];
    x->end = e;
    if (x->kind != H_OTHER) title = x->off;
    else lvl[x->level] = x->off;
  }
}

/* Complete code: an accepted language, not a wrapper, not blank; for kernelbench, a block that
 * defines class ModelNew (a reply often adds a usage snippet or a test after the module). */
static bool candidate(const scan *sc, const blk *b) {
  if (!b->ok || b->wrapper || blank(sc->t + b->cstart, b->cend - b->cstart)) return false;
  return !sc->kb || cl1_format_defines_modelnew(sc->t + b->cstart, b->cend - b->cstart);
}

static int by_open(const void *x, const void *y) {
  const blk *a = *(const blk *const *)x, *b = *(const blk *const *)y;
  return (a->open_off > b->open_off) - (a->open_off < b->open_off);
}

/* The chosen block: the last candidate in the last Code Implementation section that has one,
 * else the last candidate. Blocks are in closing order; "last" is by opening offset. Sets
 * *n_cand to the number of candidates, -1 when out of memory. */
static const blk *choose(const scan *sc, bool *in_section, int *n_cand) {
  *in_section = false;
  *n_cand = 0;
  const blk **c = malloc((size_t)(sc->nb ? sc->nb : 1) * sizeof *c);
  if (!c) {
    *n_cand = -1;
    return NULL;
  }
  int m = 0;
  for (int i = 0; i < sc->nb; i++)
    if (candidate(sc, &sc->b[i])) c[m++] = &sc->b[i];
  qsort(c, (size_t)m, sizeof *c, by_open);
  const blk *best = m ? c[m - 1] : NULL;
  for (int i = sc->nh - 1; i >= 0 && m; i--) {
    if (sc->h[i].kind != H_CI) continue;
    int lo = 0, hi = m; /* the first candidate opening at or after the section's end */
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (c[mid]->open_off < sc->h[i].end) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0 && c[lo - 1]->open_off >= sc->h[i].body) {
      best = c[lo - 1];
      *in_section = true;
      break;
    }
  }
  *n_cand = m;
  free(c);
  return best;
}

/* Appends t[a, b) to buf with CRLF -> LF and (text=true) every malformed UTF-8 sequence or NUL
 * replaced by U+FFFD. buf has room (3 bytes per input byte + slack, see callers). */
static size_t put_text(char *buf, size_t k, const char *t, size_t a, size_t b, bool text) {
  while (a < b) {
    if (t[a] == '\r' && a + 1 < b && t[a + 1] == '\n') {
      a++;
      continue;
    }
    size_t ok = text ? a + cl1_parse_utf8_check(t + a, b - a) : b;
    for (; a < ok; a++)
      if (!(t[a] == '\r' && a + 1 < b && t[a + 1] == '\n')) buf[k++] = t[a];
    if (a < b && text) {
      memcpy(buf + k, "\xEF\xBF\xBD", 3), k += 3;
      a++;
    }
  }
  return k;
}

static void trim(const char *t, size_t *a, size_t *b) {
  while (*a < *b && isspace((unsigned char)t[*a])) ++*a;
  while (*b > *a && isspace((unsigned char)t[*b - 1])) --*b;
}

/* The analysis: the Performance Analysis and Algorithm Design sections (the last of each before
 * the code, else the last), each cut at the code's fence; else the text before the code. */
static char *analysis(const scan *sc, size_t code_at) {
  int pick[2] = {-1, -1};
  for (int want = H_PA; want <= H_AD; want++) {
    int before = -1, any = -1;
    for (int i = 0; i < sc->nh; i++)
      if (sc->h[i].kind == want) {
        any = i;
        if (sc->h[i].off < code_at) before = i;
      }
    pick[want - 1] = before >= 0 ? before : any;
  }
  size_t cap = 64;
  size_t ra[2] = {0, 0}, rb[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    if (pick[k] < 0) continue;
    ra[k] = sc->h[pick[k]].body, rb[k] = sc->h[pick[k]].end;
    if (code_at > ra[k] && code_at < rb[k]) rb[k] = code_at;
    trim(sc->t, &ra[k], &rb[k]);
    cap += 3 * (rb[k] - ra[k]) + 64;
  }
  bool sections = pick[0] >= 0 || pick[1] >= 0;
  size_t a0 = 0, b0 = code_at < sc->n ? code_at : sc->n;
  if (!sections) {
    trim(sc->t, &a0, &b0);
    cap += 3 * (b0 - a0);
  }
  char *buf = malloc(cap);
  if (!buf) return NULL;
  size_t k = 0;
  if (!sections) k = put_text(buf, 0, sc->t, a0, b0, true);
  static const char *const names[2] = {"## Performance Analysis\n\n", "## Algorithm Design\n\n"};
  for (int s = 0; s < 2 && sections; s++) {
    if (pick[s] < 0) continue;
    if (k) memcpy(buf + k, "\n\n", 2), k += 2;
    memcpy(buf + k, names[s], strlen(names[s])), k += strlen(names[s]);
    k = put_text(buf, k, sc->t, ra[s], rb[s], true);
  }
  assert(k < cap);
  buf[k] = 0;
  return buf;
}

/* A Python module (kernelbench): it starts like one and defines class ModelNew. */
static bool bare_python(const scan *sc, size_t a, size_t b) {
  static const char *const starts[] = {"import ", "from ", "#", "\"\"\"", "'''", "class ", "@"};
  if (!cl1_format_defines_modelnew(sc->t + a, b - a)) return false;
  for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
    if (b - a >= strlen(starts[i]) && !strncmp(sc->t + a, starts[i], strlen(starts[i])))
      return true;
  return false;
}

/* No fences at all: the text after the last Code Implementation heading (else all of it) is a
 * source file when it starts like one, ends like one, includes a header and defines
 * cl1_forward (kernelbench: bare_python). Returns the file's start, or n when it is not one. */
static size_t bare_file(const scan *sc) {
  size_t a = 0, b = sc->n;
  for (int i = sc->nh - 1; i >= 0; i--)
    if (sc->h[i].kind == H_CI) {
      a = sc->h[i].body;
      break;
    }
  trim(sc->t, &a, &b);
  if (sc->kb) return a < b && bare_python(sc, a, b) ? a : sc->n;
  if (a >= b || !memmem(sc->t + a, b - a, "cl1_forward", 11) ||
      !memmem(sc->t + a, b - a, "#include", 8))
    return sc->n;
  static const char *const starts[] = {"#", "//", "/*", "__global__", "__device__", "template",
                                       "static", "extern", "typedef", "struct", "namespace",
                                       "using", "CL1_EXPORT", "const", "inline"};
  bool start = false;
  for (size_t i = 0; i < sizeof starts / sizeof *starts && !start; i++)
    start = b - a >= strlen(starts[i]) && !strncmp(sc->t + a, starts[i], strlen(starts[i]));
  size_t last = b;
  while (last > a && sc->t[last - 1] != '\n') last--;
  char e = sc->t[b - 1];
  bool end = e == '}' || e == ';' || (b - a >= 2 && sc->t[b - 2] == '*' && e == '/') ||
             sc->t[last] == '#' || (b - last >= 2 && !memcmp(sc->t + last, "//", 2));
  return start && end ? a : sc->n;
}

static int line_of(const char *t, size_t off) {
  int l = 1;
  for (const char *p = t; (p = memchr(p, '\n', (size_t)(t + off - p))); p++) l++;
  return l;
}

/* Sets out->code from t[a, b) (CRLF -> LF), or the status that refuses it. */
static int take_code(const scan *sc, size_t a, size_t b, cl1_parsed *out) {
  if (b - a > CL1_PARSE_MAX_CODE) {
    out->status = CL1_PARSE_TOO_LARGE;
    snprintf(out->note, sizeof out->note, "the code is %zu bytes, over the %zu-byte limit", b - a,
             CL1_PARSE_MAX_CODE);
    return 0;
  }
  size_t bad = cl1_parse_utf8_check(sc->t + a, b - a);
  if (bad < b - a) {
    out->status = CL1_PARSE_INVALID_UTF8;
    snprintf(out->note, sizeof out->note, "the code holds %s (byte 0x%02X at line %d of the "
             "reply): not a source file", sc->t[a + bad] ? "malformed UTF-8" : "a NUL byte",
             (unsigned char)sc->t[a + bad], line_of(sc->t, a + bad));
    return 0;
  }
  out->code = malloc(b - a + 1);
  if (!out->code) return -1;
  out->code_len = put_text(out->code, 0, sc->t, a, b, false);
  out->code[out->code_len] = 0;
  out->status = CL1_PARSE_OK;
  return 0;
}

/* The open block (innermost first) that makes the reply truncated: accepted code, not blank;
 * an untagged one counts only when no complete code came before it (else it is a stray fence
 * after the answer). */
static const blk *open_code(const scan *sc, bool have_code) {
  for (int i = sc->depth - 1; i >= 0; i--) {
    const blk *b = &sc->st[i];
    if (!b->ok || blank(sc->t + b->cstart, sc->n - b->cstart)) continue;
    if (!b->tag[0] && have_code) continue;
    return b;
  }
  return NULL;
}

/* Adds the analysis (text before code_at, or the sections) and frees the scan. */
static int finish(scan *sc, cl1_parsed *out, size_t code_at, cl1_err *err) {
  if (out->status != CL1_PARSE_OK) {
    free(out->code);
    out->code = NULL, out->code_len = 0;
  }
  out->analysis = analysis(sc, code_at);
  free(sc->b), free(sc->h);
  sc->b = NULL, sc->h = NULL;
  if (!out->analysis) {
    cl1_parsed_free(out);
    return cl1_err_set(err, "reply parser: out of memory");
  }
  return 0;
}

static int oom(scan *sc, cl1_parsed *out, cl1_err *err) {
  free(sc->b), free(sc->h);
  cl1_parsed_free(out);
  return cl1_err_set(err, "reply parser: out of memory");
}

/* "python, text, ..." — the first few distinct tags of the blocks seen, for the no_code note.
 * Compared with the few kept, never with every earlier block: a million blocks stay linear. */
static void seen_tags(const scan *sc, char *buf, size_t cap) {
  const char *kept[6];
  int nk = 0;
  size_t k = 0;
  buf[0] = 0;
  for (int i = 0; i < sc->nb && nk < 6; i++) {
    const char *t = sc->b[i].tag[0] ? sc->b[i].tag : "untagged";
    bool dup = false;
    for (int j = 0; j < nk && !dup; j++) dup = !strcmp(t, kept[j]);
    if (dup) continue;
    kept[nk++] = t;
    if (k < cap) k += (size_t)snprintf(buf + k, cap - k, "%s%s", k ? ", " : "", t);
  }
}

static int parse_scanned(scan *sc, cl1_parsed *out, cl1_err *err) {
  bool in_section;
  int n_cand;
  section_ends(sc);
  const blk *c = choose(sc, &in_section, &n_cand);
  if (n_cand < 0) return oom(sc, out, err);
  const blk *open = open_code(sc, c != NULL);
  const char *what = sc->host ? "c or untagged" : "cuda/cu/cpp/c++/c or untagged";
  if (open) {
    out->status = CL1_PARSE_TRUNCATED;
    snprintf(out->note, sizeof out->note, "the reply ends inside the %s code block opened at "
             "line %d: half a file is not evaluated", open->tag[0] ? open->tag : "untagged",
             open->line);
    return finish(sc, out, open->open_off, err);
  }
  if (c) {
    snprintf(out->lang, sizeof out->lang, "%s", c->tag);
    if (take_code(sc, c->cstart, c->cend, out)) return oom(sc, out, err);
    if (out->status == CL1_PARSE_OK)
      snprintf(out->note, sizeof out->note, "took the %s block at line %d (%d complete code "
               "block%s%s)", c->tag[0] ? c->tag : "untagged", c->line, n_cand,
               n_cand == 1 ? "" : "s", in_section ? ", in the Code Implementation section" : "");
    return finish(sc, out, c->open_off, err);
  }
  if (sc->n_fences == 0) {
    size_t a = bare_file(sc);
    if (a < sc->n) {
      size_t b = sc->n;
      trim(sc->t, &a, &b);
      out->bare = true;
      if (take_code(sc, a, b, out)) return oom(sc, out, err);
      if (out->status == CL1_PARSE_OK) {
        /* a source file ends with a newline */
        snprintf(out->note, sizeof out->note, "no fences: the reply%s is a source file and was "
                 "taken whole", a > 0 ? " after the Code Implementation heading" : "");
        char *q = realloc(out->code, out->code_len + 2);
        if (!q) return oom(sc, out, err);
        out->code = q, out->code[out->code_len++] = '\n', out->code[out->code_len] = 0;
      }
      /* the analysis is what precedes the file: headings before it, or the text */
      return finish(sc, out, a, err);
    }
  }
  out->status = CL1_PARSE_NO_CODE;
  if (sc->kb) {
    char tags[128];
    seen_tags(sc, tags, sizeof tags);
    snprintf(out->note, sizeof out->note, "the reply has no python code block defining class "
             "ModelNew (blocks seen: %s)", sc->nb ? tags : "none");
  } else if (sc->nb == 0 && sc->n_fences == 0)
    snprintf(out->note, sizeof out->note, "no fenced code block and the reply is not a source "
             "file");
  else {
    char tags[128];
    seen_tags(sc, tags, sizeof tags);
    snprintf(out->note, sizeof out->note, "no complete, non-empty block tagged %s (blocks seen: "
             "%s)", what, sc->nb ? tags : "none closed");
  }
  return finish(sc, out, sc->n, err);
}

int cl1_parse_reply(const char *text, size_t len, const char *lang, cl1_parsed *out,
                    cl1_err *err) {
  if (!out) return cl1_err_set(err, "reply parser: out is NULL");
  memset(out, 0, sizeof *out);
  if (!lang || (strcmp(lang, "cuda") && strcmp(lang, "host") && strcmp(lang, "kernelbench")))
    return cl1_err_set(err, "reply parser: language '%s' is not cuda, host or kernelbench",
                       lang ? lang : "(null)");
  if (!text && len) return cl1_err_set(err, "reply parser: text is NULL with length %zu", len);
  scan sc;
  memset(&sc, 0, sizeof sc);
  sc.t = text ? text : "", sc.n = len, sc.host = !strcmp(lang, "host");
  sc.kb = !strcmp(lang, "kernelbench");
  if (len > CL1_PARSE_MAX_REPLY) {
    out->status = CL1_PARSE_TOO_LARGE;
    snprintf(out->note, sizeof out->note, "the reply is %zu bytes, over the %zu-byte limit", len,
             CL1_PARSE_MAX_REPLY);
    sc.n = 0; /* nothing of it is read */
    return finish(&sc, out, 0, err);
  }
  if (blank(sc.t, len)) {
    out->status = CL1_PARSE_EMPTY;
    snprintf(out->note, sizeof out->note, "the reply is empty%s", len ? " (whitespace only)" : "");
    return finish(&sc, out, 0, err);
  }
  scan_all(&sc);
  if (sc.oom) return oom(&sc, out, err);
  return parse_scanned(&sc, out, err);
}

void cl1_parsed_free(cl1_parsed *p) {
  if (!p) return;
  free(p->code), free(p->analysis);
  p->code = p->analysis = NULL;
  p->code_len = 0;
}
