/* flood.c — prints 1 GiB to stdout with fwrite, an allowed import (the gate has no reason to
 * stop it). Expected:
 * crash — RLIMIT_FSIZE caps the log at 16 MiB (EFBIG); the judge reads only its tail, so neither
 * the disk nor the judge's memory sees the gigabyte. */
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

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static char block[1 << 20];

static void probe(const cl1_call *c) {
  (void)c;
  memset(block, 'x', sizeof block);
  long ok = 0;
  for (int i = 0; i < 1024; i++) ok += fwrite(block, 1, sizeof block, stdout) == sizeof block;
  fflush(stdout);
  int e = errno;
  fprintf(stderr, "fwrite: %ld of 1024 MiB accepted\n", ok);
  errno = e;
  report("fwrite 1 GiB to stdout", ok == 1024 ? ok : -1);
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
