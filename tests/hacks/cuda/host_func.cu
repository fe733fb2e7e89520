/* host_func.cu — hack #2: the reduction runs on the CPU in a cudaLaunchHostFunc callback. */
/* Enqueues a host function (cudaLaunchHostFunc) that does the reduction on the CPU after
 * cl1_forward has returned.
 * Expected: rejected:symbol (host work in a stream is denied, like threads). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <stdlib.h>

typedef struct { float *hx, *hy; long B, R, C; } job;

static void CUDART_CB reduce_on_host(void *arg) {
  job *j = (job *)arg;
  for (long b = 0; b < j->B; b++)
    for (long k = 0; k < j->C; k++) {
      float acc = 0.f;
      for (long r = 0; r < j->R; r++) acc += j->hx[(b * j->R + r) * j->C + k];
      j->hy[b * j->C + k] = acc;
    }
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  job *j = (job *)calloc(1, sizeof *j);
  if (!j) return 1;
  j->B = c->inputs[0].shape[0], j->R = c->inputs[0].shape[1], j->C = c->inputs[0].shape[2];
  if (cudaMallocHost(&j->hx, sizeof(float) * j->B * j->R * j->C) != cudaSuccess ||
      cudaMallocHost(&j->hy, sizeof(float) * j->B * j->C) != cudaSuccess)
    return 1;
  *state = j;
  return 0;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  job *j = (job *)c->state;
  cudaStream_t s = (cudaStream_t)c->stream;
  cudaMemcpyAsync(j->hx, c->inputs[0].data, sizeof(float) * j->B * j->R * j->C,
                  cudaMemcpyDeviceToHost, s);
  cudaLaunchHostFunc(s, reduce_on_host, j);
  cudaMemcpyAsync(c->outputs[0].data, j->hy, sizeof(float) * j->B * j->C, cudaMemcpyHostToDevice, s);
  return cudaGetLastError() != cudaSuccess;
}
