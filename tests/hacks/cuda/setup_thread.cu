/* setup_thread.cu — hack #2: a thread of its own on the CUDA backend, where the sandbox lets
 * clone(CLONE_THREAD) through for the driver. */
/* Finds pthread_create through the C library's GNU hash table (walking down from malloc's
 * address to the library's ELF header) and starts, at its first call, a thread that outlives
 * the call and then polls beside every later one. A thread there could finish work after
 * cl1_forward returned or disturb the reference; the judge counts every worker's threads over
 * its whole life against what the driver starts in the reference's worker.
 * Expected: hack:threads. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int (*create_fn)(void *, const void *, void *(*)(void *), void *);

__global__ void relu(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

static volatile long polls;

static void *poller(void *) {
  for (;;) polls++;
  return NULL;
}

static uint32_t gnu_hash(const char *s) {
  uint32_t h = 5381;
  for (; *s; s++) h = h * 33 + (unsigned char)*s;
  return h;
}

static void *lookup(uintptr_t base, const Elf64_Dyn *dyn, const char *name) {
  const Elf64_Sym *sym = NULL;
  const char *str = NULL;
  const uint32_t *gh = NULL;
  for (; dyn->d_tag != DT_NULL; dyn++) {
    uintptr_t v = dyn->d_un.d_ptr < base ? base + dyn->d_un.d_ptr : dyn->d_un.d_ptr;
    if (dyn->d_tag == DT_SYMTAB) sym = (const Elf64_Sym *)v;
    else if (dyn->d_tag == DT_STRTAB) str = (const char *)v;
    else if (dyn->d_tag == DT_GNU_HASH) gh = (const uint32_t *)v;
  }
  if (!sym || !str || !gh) return NULL;
  uint32_t nbuckets = gh[0], symoffset = gh[1], bloom_size = gh[2];
  const uint32_t *buckets = gh + 4 + bloom_size * 2, *chain = buckets + nbuckets;
  uint32_t h = gnu_hash(name);
  for (uint32_t i = buckets[h % nbuckets]; i >= symoffset && i; i++) {
    uint32_t ch = chain[i - symoffset];
    if ((ch | 1) == (h | 1) && !strcmp(str + sym[i].st_name, name) && sym[i].st_value)
      return (void *)(base + sym[i].st_value);
    if (ch & 1) break;
  }
  return NULL;
}

static int start_poller(void) {
  uintptr_t p = (uintptr_t)&malloc & ~(uintptr_t)4095;
  while (memcmp((const void *)p, ELFMAG, SELFMAG)) p -= 4096;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(p + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type != PT_DYNAMIC) continue;
    create_fn create = (create_fn)lookup(p, (const Elf64_Dyn *)(p + ph[i].p_vaddr), "pthread_create");
    unsigned long tid;
    return create ? create(&tid, NULL, poller, NULL) : 1;
  }
  return 1;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  static int started;
  if (!started && start_poller() == 0) started = 1;
  long n = 1;
  for (int d = 0; d < c->inputs[0].ndim; d++) n *= c->inputs[0].shape[d];
  relu<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);
  return cudaGetLastError() != cudaSuccess;
}
