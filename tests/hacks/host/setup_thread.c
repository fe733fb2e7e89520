/* setup_thread.c — hack #2: a thread of its own, started in cl1_setup with pthread_create found by
 * hand, which the gate cannot see. */
/* Walks from memcpy's address down to the C library's ELF header, reads its dynamic symbol table
 * and calls pthread_create through the pointer found there; the thread then spins beside every
 * call (here it only counts: the hole is that it exists). The host sandbox refuses clone, so this
 * runs under --no-sandbox (tests/test_infra.c), where only the judge's thread accounting over
 * the worker's life stands between it and a pass. Expected: hack:threads; with the sandbox:
 * pthread_create fails, cl1_setup returns 1: crash. */
#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <cudal1/solution.h>

typedef int (*create_fn)(void *tid, const void *attr, void *(*fn)(void *), void *arg);

static volatile unsigned long spins;

static void *spin(void *arg) {
  (void)arg;
  for (;;) spins++;
  return NULL;
}

/* The library holding addr: its ELF header sits on a page boundary below it. */
static const Elf64_Ehdr *library_of(const void *addr) {
  uintptr_t p = (uintptr_t)addr & ~(uintptr_t)4095;
  for (int i = 0; i < 8192; i++, p -= 4096)
    if (!memcmp((const void *)p, ELFMAG, SELFMAG)) return (const Elf64_Ehdr *)p;
  return NULL;
}

static void *symbol(const Elf64_Ehdr *eh, const char *name) {
  uintptr_t base = (uintptr_t)eh;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
  const Elf64_Dyn *dyn = NULL;
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_DYNAMIC) dyn = (const Elf64_Dyn *)(base + ph[i].p_vaddr);
  if (!dyn) return NULL;
  uintptr_t symtab = 0, strtab = 0;
  for (; dyn->d_tag != DT_NULL; dyn++) { /* the loader may have made these absolute already */
    uintptr_t v = dyn->d_un.d_ptr < base ? base + dyn->d_un.d_ptr : dyn->d_un.d_ptr;
    if (dyn->d_tag == DT_SYMTAB) symtab = v;
    if (dyn->d_tag == DT_STRTAB) strtab = v;
  }
  if (!symtab || !strtab || strtab <= symtab) return NULL;
  const Elf64_Sym *s = (const Elf64_Sym *)symtab;
  for (size_t i = 1; (uintptr_t)&s[i] < strtab; i++)
    if (s[i].st_value && !strcmp((const char *)strtab + s[i].st_name, name))
      return (void *)(base + s[i].st_value);
  return NULL;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  (void)c, (void)state;
  static int started;
  if (started) return 0;
  const Elf64_Ehdr *libc = library_of((const void *)(uintptr_t)&memcpy);
  create_fn create = libc ? (create_fn)(uintptr_t)symbol(libc, "pthread_create") : NULL;
  unsigned long tid;
  if (!create || create(&tid, NULL, spin, NULL)) return 1;
  started = 1;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const float *x = c->inputs[0].data;
  float *y = c->outputs[0].data;
  int64_t n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
  return 0;
}
