/* timer_rerecord.cu — hack #4: restarts the harness's timed interval half-way through its own
 * work. */
/* Finds the worker's device table next to the call struct it is handed (its name "NVIDIA..." and
 * the harness stream), follows it to the CUDA backend's state (the stream, then the interval's
 * start and end events, ..., the host start time) and, after queueing the first half of a cuBLAS
 * SGEMM, records the start event again and moves the host start time forward by the half's
 * measured duration: both the event and the wall time then cover only the second half (the red
 * team's 60 us off a 0.35 ms call, done by half here). Nothing of the candidate runs in the
 * judge's empty trials, so the judge's clock, calibrated on them per process, sees each trial
 * take twice what it is charged. Expected: pass+timer_mismatch (the candidate's median raised by
 * the cut: an honest ~1.0x). */
#include <cudal1/solution.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

/* the backend's state as this candidate guesses it */
struct backend { cudaStream_t stream; cudaEvent_t ev0, ev1; void *flushbuf; size_t flush_bytes;
                 void *scratch; double t0; };
struct plan { cublasHandle_t h; backend *be; double half_s; };

/* The device table: backend (4 bytes), then its name; the harness stream a little further; the
 * hold (a double) and the backend's state right after it, which starts with the stream too. */
static backend *find_backend(const cl1_call *c) {
  const char *p = (const char *)c;
  for (size_t back = 8; back < ((size_t)256 << 10); back += 8) {
    const char *d = p - back;
    if (strncmp(d + 4, "NVIDIA", 6)) continue;
    for (size_t off = 200; off < 400; off += 8) {
      void *s, *impl;
      memcpy(&s, d + off, sizeof s);
      if (s != c->stream) continue;
      memcpy(&impl, d + off + 16, sizeof impl);
      backend *be = (backend *)impl;
      return be && be->stream == (cudaStream_t)c->stream ? be : NULL;
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
  q.be = find_backend(c);
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
  if (q->be) {
    cudaEventRecord(q->be->ev0, (cudaStream_t)c->stream);   /* the interval starts again here */
    q->be->t0 += q->half_s;
  }
  gemm_rows(q, c, n / 2, n - n / 2);
  return cudaGetLastError() != cudaSuccess;
}
