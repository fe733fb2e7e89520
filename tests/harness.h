/* harness.h — what the cmocka tests share: the repository paths, temp folders, and running the
 * cudal1 binary with a captured result. Tests run from the repository root (scripts/run-tests). */
#ifndef CL1_TEST_HARNESS_H
#define CL1_TEST_HARNESS_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

/* The build folder ($CL1_BUILD, default "build"). */
static inline const char *th_build(void) {
  const char *b = getenv("CL1_BUILD");
  return b && *b ? b : "build";
}

/* dlopen of a library in the build folder (the op libraries the op tests exercise); NULL, with
 * the reason on stderr, when it is missing. */
static inline void *th_dlopen_build(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", th_build(), name);
  void *lib = dlopen(path, RTLD_NOW);
  if (!lib) fprintf(stderr, "cannot load %s: %s (build it first)\n", path, dlerror());
  return lib;
}

/* A fresh temp folder under /tmp, created; the caller may leave it (the OS cleans /tmp). */
static inline char *th_tmpdir(void) {
  static char buf[8][256];
  static int k;
  char *p = buf[k++ % 8];
  snprintf(p, 256, "/tmp/cl1test.XXXXXX");
  if (!mkdtemp(p)) return NULL;
  return p;
}

/* Writes text to path; returns 0 on success. */
static inline int th_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(text, f);
  return fclose(f);
}

/* n bytes, NULs included; 0 or -1. */
static inline int th_write_bytes(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t w = fwrite(data, 1, n, f);
  return fclose(f) || w != n ? -1 : 0;
}

/* Seconds on a monotonic clock. */
static inline double cl1_now_test(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs a shell command, captures stdout+stderr (truncated to cap) and returns the exit status
 * (or 128+signal). */
static inline int th_run(const char *cmd, char *out, size_t cap) {
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t n = 0;
  int c;
  while ((c = fgetc(p)) != EOF)
    if (out && n + 1 < cap) out[n++] = (char)c;
  if (out) out[n] = 0;
  int st = pclose(p);
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}
#endif
