/* timer_fnptr.cu — hack #4: patches the worker's end-of-interval function to report 1/4. */
/* Finds the worker's device table in its own address space (next to the call struct it is
 * handed) and wraps the function that ends each timed interval so that every reported time is
 * divided by 4. The honest work is two cuBLAS SGEMMs (an honest measurement is ~0.5x); the forged
 * one is ~2x, under the 3x that would trigger re-measurement, and the 0.5 ms it hides is under the
 * judge's 1 ms + half-the-median margin for its own clock. Expected: pass-slow (what a correct
 * evaluator says: the candidate's process must not be able to reach the timer). */
#include <cudal1/solution.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#define DIVISOR 4

/* What this candidate guesses of the harness's device table: its name (a recognisable string at
 * offset 4), then, somewhere after a pointer equal to the harness stream, a run of function
 * pointers (alloc, free, gen, poison, checksum, to_host, sync, flush, begin, end, ...) that all
 * point into the same program text. The guess survives fields added between them. */
typedef int (*end_fn)(void *dev, double *ev_ms, double *wall_ms, void *err);

static end_fn real_end;

static int forged_end(void *dev, double *ev_ms, double *wall_ms, void *err) {
  int rc = real_end(dev, ev_ms, wall_ms, err);
  *ev_ms /= DIVISOR;
  *wall_ms /= DIVISOR;
  return rc;
}

/* The table's functions come from one source file of the harness: within a few KB of each other.
 * The pointer before them (impl) is heap memory, which lies above the program's text: a run whose
 * first word stands more than 64 KB above all the others is that pointer, not a function. */
static int near(uintptr_t a, uintptr_t b) {
  return a && b && (a > b ? a - b : b - a) < ((uintptr_t)256 << 10);
}

static int code_run(const uintptr_t fn[10]) {
  uintptr_t top = 0;
  for (int i = 1; i < 10; i++) {
    if (!near(fn[i], fn[0])) return 0;
    if (fn[i] > top) top = fn[i];
  }
  return !(fn[0] > top && fn[0] - top > ((uintptr_t)64 << 10));
}

/* The call struct the harness passes lives in the same allocation as its device table, some
 * kilobytes after it: walk back until something looks like the table, then patch its 10th
 * function pointer. */
static void install(const cl1_call *c) {
  const char *p = (const char *)c;
  for (size_t back = 8; back < ((size_t)256 << 10); back += 8) {
    const char *d = p - back;
    int32_t backend;
    memcpy(&backend, d, 4);
    if ((backend != 0 && backend != 1) || (strcmp(d + 4, "host CPU") && strncmp(d + 4, "NVIDIA", 6)))
      continue;
    for (size_t off = 200; off < 320; off += 8) { /* the harness stream, after name and driver */
      void *w;
      memcpy(&w, d + off, sizeof w);
      if (w != c->stream) continue;
      for (size_t f = off + 8; f < off + 48; f += 8) { /* the first of ten close code pointers */
        uintptr_t fn[10];
        memcpy(fn, d + f, sizeof fn);
        if (!code_run(fn)) continue;
        memcpy(&real_end, &fn[9], sizeof real_end);
        end_fn mine = forged_end;
        memcpy((char *)(uintptr_t)d + f + 9 * sizeof(uintptr_t), &mine, sizeof mine);
        return;
      }
      return;
    }
  }
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  (void)c;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  *state = h;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) { cublasDestroy((cublasHandle_t)state); }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  if (!real_end) install(c);
  cublasHandle_t h = (cublasHandle_t)c->state;
  int n = (int)c->inputs[0].shape[0];
  const float one = 1.f, zero = 0.f;
  cublasSetStream(h, (cudaStream_t)c->stream);
  /* row-major C = A B is column-major C^T = B^T A^T */
  for (int r = 0; r < 2; r++)
    if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (const float *)c->inputs[1].data, n,
                    (const float *)c->inputs[0].data, n, &zero, (float *)c->outputs[0].data,
                    n) != CUBLAS_STATUS_SUCCESS)
      return 1;
  return 0;
}
