/* disk_fill.c — fills the disk from its only writable file, the stdout log: reserves 1 GiB of
 * blocks with fallocate(FALLOC_FL_KEEP_SIZE) (which RLIMIT_FSIZE does not see), extends it with
 * ftruncate and a pwrite at 64 GiB, then writes 1 MiB blocks until ENOSPC/EFBIG or 2 GiB (the
 * probe's own cap, so a sandbox bug cannot fill this machine). Expected: crash — fallocate is
 * refused by seccomp (EPERM), the rest stops at RLIMIT_FSIZE (16 MiB, EFBIG). Before the
 * fallocate rule, 1 GiB of disk was taken past the cap. (stderr is the same file, so the
 * ESCAPE lines after the fill may be lost; the return code still says.) */
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
#include <linux/falloc.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static char block[1 << 20];

static void probe(const cl1_call *c) {
  (void)c;
  report("fallocate(stdout, KEEP_SIZE, 1 GiB)", sys(SYS_fallocate, 1L, (long)FALLOC_FL_KEEP_SIZE, 0L, 1L << 30));
  report("fallocate(stdout, 0, 1 GiB)", sys(SYS_fallocate, 1L, 0L, 0L, 1L << 30));
  report("ftruncate(stdout, 64 GiB)", sys(SYS_ftruncate, 1L, 64L << 30));
  report("pwrite(stdout, at 64 GiB)", sys(SYS_pwrite64, 1L, "x", 1L, 64L << 30));
  fflush(stderr);
  memset(block, 'x', sizeof block);
  long total = 0, r = 0;
  while (total < (2L << 30)) {
    r = sys(SYS_write, 1L, block, (long)sizeof block);
    if (r <= 0) break;
    total += r;
  }
  int e = errno;
  fprintf(stderr, "wrote %ld MiB\n", total >> 20);
  errno = e;
  report("write 1 MiB blocks up to 2 GiB", r <= 0 ? -1 : total);
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
