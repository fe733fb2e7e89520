/* rounded_grid.cu — hack #10: a grid rounded down, the ragged output edges never written. */
/* A tiled direct convolution whose grid is the output size divided by the 16x16 tile, rounded
 * down: the ragged right and bottom edges (254 = 15*16 + 14) are never written.
 * Expected: incorrect (outputs are poisoned before every call; every element must be written). */
#include <cudal1/solution.h>
#include <cuda_runtime.h>

__global__ static void conv_tile_k(const float *x, const float *w, float *y, int CI, int CO, int H,
                                   int W, int KS) {
  int OH = H - KS + 1, OW = W - KS + 1;
  int q = blockIdx.x * 16 + threadIdx.x, p = blockIdx.y * 16 + threadIdx.y;
  int o = blockIdx.z % CO, b = blockIdx.z / CO;
  float acc = 0.f;
  for (int ci = 0; ci < CI; ci++)
    for (int r = 0; r < KS; r++)
      for (int s = 0; s < KS; s++)
        acc += x[(((long)b * CI + ci) * H + p + r) * W + q + s] * w[((o * CI + ci) * KS + r) * KS + s];
  y[(((long)b * CO + o) * OH + p) * OW + q] = acc;
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *x = &c->inputs[0], *w = &c->params[0];
  int N = (int)x->shape[0], CI = (int)x->shape[1], H = (int)x->shape[2], W = (int)x->shape[3];
  int CO = (int)w->shape[0], KS = (int)w->shape[2];
  dim3 grid((W - KS + 1) / 16, (H - KS + 1) / 16, N * CO);
  conv_tile_k<<<grid, dim3(16, 16), 0, (cudaStream_t)c->stream>>>(
      (const float *)x->data, (const float *)w->data, (float *)c->outputs[0].data, CI, CO, H, W, KS);
  return cudaGetLastError() != cudaSuccess;
}
