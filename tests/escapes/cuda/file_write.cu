/* file_write.cu — writes outside its temp dir: creates /tmp/cudal1-escape-file, the same name in the
 * judge's working directory ($PWD and /proc/<judge>/cwd) and in its own temp dir, with open,
 * creat, O_TMPFILE + linkat, mknod, symlink, link, rename; opens the existing
 * /tmp/cudal1-escape-victim (the test makes it) read-write to change it, truncates it. Expected:
 * crash — seccomp refuses creation, O_WRONLY/O_TRUNC/O_APPEND and the namespace calls, and on
 * the host O_RDWR too; on CUDA Landlock refuses O_RDWR outside the temp dir (EACCES). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static const char *const victim = "/tmp/cudal1-escape-victim";

static void try_create(const char *what, const char *path) {
  char w[600];
  snprintf(w, sizeof w, "%s: open(%s, O_CREAT|O_WRONLY)", what, path);
  report(w, sys(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, 0644));
  snprintf(w, sizeof w, "%s: open(%s, O_CREAT|O_RDWR)", what, path);
  report(w, sys(SYS_openat, AT_FDCWD, path, O_CREAT | O_RDWR, 0644));
  snprintf(w, sizeof w, "%s: creat(%s)", what, path);
  report(w, sys(SYS_creat, path, 0644));
}

static void probe(const cl1_call *c) {
  (void)c;
  char p[600];
  try_create("/tmp", "/tmp/cudal1-escape-file");
  char *(*get_env)(const char *) = (char *(*)(const char *))resolve("getenv");
  const char *pwd = get_env ? get_env("PWD") : NULL;
  if (pwd) {
    snprintf(p, sizeof p, "%s/cudal1-escape-file", pwd);
    try_create("the judge's $PWD", p);
  }
  snprintf(p, sizeof p, "/proc/%ld/cwd/cudal1-escape-file", sys(SYS_getppid));
  try_create("/proc/<judge>/cwd", p);
  try_create("own temp dir", "cudal1-escape-file");
  int (*open_fn)(const char *, int, ...) = (int (*)(const char *, int, ...))resolve("open");
  if (open_fn) report("open(/tmp/cudal1-escape-file) via libc", open_fn("/tmp/cudal1-escape-file", O_CREAT | O_WRONLY, 0644));
  long t = sys(SYS_open, "/tmp", O_TMPFILE | O_RDWR, 0600);
  report("open(/tmp, O_TMPFILE)", t);
  if (t >= 0) {
    snprintf(p, sizeof p, "/proc/self/fd/%ld", t);
    report("linkat(O_TMPFILE, /tmp/cudal1-escape-file)",
           sys(SYS_linkat, AT_FDCWD, p, AT_FDCWD, "/tmp/cudal1-escape-file", AT_SYMLINK_FOLLOW));
  }
  report("mknod(/tmp/cudal1-escape-fifo)", sys(SYS_mknodat, AT_FDCWD, "/tmp/cudal1-escape-fifo", S_IFIFO | 0600, 0));
  report("mkdir(/tmp/cudal1-escape-dir)", sys(SYS_mkdirat, AT_FDCWD, "/tmp/cudal1-escape-dir", 0700));
  report("symlink(/tmp/cudal1-escape-link)", sys(SYS_symlinkat, "/etc/passwd", AT_FDCWD, "/tmp/cudal1-escape-link"));
  report("link(victim, /tmp/cudal1-escape-hardlink)", sys(SYS_linkat, AT_FDCWD, victim, AT_FDCWD, "/tmp/cudal1-escape-hardlink", 0));
  report("rename(victim)", sys(SYS_renameat2, AT_FDCWD, victim, AT_FDCWD, "/tmp/cudal1-escape-renamed", 0));
  report("truncate(victim)", sys(SYS_truncate, victim, 0L));
  report("open(victim, O_WRONLY|O_APPEND)", sys(SYS_openat, AT_FDCWD, victim, O_WRONLY | O_APPEND));
  long fd = sys(SYS_openat, AT_FDCWD, victim, O_RDWR);
  report("open(victim, O_RDWR)", fd);
  if (fd >= 0) report("write(victim)", sys(SYS_write, fd, "escaped\n", 8));
  report("utimensat(victim)", sys(SYS_utimensat, AT_FDCWD, victim, NULL, 0));
  report("chmod(victim)", sys(SYS_fchmodat, AT_FDCWD, victim, 0777));
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  static int done;
  if (!done) {
    done = 1;
    sys = (syscall_fn)resolve("syscall");
    if (!sys) {
      fprintf(stderr, "resolver failed\n");
      return 2;
    }
    probe(c);
  }
  return finish(c);
}
