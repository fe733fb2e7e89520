/* gate_lex.h — the gate's lexer (gate_lex.c), shared by the source rules in gate.c: C/C++ text
 * through translation phases 1-3 (trigraphs, line splices, comments and literals blanked) and
 * into tokens, under one of several readings (flags) the compiler might take. Internal. */
#ifndef CL1_GATE_LEX_H
#define CL1_GATE_LEX_H
#include <stdbool.h>
#include <stddef.h>
#include "../worker/backend.h"

enum { LX_TRIGRAPHS = 1, LX_WS_SPLICE = 2, LX_CXX = 4 };

/* raw: the text after trigraphs and line splices; c: the same with comments blanked, literals
 * reduced to `"  "`, digraph braces mapped; line: the source line of each byte. */
typedef struct { char *raw, *c; int *line; size_t n; } lexed;

typedef struct { int off, len, line, dir; char kind; } tok;   /* kind: i(dent) n(um) "(lit) p */

typedef struct {
  int name;          /* token index of the name */
  int body, end;     /* body token range [body, end) */
  bool fnlike, in_cond, is_asm;
} macro;

typedef struct {
  lexed L;
  tok *t; int nt;
  int *dir_tok;      /* first token of each directive */
  int ndir;
  macro *m; int nm;
  char pending[512]; /* a structural problem, reported only if the source uses asm */
  cl1_backend b;
} unit;

/* Lexes src under `flags` into u (u->b must be set by the caller). -1 when out of memory. */
int cl1_gate_lex(unit *u, const char *src, size_t n, int flags);
void cl1_gate_lex_free(unit *u);
bool cl1_gate_word_is(const char *p, size_t len, const char *w);
bool cl1_gate_include_word(const char *p, size_t len);
#endif
