/* thread_signal.cu — runs its own code on the CUDA driver's threads, which were started
 * before the sandbox: a SIGUSR2 handler, reached with tgkill on each of them (signals to its own
 * process pass seccomp) and with kill(getpid()) while the calling thread blocks the signal (the
 * kernel then picks another thread). On each it logs the thread's CapEff and tries to rewrite
 * /tmp/cudal1-escape-victim (O_RDWR) and to open /proc/<judge>/mem read-write (never writing
 * it). Expected: crash — the sandbox confines every thread it finds, not only its own:
 * capabilities dropped and the Landlock domain applied on each (EACCES). Before, as root, those
 * threads kept every capability and no Landlock: both opens succeeded. */
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
#include <dirent.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static volatile sig_atomic_t hit_tid;
static long hit_victim, hit_victim_errno, hit_mem, hit_mem_errno;
static char hit_caps[40];
static long judge;

/* on whichever thread the signal lands */
static void on_sig(int s) {
  (void)s;
  int e = errno;
  char buf[4096];
  long fd = sys(SYS_openat, AT_FDCWD, "/proc/thread-self/status", O_RDONLY);
  long n = fd >= 0 ? sys(SYS_read, fd, buf, (long)sizeof buf - 1) : -1;
  if (fd >= 0) sys(SYS_close, fd);
  snprintf(hit_caps, sizeof hit_caps, "?");
  if (n > 0) {
    buf[n] = 0;
    const char *c = strstr(buf, "CapEff:");
    if (c) snprintf(hit_caps, sizeof hit_caps, "%.24s", c + 8);
    char *nl = strchr(hit_caps, '\n');
    if (nl) *nl = 0;
  }
  hit_victim = sys(SYS_openat, AT_FDCWD, "/tmp/cudal1-escape-victim", O_RDWR);
  hit_victim_errno = errno;
  if (hit_victim >= 0) {
    sys(SYS_write, hit_victim, "escaped\n", 8L);
    sys(SYS_close, hit_victim);
  }
  char p[64];
  snprintf(p, sizeof p, "/proc/%ld/mem", judge);
  hit_mem = sys(SYS_openat, AT_FDCWD, p, O_RDWR);
  hit_mem_errno = errno;
  if (hit_mem >= 0) sys(SYS_close, hit_mem);
  hit_tid = (sig_atomic_t)sys(SYS_gettid);
  errno = e;
}

static int wait_hit(void) {
  for (int i = 0; i < 1000 && !hit_tid; i++) {
    struct timespec t = {0, 1000000};
    sys(SYS_nanosleep, &t, NULL);
  }
  return hit_tid;
}

static void report_hit(const char *how) {
  char w[200];
  fprintf(stderr, "%s: ran on thread %d, CapEff %s\n", how, (int)hit_tid, hit_caps);
  snprintf(w, sizeof w, "%s: open(victim, O_RDWR) on thread %d", how, (int)hit_tid);
  errno = (int)hit_victim_errno;
  report(w, hit_victim);
  snprintf(w, sizeof w, "%s: open(/proc/<judge>/mem, O_RDWR) on thread %d", how, (int)hit_tid);
  errno = (int)hit_mem_errno;
  report(w, hit_mem);
}

static void probe(const cl1_call *c) {
  (void)c;
  judge = sys(SYS_getppid);
  long self = sys(SYS_getpid), me = sys(SYS_gettid);
  int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *) =
      (int (*)(int, const struct sigaction *, struct sigaction *))resolve("sigaction");
  if (!sigaction_fn) return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sig;
  sa.sa_flags = SA_RESTART;
  sigaction_fn(SIGUSR2, &sa, NULL);
  int ran = 0;
  long dfd = sys(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY);
  char dents[4096];
  long n;
  while (dfd >= 0 && (n = sys(SYS_getdents64, dfd, dents, sizeof dents)) > 0)
    for (long off = 0; off < n;) {
      struct dirent64 *e = (struct dirent64 *)(dents + off);
      off += e->d_reclen;
      long tid = parse_long(e->d_name);
      if (tid <= 0 || tid == me) continue;
      hit_tid = 0;
      if (sys(SYS_tgkill, self, tid, SIGUSR2)) continue;
      if (wait_hit()) {
        ran++;
        report_hit("tgkill");
      }
    }
  /* process-directed, with this thread blocking it: the kernel hands it to another thread */
  unsigned long set = 1UL << (SIGUSR2 - 1), old = 0;
  sys(SYS_rt_sigprocmask, SIG_BLOCK, &set, &old, 8L);
  hit_tid = 0;
  sys(SYS_kill, self, SIGUSR2);
  if (wait_hit() && hit_tid != me) {
    ran++;
    report_hit("kill(getpid())");
  }
  sys(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8L);
  if (!ran) {
    errno = ESRCH;
    report("no other thread ran the handler", -1);
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
