/* err.c — error messages, logging and the clock shared by every module. */
#define _POSIX_C_SOURCE 200809L
#include "err.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cl1_err_set(cl1_err *err, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int cl1_err_wrap(cl1_err *err, const char *fmt, ...) {
  if (err) {
    char prefix[512], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    size_t k = strnlen(prefix, sizeof prefix);
    if (k > sizeof err->msg - 3) k = sizeof err->msg - 3;
    memcpy(err->msg, prefix, k);
    memcpy(err->msg + k, ": ", 2);
    cl1_strcpy(err->msg + k + 2, sizeof err->msg - k - 2, old);
  }
  return -1;
}

static int log_level(void) {
  static int level = -1;
  if (level < 0) {
    const char *e = getenv("CUDAL1_LOG");
    level = !e ? 1 : !strcmp(e, "debug") ? 3 : !strcmp(e, "info") ? 2 : 1;
  }
  return level;
}

static void vlog(const char *tag, const char *fmt, va_list ap) {
  fprintf(stderr, "cudal1: %s", tag);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void cl1_log_debug(const char *fmt, ...) {
  if (log_level() < 3) return;
  va_list ap;
  va_start(ap, fmt);
  vlog("debug: ", fmt, ap);
  va_end(ap);
}

void cl1_log_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog("warning: ", fmt, ap);
  va_end(ap);
}

void cl1_strcpy(char *dst, size_t n, const char *src) {
  if (!n) return;
  size_t k = strnlen(src, n - 1);
  memcpy(dst, src, k);
  dst[k] = 0;
}

double cl1_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
