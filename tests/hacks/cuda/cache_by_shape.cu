/* cache_by_shape.cu — hack #7: replays the first output for every call of the same shape. */
/* Computes the convolution once per shape and replays that first output (a device copy) for every
 * later call of the same shape.
 * Expected: incorrect (every check after the first brings new values of the same shape). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void conv_k(const float *x, const float *w, float *y, int N, int CI, int CO,
                              int H, int W, int KS) {
  int OH = H - KS + 1, OW = W - KS + 1;
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= (long)N * CO * OH * OW) return;
  int q = (int)(i % OW), p = (int)(i / OW % OH), o = (int)(i / ((long)OW * OH) % CO);
  long b = i / ((long)OW * OH * CO);
  float acc = 0.f;
  for (int ci = 0; ci < CI; ci++)
    for (int r = 0; r < KS; r++)
      for (int s = 0; s < KS; s++)
        acc += x[((b * CI + ci) * H + p + r) * W + q + s] * w[((o * CI + ci) * KS + r) * KS + s];
  y[i] = acc;
}

static long key[5];
static float *saved;

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[0], *y = &c->outputs[0];
  cudaStream_t s = (cudaStream_t)c->stream;
  long k[5] = {x->shape[0], x->shape[1], x->shape[2], x->shape[3], w->shape[0]};
  long n = y->shape[0] * y->shape[1] * y->shape[2] * y->shape[3];
  size_t bytes = sizeof(float) * n;
  bool hit = saved != nullptr;
  for (int i = 0; i < 5; i++) hit = hit && key[i] == k[i];
  if (hit) return cudaMemcpyAsync(y->data, saved, bytes, cudaMemcpyDeviceToDevice, s) != cudaSuccess;
  conv_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(
      (const float *)x->data, (const float *)w->data, (float *)y->data, (int)k[0], (int)k[1],
      (int)k[4], (int)k[2], (int)k[3], (int)w->shape[2]);
  if (!saved && cudaMalloc(&saved, bytes) != cudaSuccess) return 1;
  for (int i = 0; i < 5; i++) key[i] = k[i];
  return cudaMemcpyAsync(saved, y->data, bytes, cudaMemcpyDeviceToDevice, s) != cudaSuccess;
}
