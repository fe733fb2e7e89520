/* dev_write.c — opens devices for writing: every block device in /dev (root without capabilities
 * still owns them; only a mounted disk refuses a writer by itself) and the character devices that
 * are not the driver's (kmsg, console, ttys, kvm, fuse, loop-control, userfaultfd, vsock, zram),
 * O_RDWR | O_NOCTTY. It never writes: a successful open is the escape (a raw write to /dev/vda
 * would corrupt this machine's file system). Expected: crash — on the host seccomp refuses
 * O_RDWR altogether (EPERM); on CUDA, where the driver needs O_RDWR, Landlock allows writes under
 * /dev only to the GPU driver's nodes and /dev/null (EACCES). Before, all of /dev was writable. */
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
#include <sys/stat.h>
#include <dirent.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void try_dev(const char *path) {
  char w[320];
  long fd = sys(SYS_openat, AT_FDCWD, path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  snprintf(w, sizeof w, "open(%s, O_RDWR)", path);
  if (fd >= 0) sys(SYS_close, fd);
  report(w, fd);
}

static void probe(const cl1_call *c) {
  (void)c;
  long dfd = sys(SYS_openat, AT_FDCWD, "/dev", O_RDONLY | O_DIRECTORY);
  char dents[8192];
  long n;
  int tried = 0;
  while (dfd >= 0 && (n = sys(SYS_getdents64, dfd, dents, sizeof dents)) > 0)
    for (long off = 0; off < n;) {
      struct dirent64 *e = (struct dirent64 *)(dents + off);
      off += e->d_reclen;
      static const char *const chr[] = {"kmsg", "console", "tty0", "tty1", "kvm", "fuse",
                                        "loop-control", "userfaultfd", "vsock", "ptmx", NULL};
      int pick = e->d_type == DT_BLK;
      for (int k = 0; chr[k] && !pick; k++) pick = !strcmp(e->d_name, chr[k]);
      if (!pick) continue;
      char path[300];
      snprintf(path, sizeof path, "/dev/%s", e->d_name);
      try_dev(path);
      tried++;
    }
  if (!tried) {   /* nothing to try here (a container without devices): nothing escaped */
    errno = ENOENT;
    report("no block device in /dev", -1);
  }
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
