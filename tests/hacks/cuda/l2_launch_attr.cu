/* l2_launch_attr.cu — hack #14: a persisting access-policy window as a launch attribute. */
/* Launches its GEMM with a per-launch persisting access-policy window over the weight
 * (cudaLaunchKernelEx attribute: not a denied call), hoping the weight survives the harness's L2
 * flush.
 * Without a persisting carve-out (cudaDeviceSetLimit is denied) the window has nothing to persist
 * into, and the harness resets persisting lines before each trial: the kernel is timed cold. A
 * plain kernel, far slower than cuBLAS: expected pass-slow. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void gemm_k(const float *x, const float *W, const float *b, float *y, int M,
                              int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  int m = i / N, n = i % N;
  double acc = 0;
  for (int k = 0; k < K; k++) acc += (double)x[(long)m * K + k] * W[(long)n * K + k];
  float v = (float)acc + b[n];
  y[i] = v > 0.f ? v : 0.f;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int M = (int)c->inputs[0].shape[0], K = (int)c->inputs[0].shape[1], N = (int)c->params[0].shape[0];
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeAccessPolicyWindow;
  attr[0].val.accessPolicyWindow.base_ptr = c->params[0].data;
  attr[0].val.accessPolicyWindow.num_bytes = sizeof(float) * N * K;
  attr[0].val.accessPolicyWindow.hitRatio = 1.f;
  attr[0].val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attr[0].val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((M * N + 255) / 256);
  cfg.blockDim = dim3(256);
  cfg.stream = (cudaStream_t)c->stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, gemm_k, (const float *)c->inputs[0].data,
                            (const float *)c->params[0].data, (const float *)c->params[1].data,
                            (float *)c->outputs[0].data, M, N, K) != cudaSuccess;
}
