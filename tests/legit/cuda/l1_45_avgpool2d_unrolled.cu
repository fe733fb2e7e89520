/* l1_45_avgpool2d_unrolled.cu — level1/45_Average_Pooling_2D: y = AvgPool2d(k) (stride k, no
 * padding, floor mode). Technique: a 2-D tiled grid (x: output columns, y: output rows,
 * z: planes) so no thread divides its flat index into (plane, row, column) — the reference's
 * generic N-d pooling kernel spends ~10 integer divisions per output on that — and a kernel
 * specialised on k = 3 (the small shape) whose 3x3 window is fully unrolled (nine independent
 * loads in flight); other k take the runtime-k variant. A warp's 32 outputs read 3 x 96
 * consecutive floats per window row. Same summation order and final division by k*k as the
 * reference. 64-bit plane offsets (x has 2^32 elements at large). */
#include <cudal1/solution.h>

#define TXW 32
#define TYH 8

template <int K>
__global__ static void __launch_bounds__(TXW * TYH)
avgpool(const float *__restrict__ x, float *__restrict__ y, long long planes, int H, int W,
        int OH, int OW, int kr) {
  const int k = K ? K : kr;
  const int ow = blockIdx.x * TXW + threadIdx.x, oh = blockIdx.y * TYH + threadIdx.y;
  if (ow >= OW || oh >= OH) return;
  const float div = (float)(k * k);
  for (long long p = blockIdx.z; p < planes; p += gridDim.z) {
    const float *xp = x + p * H * (long long)W + (long long)(oh * k) * W + ow * k;
    float acc = 0.f;
    if constexpr (K > 0) {
#pragma unroll
      for (int a = 0; a < K; a++)
#pragma unroll
        for (int b = 0; b < K; b++) acc += __ldg(xp + a * W + b);
    } else {
      for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++) acc += __ldg(xp + (long long)a * W + b);
    }
    y[p * OH * (long long)OW + (long long)oh * OW + ow] = acc / div;
  }
}

CL1_EXPORT int cl1_forward(const cl1_call *c) {
  const cl1_tensor *X = &c->inputs[0], *Y = &c->outputs[0];
  if (X->ndim != 4 || Y->ndim != 4) return 1;
  int k = 0;
  for (int i = 0; i < c->n_attrs; i++)
    if (!__builtin_strcmp(c->attrs[i].name, "kernel_size")) k = (int)c->attrs[i].value;
  if (k < 1) return 1;
  const long long planes = X->shape[0] * X->shape[1];
  const int H = (int)X->shape[2], W = (int)X->shape[3];
  const int OH = (int)Y->shape[2], OW = (int)Y->shape[3];
  if (OH != (H - k) / k + 1 || OW != (W - k) / k + 1) return 1;
  if (planes == 0 || OH <= 0 || OW <= 0) return 0;
  const dim3 grid((unsigned)((OW + TXW - 1) / TXW), (unsigned)((OH + TYH - 1) / TYH),
                  (unsigned)(planes < 65535 ? planes : 65535));
  const dim3 block(TXW, TYH);
  const float *x = (const float *)X->data;
  float *y = (float *)Y->data;
  if (k == 3) avgpool<3><<<grid, block, 0, (cudaStream_t)c->stream>>>(x, y, planes, H, W, OH, OW, k);
  else avgpool<0><<<grid, block, 0, (cudaStream_t)c->stream>>>(x, y, planes, H, W, OH, OW, k);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
