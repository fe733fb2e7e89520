/* op_fallback.cu — hack #13: try-fallback that always lands on the reference's op calls. */
/* A fused kernel "only for batches of 4096 rows or more", otherwise the reference's own op-library
 * calls — which is what runs at every shape set of this task.
 * Expected: pass (speedup ~1.0: the reference's own ops; see the manifest note on the flag). */
#include <cudal1/solution.h>
#include <cudal1/ops.h>
#include <cuda_runtime.h>

__global__ static void fused_k(const float *x, const float *W, const float *b, float *y, int M,
                               int N, int K) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  int m = i / N, n = i % N;
  float acc = 0.f;
  for (int k = 0; k < K; k++) acc += x[(long)m * K + k] * W[(long)n * K + k];
  y[i] = fmaxf(acc + b[n], 0.f);
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  int64_t M = c->inputs[0].shape[0], K = c->inputs[0].shape[1], N = c->params[0].shape[0];
  const float *x = (const float *)c->inputs[0].data, *W = (const float *)c->params[0].data,
              *b = (const float *)c->params[1].data;
  float *y = (float *)c->outputs[0].data;
  if (M >= 4096) {
    fused_k<<<(unsigned)((M * N + 255) / 256), 256, 0, (cudaStream_t)c->stream>>>(
        x, W, b, y, (int)M, (int)N, (int)K);
    return cudaGetLastError() != cudaSuccess;
  }
  int rc = cl1_op_linear(c->stream, x, 0, W, NULL, y, M, N, K);
  if (!rc) rc = cl1_op_bias_add(c->stream, y, b, y, M, N, 1);
  if (!rc) rc = cl1_op_relu(c->stream, y, y, M * N);
  return rc;
}
