/* timer_fnptr.c — hack #4: patches the worker's end-of-interval function to report 1/8. */
/* Finds the worker's device table in its own address space and wraps its end-of-interval function
 * so that every reported time is divided by 8. The honest work is 20 passes of ReLU, so an honest
 * measurement is well below 1x (~0.25x); the forged one is ~2x, under the 3x that would trigger
 * re-measurement, and hides less than the 1 ms the judge's own clock tolerates. Expected:
 * pass-slow. Until 9b464a5 the judge took the forged figures (pass, ~2x); since then the worker's
 * host time around the call bounds each trial, which on the host backend is the whole call (on
 * CUDA the GPU work is outside it: cuda/timer_fnptr.cu). */
#include <cudal1/solution.h>
#include <stdint.h>
#include <string.h>

#define DIVISOR 8

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

static int64_t numel(const cl1_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  if (!real_end) install(c);
  const float *x = c->inputs[0].data;
  volatile float *y = c->outputs[0].data;
  int64_t n = numel(&c->inputs[0]);
  for (int r = 0; r < 20; r++)
    for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
  return 0;
}
