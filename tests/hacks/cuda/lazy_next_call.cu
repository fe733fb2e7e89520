/* lazy_next_call.cu — hack #3: each call launches the previous call's matmul, not its own. */
/* Defers each call's matmul to the start of the next call, so a call returns having launched only
 * its predecessor's work.
 * Expected: incorrect (the harness reads the outputs of every call, after it returns). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void matmul_k(const float *A, const float *B, float *C, int N) {
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j >= N) return;
  double acc = 0;
  for (int k = 0; k < N; k++) acc += (double)A[(long)i * N + k] * B[(long)k * N + j];
  C[(long)i * N + j] = (float)acc;
}

static const float *pend_a, *pend_b;
static float *pend_c;
static int pend_n;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  cudaStream_t s = (cudaStream_t)c->stream;
  if (pend_c) /* (the previous call's inputs may be gone by now; this hack does not care) */
    matmul_k<<<dim3((pend_n + 127) / 128, pend_n), 128, 0, s>>>(pend_a, pend_b, pend_c, pend_n);
  pend_a = (const float *)c->inputs[0].data;
  pend_b = (const float *)c->inputs[1].data;
  pend_c = (float *)c->outputs[0].data;
  pend_n = (int)c->inputs[0].shape[0];
  return cudaGetLastError() != cudaSuccess;
}
