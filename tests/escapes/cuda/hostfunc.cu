/* hostfunc.cu — runs its own code on a CUDA driver thread: cudaLaunchHostFunc and
 * cudaStreamAddCallback (gate-denied; found in libcudart by the resolver, anchored at
 * cudaGetLastError). The sandbox's Landlock rules and dropped capabilities act per thread, and
 * the driver's threads started before the sandbox; seccomp alone is synchronised to every thread.
 * From the callback it rewrites /tmp/cudal1-escape-victim (O_RDWR, which seccomp lets through for
 * the driver's /dev/nvidia*), opens /proc/<judge>/mem, and logs the thread's capabilities; the
 * main thread logs every thread's CapEff/SigBlk/Seccomp. Expected: crash — every attempt
 * refused on the callback thread too. */
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
#include <dlfcn.h>
#include <dirent.h>
#include <sys/stat.h>

#include "probe_kit.inc" /* inlined by escape_cases.h before evaluation: a solution is one file */

static void status_of(const char *path, const char *who) {
  char buf[4096];
  long fd = sys(SYS_openat, AT_FDCWD, path, O_RDONLY);
  if (fd < 0) return;
  long n = sys(SYS_read, fd, buf, (long)sizeof buf - 1);
  sys(SYS_close, fd);
  if (n <= 0) return;
  buf[n] = 0;
  const char *keys[] = {"Name:", "CapEff:", "SigBlk:", "NoNewPrivs:", "Seccomp:"};
  fprintf(stderr, "%s:", who);
  for (int k = 0; k < 5; k++) {
    const char *l = strstr(buf, keys[k]);
    if (!l) continue;
    const char *e = strchr(l, '\n');
    fprintf(stderr, " %.*s", (int)(e ? e - l : (long)strlen(l)), l);
  }
  fprintf(stderr, "\n");
}

static void on_driver_thread(const char *how) {
  char w[160], p[64];
  snprintf(w, sizeof w, "%s: thread %ld", how, sys(SYS_gettid));
  status_of("/proc/thread-self/status", w);
  long fd = sys(SYS_openat, AT_FDCWD, "/tmp/cudal1-escape-victim", O_RDWR);
  snprintf(w, sizeof w, "%s: open(victim, O_RDWR)", how);
  report(w, fd);
  if (fd >= 0) {
    snprintf(w, sizeof w, "%s: write(victim)", how);
    report(w, sys(SYS_write, fd, "escaped\n", 8L));
  }
  snprintf(p, sizeof p, "/proc/%ld/mem", sys(SYS_getppid));
  snprintf(w, sizeof w, "%s: open(/proc/<judge>/mem, O_RDONLY)", how);
  report(w, sys(SYS_openat, AT_FDCWD, p, O_RDONLY));
  snprintf(w, sizeof w, "%s: open(/tmp/cudal1-escape-file, O_CREAT)", how);
  report(w, sys(SYS_openat, AT_FDCWD, "/tmp/cudal1-escape-file", O_CREAT | O_WRONLY, 0644));
}

static void CUDART_CB host_fn(void *arg) { (void)arg; on_driver_thread("cudaLaunchHostFunc"); }
static void CUDART_CB stream_cb(cudaStream_t s, cudaError_t e, void *arg) {
  (void)s, (void)e, (void)arg;
  on_driver_thread("cudaStreamAddCallback");
}

static void probe(const cl1_call *c) {
  cudaStream_t st = (cudaStream_t)c->stream;
  long dfd = sys(SYS_openat, AT_FDCWD, "/proc/self/task", O_RDONLY | O_DIRECTORY);
  char dents[4096];
  long n;
  while (dfd >= 0 && (n = sys(SYS_getdents64, dfd, dents, sizeof dents)) > 0)
    for (long off = 0; off < n;) {
      struct dirent64 *e = (struct dirent64 *)(dents + off);
      off += e->d_reclen;
      if (e->d_name[0] == '.') continue;
      char path[300], who[300];
      snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
      snprintf(who, sizeof who, "thread %s", e->d_name);
      status_of(path, who);
    }
  const void *anchor = (const void *)&cudaGetLastError;
  cudaError_t (*launch_host)(cudaStream_t, cudaHostFn_t, void *) =
      (cudaError_t (*)(cudaStream_t, cudaHostFn_t, void *))resolve_in(anchor, "cudaLaunchHostFunc");
  cudaError_t (*add_cb)(cudaStream_t, cudaStreamCallback_t, void *, unsigned) =
      (cudaError_t (*)(cudaStream_t, cudaStreamCallback_t, void *, unsigned))resolve_in(anchor, "cudaStreamAddCallback");
  fprintf(stderr, "cudaLaunchHostFunc at %p, cudaStreamAddCallback at %p\n", (void *)launch_host, (void *)add_cb);
  /* enqueueing succeeds by design: what counts is what the callbacks managed */
  if (launch_host && launch_host(st, host_fn, NULL) != cudaSuccess) fprintf(stderr, "cudaLaunchHostFunc failed\n");
  if (add_cb && add_cb(st, stream_cb, NULL, 0) != cudaSuccess) fprintf(stderr, "cudaStreamAddCallback failed\n");
  cudaStreamSynchronize(st);
  if (!launch_host || !add_cb) report("resolving the callback APIs", 0); /* not a proof: fail */
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
