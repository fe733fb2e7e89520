/* proc_mem.c — reaches into the judge (getppid()) through /proc: reads and writes
 * /proc/<judge>/mem, reads its environ and maps, reopens its stdout (/proc/<judge>/fd/1, where its
 * verdict JSON goes) to write a forged verdict, and does the same to the other cudal1 workers
 * (the reference) it finds in /proc. Expected: crash — every open is refused: Landlock keeps a
 * sandboxed process from ptrace-class access to processes outside its domain, and as root the
 * dropped capabilities do too (EACCES/EPERM). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <stdlib.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void reach(const char *who, long pid) {
  char p[128], w[256], buf[64];
  snprintf(p, sizeof p, "/proc/%ld/mem", pid);
  long fd = sys(SYS_openat, AT_FDCWD, p, O_RDONLY);
  snprintf(w, sizeof w, "open(/proc/<%s>/mem, O_RDONLY)", who);
  report(w, fd);
  fd = sys(SYS_openat, AT_FDCWD, p, O_RDWR);
  snprintf(w, sizeof w, "open(/proc/<%s>/mem, O_RDWR)", who);
  report(w, fd);
  snprintf(p, sizeof p, "/proc/%ld/environ", pid);
  fd = sys(SYS_openat, AT_FDCWD, p, O_RDONLY);
  snprintf(w, sizeof w, "read /proc/<%s>/environ", who);
  report(w, fd < 0 ? fd : sys(SYS_read, fd, buf, sizeof buf));
  snprintf(p, sizeof p, "/proc/%ld/maps", pid);
  fd = sys(SYS_openat, AT_FDCWD, p, O_RDONLY);
  snprintf(w, sizeof w, "read /proc/<%s>/maps", who);
  report(w, fd < 0 ? fd : sys(SYS_read, fd, buf, sizeof buf));
  snprintf(p, sizeof p, "/proc/%ld/fd/1", pid);
  fd = sys(SYS_openat, AT_FDCWD, p, O_RDWR);
  snprintf(w, sizeof w, "open(/proc/<%s>/fd/1, O_RDWR)", who);
  report(w, fd);
  if (fd >= 0) report("write a forged verdict", sys(SYS_write, fd, "{\"verdict\": \"pass\"}\n", 21));
}

static void probe(const cl1_call *c) {
  (void)c;
  long self = sys(SYS_getpid), judge = sys(SYS_getppid);
  reach("judge", judge);
  /* siblings: other worker processes (cudal1-worker) whose parent is our judge */
  long dfd = sys(SYS_openat, AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY);
  char dents[8192];
  long n;
  int found = 0;
  while (dfd >= 0 && (n = sys(SYS_getdents64, dfd, dents, sizeof dents)) > 0) {
    for (long off = 0; off < n;) {
      struct dirent64 *e = (struct dirent64 *)(dents + off);
      off += e->d_reclen;
      long pid = parse_long(e->d_name);
      if (pid <= 0 || pid == self || pid == judge) continue;
      char p[64], st[512];
      snprintf(p, sizeof p, "/proc/%ld/stat", pid);
      long fd = sys(SYS_openat, AT_FDCWD, p, O_RDONLY);
      if (fd < 0) continue;
      long k = sys(SYS_read, fd, st, sizeof st - 1);
      sys(SYS_close, fd);
      if (k <= 0) continue;
      st[k] = 0;
      const char *rp = strrchr(st, ')');
      long ppid = rp && rp[1] && rp[2] && rp[3] ? parse_long(rp + 4) : 0; /* ") S ppid" */
      if (ppid == judge) {
        found++;
        reach("reference worker", pid);
      }
    }
  }
  fprintf(stderr, "sibling workers found: %d\n", found);
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
