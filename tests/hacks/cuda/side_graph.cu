/* side_graph.cu — hack #1: 20 passes in a CUDA graph launched on its own stream, never joined. */
/* Captures 20 passes of the reduction into a CUDA graph on a stream of its own and returns while
 * that graph launch is still running, never joining it to the harness stream.
 * The values are right once the device is synchronised, so the verdict is pass — but the time must
 * include the graph's work (20x an honest kernel, plus instantiating the graph): expected
 * pass-slow. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void sum_k(const float *x, float *y, long B, long R, long C) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= B * C) return;
  long b = i / C, k = i % C;
  float acc = 0.f;
  for (long r = 0; r < R; r++) acc += x[(b * R + r) * C + k];
  y[i] = acc;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  (void)c;
  cudaStream_t s;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return 1;
  *state = s;
  return 0;
}

CL1_EXPORT void cl1_teardown(void *state) { cudaStreamDestroy((cudaStream_t)state); }

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  cudaStream_t side = (cudaStream_t)c->state;
  long B = c->inputs[0].shape[0], R = c->inputs[0].shape[1], C = c->inputs[0].shape[2];
  cudaGraph_t g;
  cudaGraphExec_t ge;
  if (cudaStreamBeginCapture(side, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return 1;
  for (int r = 0; r < 20; r++)
    sum_k<<<(unsigned)((B * C + 255) / 256), 256, 0, side>>>((const float *)c->inputs[0].data,
                                                            (float *)c->outputs[0].data, B, R, C);
  if (cudaStreamEndCapture(side, &g) != cudaSuccess) return 1;
  if (cudaGraphInstantiate(&ge, g, 0) != cudaSuccess) return 1;
  int rc = cudaGraphLaunch(ge, side) != cudaSuccess;
  /* both are released when the launch completes; nothing waits for it here */
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  return rc;
}
