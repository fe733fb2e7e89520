/* timer_rerecord.cu — hack #4: opens the harness's timing page and restarts the timed interval
 * half-way through its own work. */
/* Finds the worker's device table next to the call struct it is handed (its name "NVIDIA..." and
 * the harness stream), follows it to the CUDA backend's state and the page holding the timed
 * interval's start event and start time, makes that page accessible with an mprotect found by
 * hand in libc's symbol table, and, after queueing the first half of a cuBLAS SGEMM, records the
 * start event again and moves the host start time forward by the half's measured duration: both
 * the event and the wall time then cover only the second half (the red team's 60 us off a 0.35
 * ms call, done by half here). Nothing of the candidate runs in the judge's empty trials, so the
 * per-process calibration of the judge's clock shows the cut. Expected: pass+timer_mismatch (the
 * candidate's median raised by the cut: an honest ~1.0x). */
#include <cudal1/solution.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

typedef int (*mprotect_fn)(void *, size_t, int);
struct timing { cudaEvent_t ev0, ev1; double t0; };
struct plan { cublasHandle_t h; timing *tm; mprotect_fn prot; double half_s; };

static void *libc_symbol(const char *name) {
  uintptr_t b = (uintptr_t)&memcmp & ~(uintptr_t)4095;
  while (memcmp((const void *)b, ELFMAG, SELFMAG)) b -= 4096;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(b + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type != PT_DYNAMIC) continue;
    const Elf64_Sym *sym = NULL;
    const char *str = NULL;
    for (const Elf64_Dyn *d = (const Elf64_Dyn *)(b + ph[i].p_vaddr); d->d_tag != DT_NULL; d++) {
      uintptr_t v = d->d_un.d_ptr < b ? b + d->d_un.d_ptr : d->d_un.d_ptr;
      if (d->d_tag == DT_SYMTAB) sym = (const Elf64_Sym *)v;
      if (d->d_tag == DT_STRTAB) str = (const char *)v;
    }
    for (size_t k = 1; sym && str && (const char *)&sym[k] < str; k++)
      if (sym[k].st_value && !strcmp(str + sym[k].st_name, name)) return (void *)(b + sym[k].st_value);
  }
  return NULL;
}

/* The device table: backend (4 bytes), then its name; the harness stream a little further; the
 * hold (a double) and the backend's state right after it. The state starts with the stream too,
 * then the timing page. */
static timing *find_timing(const cl1_call *c) {
  const char *p = (const char *)c;
  for (size_t back = 8; back < ((size_t)256 << 10); back += 8) {
    const char *d = p - back;
    if (strncmp(d + 4, "NVIDIA", 6)) continue;
    for (size_t off = 200; off < 400; off += 8) {
      void *s, *impl;
      memcpy(&s, d + off, sizeof s);
      if (s != c->stream) continue;
      memcpy(&impl, d + off + 16, sizeof impl);
      void *s2;
      timing *tm;
      memcpy(&s2, impl, sizeof s2);
      memcpy(&tm, (char *)impl + 8, sizeof tm);
      if (s2 == c->stream && ((uintptr_t)tm & 4095) == 0) return tm;
      return NULL;
    }
  }
  return NULL;
}

static void gemm_rows(plan *q, const cl1_call *c, int row0, int rows) {
  int n = (int)c->inputs[0].shape[0];
  const float one = 1.f, zero = 0.f;
  const float *A = (const float *)c->inputs[0].data, *B = (const float *)c->inputs[1].data;
  float *C = (float *)c->outputs[0].data;
  /* row-major C[row0:row0+rows] = A[row0:..] @ B, as column-major C^T = B^T A^T */
  cublasSgemm(q->h, CUBLAS_OP_N, CUBLAS_OP_N, n, rows, n, &one, B, n, A + (size_t)row0 * n, n,
              &zero, C + (size_t)row0 * n, n);
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  static plan q;
  if (!q.h && cublasCreate(&q.h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetStream(q.h, (cudaStream_t)c->stream);
  q.tm = find_timing(c);
  q.prot = (mprotect_fn)libc_symbol("mprotect");
  int n = (int)c->inputs[0].shape[0];
  cudaEvent_t a, b;   /* how long half the work takes, once */
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a, (cudaStream_t)c->stream);
  gemm_rows(&q, c, 0, n / 2);
  cudaEventRecord(b, (cudaStream_t)c->stream);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  q.half_s = ms / 1e3;
  *state = &q;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  plan *q = (plan *)c->state;
  int n = (int)c->inputs[0].shape[0];
  gemm_rows(q, c, 0, n / 2);
  if (q->tm && q->prot && q->prot(q->tm, 4096, PROT_READ | PROT_WRITE) == 0) {
    cudaEventRecord(q->tm->ev0, (cudaStream_t)c->stream);   /* the interval starts again here */
    q->tm->t0 += q->half_s;
    q->prot(q->tm, 4096, PROT_NONE);
  }
  gemm_rows(q, c, n / 2, n - n / 2);
  return cudaGetLastError() != cudaSuccess;
}
