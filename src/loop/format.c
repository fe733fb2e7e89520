/* format.c — the solution formats (format.h): names, extensions, and telling a stored source's
 * format from its text. */
#include "format.h"
#include <ctype.h>
#include <string.h>

const char *cl1_format_name(cl1_format f) {
  return f == CL1_FORMAT_KERNELBENCH ? "kernelbench" : "cabi";
}

int cl1_format_parse(const char *s, cl1_format *out) {
  if (s && !strcmp(s, "cabi")) return *out = CL1_FORMAT_CABI, 0;
  if (s && !strcmp(s, "kernelbench")) return *out = CL1_FORMAT_KERNELBENCH, 0;
  return -1;
}

const char *cl1_format_ext(cl1_format f, cl1_backend b) {
  if (f == CL1_FORMAT_KERNELBENCH) return "py";
  return b == CL1_BACKEND_CUDA ? "cu" : "c";
}

const char *cl1_format_parse_lang(cl1_format f, cl1_backend b) {
  return f == CL1_FORMAT_KERNELBENCH ? "kernelbench" : cl1_backend_name(b);
}

/* Line by line, so that "ModelNew" in a comment or a string on another line's tail does not
 * count: Python defines a class only with `class` first on its line. */
bool cl1_format_defines_modelnew(const char *s, size_t n) {
  static const char kw[] = "class", name[] = "ModelNew";
  size_t i = 0;
  while (i < n) {
    const char *nl = memchr(s + i, '\n', n - i);
    size_t end = nl ? (size_t)(nl - s) : n, p = i;
    while (p < end && (s[p] == ' ' || s[p] == '\t')) p++;
    if (end - p > 5 && !memcmp(s + p, kw, 5) && (s[p + 5] == ' ' || s[p + 5] == '\t')) {
      p += 5;
      while (p < end && (s[p] == ' ' || s[p] == '\t')) p++;
      size_t q = p + sizeof name - 1;
      if (q <= end && !memcmp(s + p, name, sizeof name - 1) &&
          (q == end || s[q] == '(' || s[q] == ':' || isspace((unsigned char)s[q])))
        return true;
    }
    i = end + 1;
  }
  return false;
}

cl1_format cl1_format_of_source(const char *source) {
  return source && cl1_format_defines_modelnew(source, strlen(source)) ? CL1_FORMAT_KERNELBENCH
                                                                        : CL1_FORMAT_CABI;
}
