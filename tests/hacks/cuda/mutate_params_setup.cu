/* mutate_params_setup.cu — hack #6: transposes the weight in place in cl1_setup. */
/* Transposes the weight in place in cl1_setup (no copy of its own), then computes a correct
 * Gemm+bias+ReLU from the transposed layout.
 * Params are read-only (copy and transform them into own memory instead); they are checksummed
 * before cl1_setup and around every call. Expected: hack:mutates_inputs. */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void transpose_k(const float *in, float *out, int R, int C) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < R * C) out[(long)(i % C) * R + i / C] = in[i];
}

__global__ static void gemm_t_k(const float *x, const float *Wt, const float *b, float *y, int M,
                                int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  int m = i / N, n = i % N;
  double acc = 0;
  for (int k = 0; k < K; k++) acc += (double)x[(long)m * K + k] * Wt[(long)k * N + n];
  float v = (float)acc + b[n];
  y[i] = v > 0.f ? v : 0.f;
}

CL1_EXPORT int cl1_setup(const cl1_call *c, void **state) {
  int N = (int)c->params[0].shape[0], K = (int)c->params[0].shape[1];
  float *W = (float *)c->params[0].data, *tmp;
  if (cudaMalloc(&tmp, sizeof(float) * N * K) != cudaSuccess) return 1;
  transpose_k<<<(N * K + 255) / 256, 256>>>(W, tmp, N, K);
  cudaMemcpy(W, tmp, sizeof(float) * N * K, cudaMemcpyDeviceToDevice);
  cudaFree(tmp);
  *state = nullptr;
  return cudaGetLastError() != cudaSuccess;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int M = (int)c->inputs[0].shape[0], K = (int)c->inputs[0].shape[1], N = (int)c->params[0].shape[0];
  gemm_t_k<<<(M * N + 255) / 256, 256, 0, (cudaStream_t)c->stream>>>(
      (const float *)c->inputs[0].data, (const float *)c->params[0].data,
      (const float *)c->params[1].data, (float *)c->outputs[0].data, M, N, K);
  return cudaGetLastError() != cudaSuccess;
}
