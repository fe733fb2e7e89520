/* exit_early.c — ends its worker where the judge does not expect it: on its first call it writes
 * a forged "done" reply for that call to the reply pipe (fd 4; the frame format is public,
 * src/eval/proto.h) and exits at once, so the judge, believing the worker alive, writes its next
 * request into a pipe nobody reads. Expected: crash ("the worker exited with status 42") — the
 * judge ignores SIGPIPE and sees the write fail. Before that, SIGPIPE killed the judge. */
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
#include <sys/mman.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void probe(const cl1_call *c) {
  static const char json[] = "{\"rc\":0,\"host_ms\":0.01,\"ev_ms\":0.01,\"wall_ms\":0.01,"
                             "\"threads_before\":1,\"threads\":1,\"mutated\":[],\"fetch_ms\":0}";
  struct { uint32_t magic, type, len; char body[sizeof json]; } frame;
  frame.magic = 0x46314C43u;   /* CL1_PROTO_MAGIC */
  frame.type = 64;             /* CL1_MSG_OK */
  frame.len = (uint32_t)(sizeof json - 1);
  memcpy(frame.body, json, sizeof json);
  /* the outputs the judge will read for this call: written where the worker would fetch them */
  long n = numel(&c->inputs[0]);
  float *shm = (float *)sys(SYS_mmap, 0L, n * 4L, (long)(PROT_READ | PROT_WRITE), (long)MAP_SHARED, 5L, 0L);
  if (shm != (float *)-1L) {
    const float *x = (const float *)c->inputs[0].data;
    for (long i = 0; i < n; i++) shm[i] = x[i] > 0.f ? x[i] : 0.f;
  }
  long w = sys(SYS_write, 4L, &frame, 12L + (long)(sizeof json - 1));   /* its own pipe: allowed */
  fprintf(stderr, "forged reply: %ld bytes; exiting\n", w);
  fflush(stderr);
  sys(SYS_exit_group, 42L);
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
