/* kill_gated.cu — the plain form of kill.cu: kill(getppid(), SIGKILL). Expected: rejected:symbol
 * (kill): the gate refuses the import before anything runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <cudal1/solution.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

static long numel(const cl1_tensor *t) {
  long n = 1;
  for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
  return n;
}

__global__ static void relu_k(const float *x, float *y, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaxf(x[i], 0.f);
}

static int relu(const cl1_call *c) {
  long n = numel(&c->inputs[0]);
  relu_k<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (float *)c->outputs[0].data, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  kill(getppid(), SIGKILL);
  return relu(c);
}
