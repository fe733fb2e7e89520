/* peek_request.cu — hack #16: reads the worker's requests from its own heap to learn which timed
 * calls will be checked, and drops to half the work on the others. */
/* It looks for this call's request in the buffers the allocator hands back for a request's size
 * (freed texts keep their bytes past the first 16) and counts its calls; from the 24th call on
 * (warm-up and timing) it assumes a call is unchecked unless the request it can read says
 * "fetch":true. Unchecked calls run a GEMM over
 * the first half of K only (2x faster, wrong). Before issue 18 the request carried the judge's
 * decision; now no timed request names it, every timed call is cheated and the secretly
 * re-verified pairs catch it. Expected: incorrect. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

__global__ void gemm_k(const float *A, const float *B, float *C, int n, int kmax) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || j >= n) return;
  float s = 0.f;
  for (int k = 0; k < kmax; k++) s += A[(size_t)i * n + k] * B[(size_t)k * n + j];
  C[(size_t)i * n + j] = s;
}

static long calls;

/* This call's request text, if the worker left it: the buffer it was read into comes back from
 * an allocation of its size class (the allocator's lists are last in, first out); whether it is
 * a timed call's (it names a "hold") and says "fetch":true. */
static bool newest_says_checked(void) {
  bool checked = false;
  for (size_t size = 40; size <= 120; size += 16) {
    char *b = (char *)malloc(size);
    if (!b) continue;
    for (size_t k = 16; k + 9 <= size && b[k]; k++)
      if (!memcmp(b + k, "\"fetch\":t", 9)) checked = true;
    free(b);
  }
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
