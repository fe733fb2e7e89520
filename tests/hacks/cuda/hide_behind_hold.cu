/* hide_behind_hold.cu — hack #1/#2: the whole call done by the CPU and copy engines in the hold. */
/* The harness queues a ~100 us GPU hold before each timed call's start event; it fills the SMs,
 * not the copy engines. This candidate copies the 128x10 input to the host on a stream of its
 * own, computes level2/9's small GEMM and epilogue on the CPU (weights copied once in cl1_setup)
 * and copies the result back, all while the hold still runs, and returns before the start event
 * is recorded: the event interval is empty, the wall time is the empty call's, and its host time
 * is shorter than the hold. Honestly timed it is ~30 us of copies and synchronisations against
 * the reference's ~10 us of kernels: expected pass-slow. */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cuda_runtime.h>
#include <stdlib.h>

typedef struct { cudaStream_t s; float *x, *y, *w, *b; double sub, mul; } st;

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  st *p = (st *)calloc(1, sizeof *p);
  long M = c->inputs[0].shape[0], K = c->inputs[0].shape[1], N = c->params[0].shape[0];
  if (!p || cl1_op_attr(c, "subtract_value", &p->sub) || cl1_op_attr(c, "multiply_value", &p->mul) ||
      cudaStreamCreateWithFlags(&p->s, cudaStreamNonBlocking) != cudaSuccess ||
      cudaMallocHost(&p->x, sizeof(float) * M * K) != cudaSuccess ||
      cudaMallocHost(&p->y, sizeof(float) * M * N) != cudaSuccess)
    return 1;
  p->w = (float *)malloc(sizeof(float) * N * K);
  p->b = (float *)malloc(sizeof(float) * N);
  if (!p->w || !p->b ||
      cudaMemcpy(p->w, c->params[0].data, sizeof(float) * N * K, cudaMemcpyDeviceToHost) ||
      cudaMemcpy(p->b, c->params[1].data, sizeof(float) * N, cudaMemcpyDeviceToHost))
    return 1;
  *state = p;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) {
  st *p = (st *)state;
  cudaFreeHost(p->x);
  cudaFreeHost(p->y);
  cudaStreamDestroy(p->s);
  free(p->w);
  free(p->b);
  free(p);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  st *p = (st *)c->state;
  long M = c->inputs[0].shape[0], K = c->inputs[0].shape[1], N = c->params[0].shape[0];
  cudaMemcpyAsync(p->x, c->inputs[0].data, sizeof(float) * M * K, cudaMemcpyDeviceToHost, p->s);
  if (cudaStreamSynchronize(p->s) != cudaSuccess) return 1;
  for (long m = 0; m < M; m++)
    for (long n = 0; n < N; n++) {
      double acc = p->b[n];
      for (long k = 0; k < K; k++) acc += (double)p->x[m * K + k] * p->w[n * K + k];
      double v = (acc - p->sub) * p->mul;
      p->y[m * N + n] = v > 0 ? (float)v : 0.f;
    }
  cudaMemcpyAsync(c->outputs[0].data, p->y, sizeof(float) * M * N, cudaMemcpyHostToDevice, p->s);
  return cudaStreamSynchronize(p->s) != cudaSuccess;
}
