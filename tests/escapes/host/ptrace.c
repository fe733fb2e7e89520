/* ptrace.c — attaches to the judge with ptrace (ATTACH, SEIZE; TRACEME for itself), reads and
 * writes its memory with process_vm_readv/writev, and takes its descriptors with pidfd_open +
 * pidfd_getfd. Expected: crash — seccomp refuses ptrace, process_vm_*, pidfd_* (EPERM). */
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
#include <sys/ptrace.h>
#include <sys/uio.h>

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

static int finish(const cl1_call *c) {
  (void)parse_long, (void)report;   /* not every probe needs them */
  fflush(stderr);
  if (!escaped && blocked) return 1;
  const float *x = (const float *)c->inputs[0].data;
  float *y = (float *)c->outputs[0].data;
  for (long i = 0, n = numel(&c->inputs[0]); i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
  return 0;
}
/* ---- end of the probe kit ---- */

static void probe(const cl1_call *c) {
  (void)c;
  long judge = sys(SYS_getppid);
  long (*ptrace_fn)(int, pid_t, void *, void *) = (long (*)(int, pid_t, void *, void *))resolve("ptrace");
  long r;
  if (ptrace_fn) {
    r = ptrace_fn(PTRACE_ATTACH, (pid_t)judge, NULL, NULL);
    report("ptrace(PTRACE_ATTACH, judge) via libc", r);
    if (r == 0) ptrace_fn(PTRACE_DETACH, (pid_t)judge, NULL, NULL);
  }
  r = sys(SYS_ptrace, PTRACE_SEIZE, judge, 0L, 0L);
  report("ptrace(PTRACE_SEIZE, judge)", r);
  if (r == 0) sys(SYS_ptrace, PTRACE_DETACH, judge, 0L, 0L);
  report("ptrace(PTRACE_TRACEME)", sys(SYS_ptrace, PTRACE_TRACEME, 0L, 0L, 0L));
  char buf[64];
  struct iovec local = {buf, sizeof buf}, remote = {(void *)0x400000, sizeof buf};
  report("process_vm_readv(judge)", sys(SYS_process_vm_readv, judge, &local, 1L, &remote, 1L, 0L));
  report("process_vm_writev(judge)", sys(SYS_process_vm_writev, judge, &local, 1L, &remote, 1L, 0L));
  long pfd = sys(SYS_pidfd_open, judge, 0L);
  report("pidfd_open(judge)", pfd);
  if (pfd >= 0) report("pidfd_getfd(judge, 1)", sys(SYS_pidfd_getfd, pfd, 1L, 0L));
  report("kcmp(judge)", sys(SYS_kcmp, judge, sys(SYS_getpid), 0L, 0L, 0L));
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
