/* err.h — the one error value every fallible function fills: a human sentence naming the file,
 * field or cause. Callers print it once at the top; nothing below prints. */
#ifndef CL1_ERR_H
#define CL1_ERR_H
#include <stdarg.h>
#include <stddef.h>

typedef struct { char msg[1024]; } cl1_err;

/* Sets err->msg (if err != NULL) and returns -1, so `return cl1_err_set(err, ...)` reads well. */
int cl1_err_set(cl1_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepends "prefix: " to an existing message. Returns -1. */
int cl1_err_wrap(cl1_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Logging to stderr, gated by CUDAL1_LOG=debug|info (default warn). */
void cl1_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cl1_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Copies src into dst[n], truncating; always NUL-terminates. */
void cl1_strcpy(char *dst, size_t n, const char *src);

/* Monotonic clock in seconds. */
double cl1_now(void);

#endif
