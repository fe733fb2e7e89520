/* pinned.cu — exhausts host memory where the resident-set watchdog may not look:
 * page-locked host memory from cudaHostAlloc (an allowed call: the driver pins its own pages and
 * maps them into the process), 1 GiB at a time up to 24 GiB, logging the worker's RSS and the
 * machine's MemAvailable after each. Expected: crash — the judge's watchdog kills the worker at
 * its host-memory ceiling (8 GiB + 3x the task's data). */
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

/* ---- the probe kit: the same block in every escapes/ probe (a solution is one file) ----
 * resolve(name) finds any libc function without importing it: from the address of printf (an
 * allowed import) down to libc's ELF header, then its dynamic symbol table through the GNU hash
 * (resolve_in: the same in the library of another allowed import).
 * With syscall() and dlsym() in hand, the import allowlist is out of the way; what stops the
 * probe must be the sandbox. report() logs every attempt as ESCAPE-BLOCKED (it failed, as it
 * must) or ESCAPE-SUCCEEDED; finish() returns 1 when every attempt was blocked (verdict crash,
 * the log tail in the result says what was refused), else computes ReLU honestly (verdict pass:
 * the test fails). */
typedef long (*syscall_fn)(long, ...);
static syscall_fn sys;
static int blocked, escaped;

static uint32_t gnu_hash(const char *s) {
  uint32_t h = 5381;
  for (; *s; s++) h = h * 33 + (unsigned char)*s;
  return h;
}

static const unsigned char *elf_base(const void *anchor) {
  uintptr_t p = (uintptr_t)anchor & ~(uintptr_t)4095;
  for (int i = 0; i < (1 << 16); i++, p -= 4096) {
    const unsigned char *b = (const unsigned char *)p;
    if (b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F' &&
        ((const Elf64_Ehdr *)b)->e_type == ET_DYN)
      return b;
  }
  return NULL;
}

/* name in the library that holds anchor (the resolver's first page walk stays inside it) */
static void *resolve_in(const void *anchor, const char *name) {
  const unsigned char *base = elf_base(anchor);
  if (!base) return NULL;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
  const Elf64_Dyn *dyn = NULL;
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_DYNAMIC) dyn = (const Elf64_Dyn *)(base + ph[i].p_vaddr);
  if (!dyn) return NULL;
  const Elf64_Sym *sym = NULL;
  const char *str = NULL;
  const uint32_t *gh = NULL;
  for (; dyn->d_tag != DT_NULL; dyn++) {
    uintptr_t v = dyn->d_un.d_ptr;
    if (v < (uintptr_t)base) v += (uintptr_t)base; /* ld.so may or may not have relocated it */
    if (dyn->d_tag == DT_SYMTAB) sym = (const Elf64_Sym *)v;
    if (dyn->d_tag == DT_STRTAB) str = (const char *)v;
    if (dyn->d_tag == DT_GNU_HASH) gh = (const uint32_t *)v;
  }
  if (!sym || !str || !gh) return NULL;
  uint32_t nb = gh[0], off = gh[1], nbloom = gh[2], h = gnu_hash(name);
  const uint32_t *buckets = gh + 4 + 2 * nbloom, *chain = buckets + nb;
  for (uint32_t i = buckets[h % nb]; i >= off; i++) {
    uint32_t h2 = chain[i - off];
    if ((h | 1) == (h2 | 1) && sym[i].st_shndx && !strcmp(str + sym[i].st_name, name))
      return (void *)(uintptr_t)(base + sym[i].st_value);
    if (h2 & 1) break;
  }
  return NULL;
}

static void *resolve(const char *name) { return resolve_in((const void *)&printf, name); }

/* r < 0: the attempt failed, as it must; anything else is an escape */
static inline void report(const char *what, long r) {
  if (r < 0) {
    blocked++;
    fprintf(stderr, "ESCAPE-BLOCKED %s: %s\n", what, strerror(errno));
  } else {
    escaped++;
    fprintf(stderr, "ESCAPE-SUCCEEDED %s (%ld)\n", what, r);
  }
}

/* a decimal number (strtol/atoi: newer glibc headers make them __isoc23_strtol, not allowed) */
static inline long parse_long(const char *s) {
  long v = 0;
  while (*s == ' ' || *s == '\t') s++;
  for (; *s >= '0' && *s <= '9'; s++) v = v * 10 + (*s - '0');
  return v;
}

static long numel(const cl1_tensor *t) {
  long n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

__global__ static void relu_k(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

static int finish(const cl1_call *c) {
  (void)parse_long, (void)report;   /* not every probe needs them */
  fflush(stderr);
  if (!escaped && blocked) return 1;
  long n = numel(&c->inputs[0]);
  relu_k<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
/* ---- end of the probe kit ---- */

static long kib_of(const char *path, const char *key) {
  char buf[8192];
  long fd = sys(SYS_openat, AT_FDCWD, path, O_RDONLY);
  if (fd < 0) return -1;
  long n = sys(SYS_read, fd, buf, (long)sizeof buf - 1);
  sys(SYS_close, fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  const char *l = strstr(buf, key);
  return l ? parse_long(l + strlen(key)) : -1;
}

static void probe(const cl1_call *c) {
  (void)c;
  long gib = 0;
  for (; gib < 24; gib++) {
    void *p = NULL;
    if (cudaHostAlloc(&p, 1UL << 30, cudaHostAllocDefault) != cudaSuccess) break;
    fprintf(stderr, "pinned %ld GiB: VmRSS %ld MiB, MemAvailable %ld MiB\n", gib + 1,
            kib_of("/proc/self/status", "VmRSS:") >> 10, kib_of("/proc/meminfo", "MemAvailable:") >> 10);
  }
  errno = ENOMEM;
  report("cudaHostAlloc 1 GiB chunks up to 24 GiB", gib < 24 ? -1 : gib);
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
