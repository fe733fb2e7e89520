/* shm_shrink.cu — shrinks the judge's shared output memory: finds the memfd among its descriptors,
 * ftruncates it to 0 and (were that allowed) keeps it shrunk from a 200 us interval timer while a
 * SIGBUS handler restores it for the worker's own writes, so that the judge's next read of its
 * mapping would raise SIGBUS in the judge. Also tries to grow it and to add seals. Expected:
 * crash — the judge seals the memfd (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL: EPERM). Before
 * the seals, the judge died of SIGBUS. */
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
#include <sys/stat.h>
#include <sys/time.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static long shm_fd = -1, shm_size;

static void on_alarm(int s) {
  (void)s;
  sys(SYS_ftruncate, shm_fd, 0L);
}

static void on_bus(int s) {
  (void)s;
  sys(SYS_ftruncate, shm_fd, shm_size);
}

static void probe(const cl1_call *c) {
  (void)c;
  for (int k = 0; k < 256 && shm_fd < 0; k++) {
    char p[64], l[256];
    snprintf(p, sizeof p, "/proc/self/fd/%d", k);
    long n = sys(SYS_readlinkat, AT_FDCWD, p, l, sizeof l - 1);
    if (n > 0 && (l[n] = 0, strstr(l, "memfd:"))) shm_fd = k;
  }
  fprintf(stderr, "shared output memory: fd %ld\n", shm_fd);
  if (shm_fd < 0) return;
  struct stat st;
  sys(SYS_fstat, shm_fd, &st);
  shm_size = (long)st.st_size;
  long r = sys(SYS_ftruncate, shm_fd, 0L);
  report("ftruncate(shm, 0)", r);
  if (r == 0) sys(SYS_ftruncate, shm_fd, shm_size);
  report("ftruncate(shm, +1 MB)", sys(SYS_ftruncate, shm_fd, shm_size + (1L << 20)));
  report("fcntl(shm, F_ADD_SEALS, F_SEAL_FUTURE_WRITE)", sys(SYS_fcntl, shm_fd, (long)F_ADD_SEALS, (long)F_SEAL_FUTURE_WRITE));
  if (r) return;
  int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *) =
      (int (*)(int, const struct sigaction *, struct sigaction *))resolve("sigaction");
  if (!sigaction_fn) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_bus;
  sa.sa_flags = SA_RESTART | SA_NODEFER;
  sigaction_fn(SIGBUS, &sa, NULL);
  sa.sa_handler = on_alarm;
  sigaction_fn(SIGALRM, &sa, NULL);
  struct itimerval it = {{0, 200}, {0, 200}};
  report("setitimer(200 us): the shm shrinks under the judge", sys(SYS_setitimer, ITIMER_REAL, &it, NULL));
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
