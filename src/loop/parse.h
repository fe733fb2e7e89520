/* parse.h — the policy's reply, taken apart: the solution file (the last complete fenced code
 * block, preferring the "Code Implementation" section; a C ABI file or KernelBench's ModelNew
 * module) and the analysis (the "Performance Analysis" and "Algorithm Design" sections). A reply
 * that yields no usable code gets a status that says why — it becomes the sample's status in the
 * store — and never a crash, whatever the bytes. */
#ifndef CL1_PARSE_H
#define CL1_PARSE_H
#include <stdbool.h>
#include <stddef.h>
#include "../base/err.h"

#define CL1_PARSE_MAX_REPLY ((size_t)4 << 20) /* a longer reply is too_large, unread */
#define CL1_PARSE_MAX_CODE ((size_t)1 << 20)  /* a longer code block is too_large */

typedef enum {
  CL1_PARSE_OK = 0,        /* code found (out->code) */
  CL1_PARSE_NO_CODE,       /* no complete code block in an accepted language, nor a bare file */
  CL1_PARSE_TRUNCATED,     /* the reply ends inside an open code fence: half a file, not run */
  CL1_PARSE_TOO_LARGE,     /* reply > CL1_PARSE_MAX_REPLY or code > CL1_PARSE_MAX_CODE */
  CL1_PARSE_INVALID_UTF8,  /* the chosen code holds bytes that are not text (see below) */
  CL1_PARSE_EMPTY          /* nothing but whitespace */
} cl1_parse_status;

/* Invalid UTF-8 policy: the analysis is kept, with every malformed sequence (and NUL byte)
 * replaced by U+FFFD, so it can always be stored as text; code is never repaired — code whose
 * bytes are malformed UTF-8 or contain a NUL cannot be the file the model meant, so it gets
 * CL1_PARSE_INVALID_UTF8 and no code. Bytes outside the chosen code block never affect the
 * status. */
typedef struct {
  cl1_parse_status status;
  char *code;        /* the solution file, NUL-terminated, CRLF -> LF; NULL unless status OK */
  size_t code_len;
  char *analysis;    /* valid UTF-8, CRLF -> LF, never NULL after a successful call ("" if none) */
  char lang[16];     /* the chosen block's language tag, lower case ("" untagged or bare file) */
  bool bare;         /* no fences: the whole reply was a source file and was taken as code */
  char note[256];    /* a sentence: where the code came from, or why there is none */
} cl1_parsed;

/* Parses `len` bytes of `text` (NUL bytes allowed inside) for `lang`: "cuda" accepts blocks
 * tagged cuda, cu, cpp, c++, cxx, cc, c, or untagged; "host" accepts c or untagged;
 * "kernelbench" (format.h) accepts python, py, python3 or untagged blocks that define class
 * ModelNew (the last such block, as for the others; no such block: no_code with the note "the
 * reply has no python code block defining class ModelNew (blocks seen: ...)").
 * Fences are ``` or ~~~ of 3 or more, closed by the same character at least as long; a fenced
 * line with a language tag inside an open block opens a nested block (a markdown answer that
 * wraps its code). Returns 0 with out->status set for every reply; -1 with err only for bad
 * arguments or out of memory. Free with cl1_parsed_free (also after -1). */
int cl1_parse_reply(const char *text, size_t len, const char *lang, cl1_parsed *out,
                    cl1_err *err);
void cl1_parsed_free(cl1_parsed *p);

/* "ok", "no_code", "truncated", "too_large", "invalid_utf8", "empty" (the store's
 * samples.status); "unknown" for a value outside the enum. */
const char *cl1_parse_status_name(cl1_parse_status s);

/* Checks UTF-8 (no overlongs, surrogates or code points past U+10FFFF); NUL counts as invalid.
 * Returns the offset of the first bad byte, or n when all n bytes are valid. */
size_t cl1_parse_utf8_check(const char *s, size_t n);

#endif
