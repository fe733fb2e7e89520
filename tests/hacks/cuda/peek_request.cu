/* peek_request.cu — hack #16: reads the worker's requests from its own heap to learn which timed
 * calls will be checked, and drops to half the work on the others. */
/* A different search from the host one: it keeps the newest request text of each kind it can find
 * in a wide window below the heap's top (freed texts keep their bytes past the first 16), and
 * counts its calls; from the 24th call on (warm-up and timing) it assumes a call is unchecked
 * unless the newest timed request it can read says "fetch":true. Unchecked calls run a GEMM over
 * the first half of K only (2x faster, wrong). Before issue 18 the request carried the judge's
 * decision; now no timed request names it, every timed call is cheated and the secretly
 * re-verified pairs catch it. Expected: incorrect. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW (1 << 20)

__global__ void gemm_k(const float *A, const float *B, float *C, int n, int kmax) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || j >= n) return;
  float s = 0.f;
  for (int k = 0; k < kmax; k++) s += A[(size_t)i * n + k] * B[(size_t)k * n + j];
  C[(size_t)i * n + j] = s;
}

static long calls;

/* The newest timed request below a fresh allocation: the last `","hold":` in the window; whether
 * its text (up to its closing brace) says "fetch":true. */
static bool newest_says_checked(void) {
  char *probe = (char *)malloc(64);
  if (!probe) return true;
  const char *lo = probe > (char *)WINDOW ? probe - WINDOW : probe;
  const char *hit = NULL;
  for (const char *p = probe - 16; p > lo; p--)
    if (!memcmp(p, "\",\"hold\":", 9)) { hit = p; break; }
  bool checked = false;
  for (const char *q = hit; q && q < hit + 64 && *q != '}'; q++)
    if (!memcmp(q, "\"fetch\":t", 9)) checked = true;
  free(probe);
  return checked;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int n = (int)c->inputs[0].shape[0];
  bool full = ++calls < 24 || newest_says_checked();
  dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  gemm_k<<<grid, block, 0, (cudaStream_t)c->stream>>>((const float *)c->inputs[0].data,
                                                      (const float *)c->inputs[1].data,
                                                      (float *)c->outputs[0].data, n, full ? n : n / 2);
  return cudaGetLastError() != cudaSuccess;
}
