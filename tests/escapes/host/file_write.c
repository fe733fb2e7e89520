/* file_write.c — writes outside its temp dir: creates /tmp/cudal1-escape-file, the same name in the
 * judge's working directory ($PWD and /proc/<judge>/cwd) and in its own temp dir, with open,
 * creat, O_TMPFILE + linkat, mknod, symlink, link, rename; opens the existing
 * /tmp/cudal1-escape-victim (the test makes it) read-write to change it, truncates it. Expected:
 * crash — seccomp refuses creation, O_WRONLY/O_TRUNC/O_APPEND and the namespace calls, and on
 * the host O_RDWR too; on CUDA Landlock refuses O_RDWR outside the temp dir (EACCES). */
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
#include <stdlib.h>
#include <sys/stat.h>

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

static const char *const victim = "/tmp/cudal1-escape-victim";

static void try_create(const char *what, const char *path) {
  char w[600];
  snprintf(w, sizeof w, "%s: open(%s, O_CREAT|O_WRONLY)", what, path);
  report(w, sys(SYS_openat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, 0644));
  snprintf(w, sizeof w, "%s: open(%s, O_CREAT|O_RDWR)", what, path);
  report(w, sys(SYS_openat, AT_FDCWD, path, O_CREAT | O_RDWR, 0644));
  snprintf(w, sizeof w, "%s: creat(%s)", what, path);
  report(w, sys(SYS_creat, path, 0644));
}

static void probe(const cl1_call *c) {
  (void)c;
  char p[600];
  try_create("/tmp", "/tmp/cudal1-escape-file");
  char *(*get_env)(const char *) = (char *(*)(const char *))resolve("getenv");
  const char *pwd = get_env ? get_env("PWD") : NULL;
  if (pwd) {
    snprintf(p, sizeof p, "%s/cudal1-escape-file", pwd);
    try_create("the judge's $PWD", p);
  }
  snprintf(p, sizeof p, "/proc/%ld/cwd/cudal1-escape-file", sys(SYS_getppid));
  try_create("/proc/<judge>/cwd", p);
  try_create("own temp dir", "cudal1-escape-file");
  int (*open_fn)(const char *, int, ...) = (int (*)(const char *, int, ...))resolve("open");
  if (open_fn) report("open(/tmp/cudal1-escape-file) via libc", open_fn("/tmp/cudal1-escape-file", O_CREAT | O_WRONLY, 0644));
  long t = sys(SYS_open, "/tmp", O_TMPFILE | O_RDWR, 0600);
  report("open(/tmp, O_TMPFILE)", t);
  if (t >= 0) {
    snprintf(p, sizeof p, "/proc/self/fd/%ld", t);
    report("linkat(O_TMPFILE, /tmp/cudal1-escape-file)",
           sys(SYS_linkat, AT_FDCWD, p, AT_FDCWD, "/tmp/cudal1-escape-file", AT_SYMLINK_FOLLOW));
  }
  report("mknod(/tmp/cudal1-escape-fifo)", sys(SYS_mknodat, AT_FDCWD, "/tmp/cudal1-escape-fifo", S_IFIFO | 0600, 0));
  report("mkdir(/tmp/cudal1-escape-dir)", sys(SYS_mkdirat, AT_FDCWD, "/tmp/cudal1-escape-dir", 0700));
  report("symlink(/tmp/cudal1-escape-link)", sys(SYS_symlinkat, "/etc/passwd", AT_FDCWD, "/tmp/cudal1-escape-link"));
  report("link(victim, /tmp/cudal1-escape-hardlink)", sys(SYS_linkat, AT_FDCWD, victim, AT_FDCWD, "/tmp/cudal1-escape-hardlink", 0));
  report("rename(victim)", sys(SYS_renameat2, AT_FDCWD, victim, AT_FDCWD, "/tmp/cudal1-escape-renamed", 0));
  report("truncate(victim)", sys(SYS_truncate, victim, 0L));
  report("open(victim, O_WRONLY|O_APPEND)", sys(SYS_openat, AT_FDCWD, victim, O_WRONLY | O_APPEND));
  long fd = sys(SYS_openat, AT_FDCWD, victim, O_RDWR);
  report("open(victim, O_RDWR)", fd);
  if (fd >= 0) report("write(victim)", sys(SYS_write, fd, "escaped\n", 8));
  report("utimensat(victim)", sys(SYS_utimensat, AT_FDCWD, victim, NULL, 0));
  report("chmod(victim)", sys(SYS_fchmodat, AT_FDCWD, victim, 0777));
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
